"""World: loading, stepping, state arrays, setters, statistics; run, validate and scenes."""

import math

import numpy as np
import pytest

import cairn

FREE_BALL = """
format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
duration = 1.0
method = "lcp"
[[material]]
name = "default"
density = 1000.0
friction = 0.5
restitution = 0.0
[[body]]
name = "ball"
shape = { type = "sphere", radius = 0.5 }
position = [0.0, 0.0, 2.0]
"""


@pytest.mark.parametrize(
    "scene, method, steps, frame_every",
    [
        ("stack10", "lcp", 40, 1),
        ("dominoes", "impulse", 30, 3),
        ("blocks4", "volumetric-penalty", 30, 2),
        ("abd_ramp", "abd", 6, 2),  # poses of abd's affine maps
    ],
)
def test_poses_match_the_trajectory_of_the_same_run_bit_for_bit(tmp_path, scene, method, steps, frame_every):
    w = cairn.World.from_file(scene, method=method)
    duration = steps * w.dt
    summary = cairn.run(scene, method=method, duration=duration, out=tmp_path, frame_every=frame_every)
    assert summary["steps"] == steps
    traj = np.load(tmp_path / "trajectory.npy")
    assert traj.shape == (steps // frame_every + 1, 1 + 12 * len(w))
    frames = traj[:, 1:].reshape(len(traj), -1, 3, 4)
    assert np.array_equal(frames[0].view(np.uint64), w.poses().view(np.uint64))
    for k in range(1, len(traj)):
        w.step(frame_every)
        assert traj[k, 0] == w.time
        assert np.array_equal(frames[k].view(np.uint64), w.poses().view(np.uint64)), f"frame {k} differs"
    # and the summary's final state is the world's
    final = summary["bodies"]
    assert [b["name"] for b in final] == w.body_names
    assert np.array_equal(np.array([b["position"] for b in final]), w.positions())
    assert np.array_equal(np.array([b["rotation"] for b in final]), w.quaternions())


def test_state_arrays_have_their_shapes_and_agree():
    w = cairn.World.from_file("stack10")
    w.step(5)
    n = len(w)
    assert n == len(w.body_names) == 11
    poses = w.poses()
    assert poses.shape == (n, 3, 4) and poses.dtype == np.float64
    assert w.positions().shape == (n, 3)
    assert np.array_equal(w.positions(), poses[:, :, 3])
    q = w.quaternions()
    assert q.shape == (n, 4)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-12)
    # the rotation of [R | p] is the quaternion's ([w, x, y, z])
    for i in range(n):
        qw, qx, qy, qz = q[i]
        r = np.array(
            [
                [1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qw * qz), 2 * (qx * qz + qw * qy)],
                [2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)],
                [2 * (qx * qz - qw * qy), 2 * (qy * qz + qw * qx), 1 - 2 * (qx * qx + qy * qy)],
            ]
        )
        assert np.allclose(poses[i, :, :3], r, atol=1e-12)
    assert w.velocities().shape == (n, 3) and w.angular_velocities().shape == (n, 3)
    # the cubes have moved (they settle onto each other), the static ground has not
    start = cairn.World.from_file("stack10").positions()
    assert np.abs(w.positions()[1:] - start[1:]).max() > 0.0
    assert np.array_equal(w.positions()[0], start[0]) and np.array_equal(w.velocities()[0], np.zeros(3))
    assert w.steps == 5 and w.time == 5 * w.dt
    assert w.method == "lcp" and w.scene == "stack10"


def test_arrays_are_copies_not_views_of_the_state():
    w = cairn.World.from_file("stack10")
    p = w.poses()
    p[:] = 0.0
    assert w.poses()[1, 2, 3] > 0.0


def test_a_velocity_set_from_python_moves_the_body():
    w = cairn.World.from_string(FREE_BALL, name="ball")
    w.set_body_velocity("ball", velocity=[1.0, 0.0, 0.5], angular_velocity=np.array([0.0, 0.0, 3.0]))
    w.step(10)
    assert np.allclose(w.positions()[0], [0.1, 0.0, 2.05], atol=1e-12)
    assert np.allclose(w.angular_velocities()[0], [0.0, 0.0, 3.0], atol=1e-12)
    # None keeps the other velocity
    w.set_body_velocity(0, angular_velocity=[0.0, 0.0, 0.0])
    assert np.allclose(w.velocities()[0], [1.0, 0.0, 0.5])


def test_a_pose_set_from_python_is_the_pose_read_back():
    w = cairn.World.from_string(FREE_BALL)
    s = math.sqrt(0.5)
    w.set_body_pose("ball", [1.0, 2.0, 3.0], [s, 0.0, 0.0, s])
    assert np.allclose(w.positions()[0], [1.0, 2.0, 3.0], atol=1e-15)
    assert np.allclose(w.quaternions()[0], [s, 0.0, 0.0, s], atol=1e-15)
    w.set_body_pose(0, [0.0, 0.0, 1.0])  # the rotation kept
    assert np.allclose(w.quaternions()[0], [s, 0.0, 0.0, s], atol=1e-15)
    with pytest.raises(cairn.SceneError, match="rotation must be a finite unit quaternion"):
        w.set_body_pose(0, [0.0, 0.0, 1.0], [2.0, 0.0, 0.0, 0.0])
    with pytest.raises(cairn.SceneError, match="body #7 does not exist"):
        w.set_body_pose(7, [0.0, 0.0, 1.0])
    with pytest.raises(cairn.SceneError, match="no body named `moon`"):
        w.set_body_velocity("moon", [0.0, 0.0, 0.0])
    with pytest.raises(cairn.SceneError, match="finite"):
        w.set_body_velocity(0, [math.nan, 0.0, 0.0])


