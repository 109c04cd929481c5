"""Batch: n worlds stepped together equal n separate worlds bit for bit, whatever the thread count; generalised
coordinates; pickling of worlds and batches."""

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import cairn

# A free-floating body on two actuated legs over a floor: a free root, hinges, motors and contact.
ROBOT = """<mujoco>
  <option timestep="0.004"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0 0 0.45">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" mass="2"/>
      <body name="left" pos="0.15 0 -0.05">
        <joint name="hip_l" type="hinge" axis="0 1 0" range="-60 60"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.3"/>
      </body>
      <body name="right" pos="-0.15 0 -0.05">
        <joint name="hip_r" type="hinge" axis="0 1 0" range="-60 60" ref="10"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.3"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="hip_l" gear="5" ctrlrange="-1 1" ctrllimited="true"/>
    <motor joint="hip_r" gear="5" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
  <sensor><jointpos joint="hip_l"/><framepos objtype="body" objname="torso"/></sensor>
</mujoco>
"""


@pytest.fixture
def robot(tmp_path):
    p = tmp_path / "walker.xml"
    p.write_text(ROBOT)
    return str(p)


def controls(n, steps, seed=3):
    return np.random.default_rng(seed).uniform(-1, 1, size=(steps, n, 2))


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def test_a_batch_of_eight_equals_eight_worlds(robot):
    n, steps = 8, 30
    u = controls(n, steps)
    batch = cairn.Batch(robot, n)
    worlds = [cairn.World(robot) for _ in range(n)]
    for t in range(steps):
        batch.step(u[t])
        for i, w in enumerate(worlds):
            w.ctrl = u[t, i]
            w.step()
    assert batch.qpos().shape == (n, 7 + 2) and batch.qvel().shape == (n, 6 + 2)
    for i, w in enumerate(worlds):
        assert np.array_equal(bits(batch.qpos()[i]), bits(w.qpos()))
        assert np.array_equal(bits(batch.qvel()[i]), bits(w.qvel()))
        assert np.array_equal(bits(batch.sensordata()[i]), bits(w.sensordata))
        assert np.array_equal(bits(batch.positions()[i]), bits(w.positions()))
        assert np.array_equal(bits(batch.contact_wrenches()[i]), bits(w.contact_wrenches()))
    assert np.all(batch.time() == worlds[0].time)
    # the controls differ per world, so the worlds do too
    assert not np.array_equal(batch.qpos()[0], batch.qpos()[1])


SCRIPT = """
import sys, numpy as np, cairn
b = cairn.Batch(sys.argv[1], 6)
u = np.random.default_rng(5).uniform(-1, 1, size=(20, 6, 2))
for t in range(20):
    b.step(u[t])
np.save(sys.argv[2], np.concatenate([b.qpos(), b.qvel()], axis=1))
"""


