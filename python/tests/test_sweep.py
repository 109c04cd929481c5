"""cairn.sweep on every kind of executor (equal to a serial run bit for bit), its errors, pickling of worlds,
snapshots and batches (what lets them travel to Dask and Ray workers), and the Ray rollouts example."""

import concurrent.futures as cf
import math
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cairn

from conftest import state_bits

# A 1 kg box on a 20° slope: with μ = 0.1 and 0.3 it slides, with 0.5 it holds.
SLOPE = """
format = 1
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.01
duration = 1.0
method = "lcp"
[[material]]
name = "default"
density = 1000.0
friction = 0.5
restitution = 0.0
[[body]]
name = "slope"
kind = "static"
shape = { type = "box", size = [10.0, 10.0, 1.0] }
rotation_deg = [0.0, 20.0, 0.0]
position = [-0.171010071662834, 0.0, -0.469846310392954]
[[body]]
name = "box"
shape = { type = "box", size = [0.1, 0.1, 0.1] }
rotation_deg = [0.0, 20.0, 0.0]
position = [0.0171010071662834, 0.0, 0.0469846310392954]
"""
METHODS = ["lcp", "impulse"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the MJCF loader's notes
GRID = {"material.0.friction": [0.1, 0.3, 0.5]}
ARGS = dict(texts={"slope": SLOPE}, methods=METHODS, grid=GRID, duration=0.2, bodies=["box"])


def same(rows):
    """The rows without `wall_seconds` (the one field that differs between identical runs), floats as bits."""
    return [{k: (v.hex() if isinstance(v, float) else v) for k, v in r.items() if k != "wall_seconds"} for r in rows]


@pytest.fixture(scope="module")
def serial():
    return cairn.sweep(executor="serial", **ARGS)


def test_serial_sweep_table(serial):
    combos = [(m, f) for m in METHODS for f in GRID["material.0.friction"]]
    assert [(r["method"], r["material.0.friction"]) for r in serial] == combos
    for r in serial:
        assert r["scene"] == "slope" and r["completed"] and r["error"] is None and r["steps"] == 20
        assert isinstance(r["box.position.x"], float) and isinstance(r["wall_seconds"], float)
    # the box slides down-slope (+x) only where μ < tan 20°
    slid = [r["box.position.x"] - 0.0171010071662834 > 1e-3 for r in serial]
    assert slid == [True, True, False] * 2


def test_threads_equal_serial(serial):
    with cf.ThreadPoolExecutor(3) as pool:
        assert same(cairn.sweep(executor=pool, **ARGS)) == same(serial)


def test_default_process_pool_equals_serial(serial):
    assert same(cairn.sweep(**ARGS)) == same(serial)


def test_dask_local_cluster_equals_serial(serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            rows = cairn.sweep(executor=client.get_executor(), **ARGS)
            bundled = cairn.sweep("incline", "lcp", duration=0.05, executor=client.get_executor())
    assert same(rows) == same(serial)
    assert bundled[0]["completed"] and bundled[0]["scene"] == "incline"


def test_ray_equals_serial(serial):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        assert same(cairn.sweep(executor=cairn.ray_executor(), **ARGS)) == same(serial)
    finally:
        ray.shutdown()


def test_bundled_scene_default_method_and_frame():
    pd = pytest.importorskip("pandas")
    grid = {"material.0.friction": np.array([0.2]), "solver.lcp.iterations": np.arange(20, 22)}
    df = cairn.sweep("incline", grid=grid, duration=0.05, executor="serial", as_frame=True)
    assert isinstance(df, pd.DataFrame) and len(df) == 2
    assert list(df["method"]) == ["lcp"] * 2 and list(df["solver.lcp.iterations"]) == [20, 21]
    assert df["material.0.friction"][0] == 0.2 and df["steps"][0] == 3


def test_out_folders(tmp_path):
    rows = cairn.sweep("incline", METHODS, duration=0.05, executor="serial", out=tmp_path)
    assert [r["out"] for r in rows] == [str(tmp_path / f"00{i}-incline-{m}") for i, m in enumerate(METHODS)]
    assert all((tmp_path / f"00{i}-incline-{m}" / "summary.json").is_file() for i, m in enumerate(METHODS))


@pytest.mark.parametrize("executor", ["serial", None])
def test_bad_grid_key_names_the_combination(executor):
    named = r"sweep: scene `slope`, method `lcp`, material\.0\.frction = 0\.1: .*frction"
    with pytest.raises(cairn.SceneError, match=named):
        cairn.sweep(texts={"slope": SLOPE}, methods=["lcp"], grid={"material.0.frction": [0.1, 0.2]}, executor=executor)


def test_bad_value_method_and_scene_raise():
    with pytest.raises(cairn.SceneError, match=r"material\.0\.friction = -1: .*friction must be >= 0"):
        cairn.sweep("incline", "lcp", {"material.0.friction": [0.5, -1]}, duration=0.05, executor="serial")
    with pytest.raises(cairn.SceneError, match="method `nope`"):
        cairn.sweep("incline", "nope", executor="serial")
    with pytest.raises(cairn.SceneError, match="no scene file `no_such_scene`"):
        cairn.sweep("no_such_scene", "lcp", executor="serial")
    with pytest.raises(TypeError, match="must map a dotted key to a list"):
        cairn.sweep("incline", "lcp", {"material.0.friction": 0.5})


def test_failed_run_is_a_row():
    # a ball sunk into the slope: abd refuses to start from intersecting bodies, the sweep goes on
    ball = SLOPE + '[[body]]\nname = "ball"\nshape = { type = "sphere", radius = 0.05 }\nposition = [0.5, 0.0, 3.0]\n'
    rows = cairn.sweep(
        texts={"ball": ball}, methods="abd", grid={"body.2.position": ["[0.5, 0.0, -0.2]", "[0.5, 0.0, 3.0]"]},
        duration=0.03, executor="serial", bodies="ball",
    )
    assert rows[0]["completed"] is False and rows[0]["steps"] is None
    assert rows[0]["error"].startswith("SimulationError: ") and "intersect" in rows[0]["error"]
    assert rows[1]["completed"] and rows[1]["error"] is None
    assert list(rows[0]) == list(rows[1])  # the same columns either way
    assert rows[0]["ball.position.z"] is None and rows[1]["ball.position.z"] < 3.0 and list(rows[0])[-1] == "error"


# --- pickling: what carries worlds, snapshots and batches to workers -------------------------------------------


def test_world_pickles_bit_for_bit():
    for world in (
        cairn.World("incline", "impulse", overrides={"material.0.friction": 0.2}),
        cairn.World.from_string(SLOPE, "lcp", overrides={"material.0.friction": 0.1}, name="slope"),
    ):
        world.step(5)
        copy = pickle.loads(pickle.dumps(world))
        for attr in ("method", "scene", "dt", "time", "steps"):
            assert getattr(copy, attr) == getattr(world, attr)
        assert np.array_equal(state_bits(copy), state_bits(world))
        world.step(10)
        copy.step(10)
        assert np.array_equal(state_bits(copy), state_bits(world))


def test_world_with_actuators_pickles_bit_for_bit(repo):
    world = cairn.World(repo / "scenes" / "robots" / "quadruped.xml", "lcp")  # a free torso, servos, a sensor
    world.step(3)
    copy = pickle.loads(pickle.dumps(world))
    for k in range(5):
        u = np.full(len(world.actuator_names), 0.1 * k)
        assert len(u) == 4
        world.ctrl[:] = u
        copy.ctrl[:] = u
        world.step()
        copy.step()
        assert np.array_equal(state_bits(copy), state_bits(world))
        assert np.array_equal(copy.sensordata.view(np.uint64), world.sensordata.view(np.uint64))


def test_snapshot_pickles_and_restores_bit_for_bit():
    world = cairn.World("incline", "lcp", overrides={"material.0.friction": 0.2})
    world.step(4)
    snap = pickle.loads(pickle.dumps(world.snapshot()))
    other = cairn.World("incline", "lcp", overrides={"material.0.friction": 0.2})
    other.restore(snap)
    world.step(6)
    other.step(6)
    assert np.array_equal(state_bits(other), state_bits(world))


def batch_arrays(batch):
    """Every per-world array of a batch, as bits."""
    arrays = [batch.qpos(), batch.qvel(), batch.time(), batch.positions(), batch.quaternions(), batch.velocities()]
    arrays += [batch.angular_velocities(), batch.sensordata(), batch.ctrl]
    return [a.view(np.uint64).copy() for a in arrays]


@pytest.mark.parametrize("from_world", [False, True])
def test_batch_pickles_bit_for_bit(repo, from_world):
    scene = str(repo / "scenes" / "robots" / "quadruped.xml")
    world = cairn.World(scene, "lcp")
    world.step(2)
    batch = cairn.Batch(world, 3) if from_world else cairn.Batch(scene, 3, method="lcp")
    rng = np.random.default_rng(0)
    batch.step(rng.uniform(-0.5, 0.5, (3, batch.nu)), n=2)
    copy = pickle.loads(pickle.dumps(batch))
    assert len(copy) == 3 and copy.nu == batch.nu
    for a, b in zip(batch_arrays(copy), batch_arrays(batch)):
        assert np.array_equal(a, b)
    for _ in range(4):
        u = rng.uniform(-0.5, 0.5, (3, batch.nu))
        batch.step(u)
        copy.step(u)
    for a, b in zip(batch_arrays(copy), batch_arrays(batch)):
        assert np.array_equal(a, b)
    batch.reset([1])
    copy.reset([1])  # the start state travels too
    assert np.array_equal(copy.qpos().view(np.uint64), batch.qpos().view(np.uint64))


# --- the Ray rollouts example, serially (no Ray needed) ------------------------------------------------------


def test_ray_rollouts_example_runs_locally(repo):
    script = repo / "examples" / "ray_rollouts.py"
    args = [sys.executable, str(script), "--local", "--actors", "2", "--envs", "2", "--steps", "20"]
    args += ["--scene", "arm_sine"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "2 actors × 2 worlds × 20 steps" in r.stdout
    returns = [float(l.split()[-1]) for l in r.stdout.splitlines() if l.startswith("actor ")]
    assert len(returns) == 2 and all(math.isfinite(x) for x in returns)