def test_last_stats_is_a_dict_of_the_last_step():
    w = cairn.World.from_file("stack10")
    assert w.last_stats == {}
    w.step(30)
    s = w.last_stats
    assert s["contacts"] > 0 and s["islands"] >= 1
    assert s["max_penetration"] >= 0.0
    assert list(s["stage_seconds"]) == w.stage_names
    assert s["total_seconds"] == pytest.approx(sum(s["stage_seconds"].values()))
    assert s["proxies"] == [] and s["intersections"] is None


def test_a_proxy_target_set_from_python_and_its_wrenches():
    w = cairn.World.from_file("bricks6_proxy")
    w.step(2)
    before = w.last_stats["proxies"]
    assert len(before) == 1 and before[0]["coupling_force"].shape == (3,)
    i = w.body_index("hand")
    target = [-0.4, 0.0, 0.5]
    w.set_proxy_target(0, target, [1.0, 0.0, 0.0, 0.0])
    w.step(1)
    p = w.last_stats["proxies"][0]
    for k in ("contact_force", "contact_torque", "coupling_force", "coupling_torque"):
        assert p[k].shape == (3,) and np.all(np.isfinite(p[k]))
    # the coupling pulls the hand up towards the target, 0.45 m above it
    d = np.array(target) - w.positions()[i]
    assert d[2] > 0.4 and p["coupling_force"][2] > 0.0
    with pytest.raises(cairn.SceneError, match=r"proxy #3 does not exist \(the scene has 1 proxies\)"):
        w.set_proxy_target(3, target, [1.0, 0.0, 0.0, 0.0])


def test_run_returns_the_summary():
    s = cairn.run("stack10", method="impulse", duration=0.1)
    assert s["method"] == "impulse" and s["scene"] == "stack10" and s["steps"] == 6
    assert len(s["bodies"]) == 11


def test_overrides_take_python_values_and_toml_text():
    w = cairn.World.from_file("stack10", overrides={"world.dt": 0.005, "solver.lcp.iterations": 7, "world.gravity": [0, 0, -1]})
    assert w.dt == 0.005
    w2 = cairn.World.from_file("stack10", overrides={"world.dt": "0.005", "world.method": "impulse"})
    assert w2.dt == 0.005 and w2.method == "impulse"
    w.step(1)
    # gravity -1: a free cube's velocity after one step
    assert w.velocities()[-1, 2] == pytest.approx(-0.005, rel=1e-9)


def test_validate_returns_the_rows():
    rows = cairn.validate("lcp", only=["free_fall"])
    assert rows and all(set(r) == {"experiment", "expected", "measured", "tolerance", "pass"} for r in rows)
    assert all(r["pass"] for r in rows), rows
    with pytest.raises(cairn.SceneError, match="unknown method `nope`"):
        cairn.validate("nope")
    with pytest.raises(cairn.SceneError, match="no experiment `nope`"):
        cairn.validate("lcp", only=["nope"])


def test_scenes_lists_the_bundled_scenes():
    s = cairn.scenes()
    assert "pyramid20" in s and "stack60" in s
    assert s["stack10"].startswith("10 unit cubes")
    # whole one-line descriptions, no internal references
    for name, desc in s.items():
        assert 0 < len(desc) <= 100 and desc.endswith("."), (name, desc)
        assert "issue" not in desc and "peers" not in desc, (name, desc)
    assert set(cairn.METHODS) >= {"lcp", "impulse", "volumetric-penalty", "abd"}


def test_a_scn_scene_warns_about_what_cairn_cannot_use():
    with pytest.warns(UserWarning) as caught:
        w = cairn.World("stack26")
    messages = [str(c.message) for c in caught]
    # the file's ignored parts share one warning; World.notes has each
    assert [m.split("stack26.scn: ")[-1] for m in messages] == ["ignored (cairn cannot use it): " + ", ".join(
        n.removeprefix("ignored (cairn cannot use it): ") for n in w.notes)], messages
    assert "ignored (cairn cannot use it): camera" in w.notes
    assert w.method == "impulse"


def test_run_with_the_intersection_check_reports_it(tmp_path):
    cairn.run("stack10", duration=0.05, out=tmp_path, check_intersections=True)
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0]
    assert header.endswith(",intersections,min_distance,crossings")
    with pytest.raises(cairn.SceneError, match="frame_every must be at least 1"):
        cairn.run("stack10", duration=0.05, out=tmp_path, frame_every=0)