def test_the_thread_count_does_not_change_a_bit(robot, tmp_path):
    out = {}
    for threads in (1, 2, 4):
        f = tmp_path / f"t{threads}.npy"
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        r = subprocess.run([sys.executable, "-c", SCRIPT, robot, str(f)], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out[threads] = np.load(f)
    assert np.array_equal(bits(out[1]), bits(out[2])) and np.array_equal(bits(out[1]), bits(out[4]))


def test_generalised_coordinates_set_and_read_back(robot):
    w = cairn.World(robot)
    assert w.nq == 9 and w.nv == 8
    assert w.qpos_names[:4] == ["torso:x", "torso:y", "torso:z", "torso:qw"] and w.qpos_names[7:] == ["hip_l", "hip_r"]
    q0 = w.qpos()
    assert abs(q0[8] - np.radians(10)) < 1e-12  # the joint's ref at the file's pose
    q = q0.copy()
    q[:3] = [0.3, -0.2, 0.8]
    q[3:7] = np.array([0.9, 0.1, -0.2, 0.3]) / np.linalg.norm([0.9, 0.1, -0.2, 0.3])
    q[7:] = [0.4, -0.5]
    w.set_qpos(q)
    assert np.allclose(w.qpos(), q, atol=1e-12)
    v = np.linspace(-1, 1, 8)
    w.set_qvel(v)
    assert np.allclose(w.qvel(), v, atol=1e-12)
    with pytest.raises(cairn.SceneError, match="expected 9 values"):
        w.set_qpos(q[:5])
    with pytest.raises(cairn.SceneError, match="entry 7 .*hip_l.* not finite"):
        w.set_qpos(np.where(np.arange(9) == 7, np.nan, q))
    assert w.body_masses()[w.body_names.index("torso")] == pytest.approx(2.0)
    assert w.body_inertias().shape == (len(w.body_names), 3, 3)
    assert np.array_equal(w.ctrl_ranges(), [[-1, 1], [-1, 1]])
    assert w.body_parents[w.body_names.index("left")] == w.body_names.index("torso")


def test_reset_restore_and_per_world_setters(robot):
    b = cairn.Batch(robot, 4)
    start = b.qpos()
    b.step(controls(4, 1)[0], n=10)
    moved = b.qpos()
    b.reset([1, 3])
    q = b.qpos()
    assert np.array_equal(q[1], start[1]) and np.array_equal(q[3], start[3]) and np.array_equal(q[0], moved[0])
    snap = b.snapshot(0)
    b.restore(snap, [2])
    assert np.array_equal(b.qpos()[2], moved[0])
    target = start[:2].copy()
    target[:, 2] += 0.1
    b.set_qpos(target, [0, 1])
    assert np.allclose(b.qpos()[:2], target, atol=1e-12)
    with pytest.raises(ValueError, match=r"shape \(2, 9\)"):
        b.set_qpos(start, [0, 1])
    with pytest.raises(ValueError, match="out of range"):
        b.reset([4])
    with pytest.raises(ValueError, match="at least 1"):
        cairn.Batch(robot, 0)


def test_a_batch_copies_a_world_at_its_state(robot):
    w = cairn.World(robot)
    w.ctrl = [0.5, -0.5]
    w.step(5)
    b = cairn.Batch(w, 3)
    assert all(np.array_equal(bits(b.qpos()[i]), bits(w.qpos())) for i in range(3))
    w.step(5)
    b.step(n=5)
    assert np.array_equal(bits(b.qpos()[2]), bits(w.qpos()))
    copy = b.world(1)
    copy.step(3)
    w.step(3)
    assert np.array_equal(bits(copy.qpos()), bits(w.qpos()))


@pytest.mark.parametrize("kind", ["file", "text", "bundled"])
def test_worlds_pickle_and_step_on_bit_for_bit(robot, kind):
    if kind == "file":
        w = cairn.World(robot, "impulse")
    elif kind == "text":
        w = cairn.World.from_string(open(cairn.scenes_dir() / "stack10.toml").read(), "lcp", name="stack")
    else:
        w = cairn.World.from_file("stack10", "volumetric-penalty", overrides={"world.dt": 0.002})
    w.step(7)
    copy = pickle.loads(pickle.dumps(w))
    assert copy.method == w.method and copy.time == w.time and copy.dt == w.dt
    w.step(5)
    copy.step(5)
    assert np.array_equal(bits(copy.poses()), bits(w.poses()))
    assert np.array_equal(bits(copy.velocities()), bits(w.velocities()))


def test_a_batch_pickles(robot):
    b = cairn.Batch(robot, 3, "lcp")
    b.step(controls(3, 1)[0], n=4)
    c = pickle.loads(pickle.dumps(b))
    assert len(c) == 3 and np.array_equal(bits(c.qpos()), bits(b.qpos()))
    u = controls(3, 1, seed=9)[0]
    b.step(u, n=3)
    c.step(u, n=3)
    assert np.array_equal(bits(c.qpos()), bits(b.qpos()))
    b.reset()
    c.reset()
    assert np.array_equal(bits(c.qpos()), bits(b.qpos()))
