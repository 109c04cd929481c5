"""Controls, sensors and contact forces from Python: world.ctrl, world.sensordata, world.contacts()."""

import subprocess
import sys

import numpy as np
import pytest

import cairn

PENDULUM = """
format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.001
[[body]]
name = "arm"
shape = { type = "box", size = [0.1, 0.1, 1.0] }
position = [0.0, 0.0, -0.5]
[[joint]]
type = "hinge"
name = "shoulder"
body1 = "arm"
anchor = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
[[actuator]]
name = "torque"
type = "motor"
joint = "shoulder"
gear = 2.0
ctrlrange = [-1.0, 1.0]
[[sensor]]
name = "q"
type = "jointpos"
joint = "shoulder"
[[sensor]]
name = "tau"
type = "jointactuatorfrc"
joint = "shoulder"
[[sensor]]
name = "gyro"
type = "gyro"
body = "arm"
"""


@pytest.mark.parametrize("method", cairn.METHODS)
def test_a_torque_motor_accelerates_the_arm_as_tau_over_i(method):
    w = cairn.World.from_string(PENDULUM, method=method, name="pendulum")
    assert w.actuator_names == ["torque"]
    assert w.sensor_names == ["q", "tau", "gyro"]
    assert w.sensor_dims == [1, 1, 3]
    w.ctrl[:] = [0.5]
    w.step(10)
    # I about the hinge of a 0.1 × 0.1 × 1 box of density 1000 hung from its end: m(l² + a²)/12 + m(l/2)²
    m = 1000 * 0.1 * 0.1 * 1.0
    inertia = m * (1.0 + 0.01) / 12 + m * 0.25
    alpha = 0.5 * 2.0 / inertia
    tau = w.sensordata[1]
    assert tau == pytest.approx(1.0, rel=1e-12)
    # the gyro reads the angular velocity in the body's frame: about y, α·t
    assert abs(w.sensordata[3]) == pytest.approx(alpha * w.time, rel=0.02)
    assert w.actuator_forces[0] == pytest.approx(0.5, rel=1e-12)


def test_ctrl_is_one_array_clamped_by_the_world_and_checked():
    w = cairn.World.from_string(PENDULUM, name="pendulum")
    a = w.ctrl
    assert a is w.ctrl or np.shares_memory(a, w.ctrl)
    w.ctrl = [3.0]
    w.step()
    # the control stays as written; the force is the clamped one
    assert w.ctrl[0] == 3.0
    assert w.actuator_forces[0] == 1.0
    with pytest.raises(ValueError, match="expected 1 controls"):
        w.ctrl = [1.0, 2.0]


def test_reading_ctrl_does_not_stop_a_schedule():
    text = PENDULUM + '[[control]]\nactuator = "torque"\npath = [[0.0, 0.0], [1.0, 1.0]]\n'
    w = cairn.World.from_string(text, name="pendulum")
    _ = w.ctrl
    w.step(500)
    assert w.ctrl[0] == pytest.approx(0.499, abs=2e-3)
    w.ctrl[:] = [-0.25]
    w.step(10)
    assert w.ctrl[0] == -0.25


def test_contacts_give_the_weight_of_a_resting_box():
    text = """
format = 1
[world]
dt = 0.005
[[body]]
name = "ground"
kind = "static"
shape = { type = "box", size = [4.0, 4.0, 1.0] }
position = [0.0, 0.0, -0.5]
[[body]]
name = "box"
shape = { type = "box", size = [0.2, 0.2, 0.2] }
position = [0.0, 0.0, 0.1]
"""
    w = cairn.World.from_string(text, method="lcp", name="box")
    w.step(200)
    c = w.contacts()
    assert set(c) == {"bodies", "point", "normal", "force"}
    n = len(c["point"])
    assert n > 0 and c["bodies"].shape == (n, 2) and c["force"].shape == (n, 3)
    sign = np.where(c["bodies"][:, 0] == 1, 1.0, -1.0)
    total = (c["force"] * sign[:, None]).sum(axis=0)
    weight = 1000 * 0.2**3 * 9.81
    assert total[2] == pytest.approx(weight, rel=0.01)


def test_humanoid_crouch_example_holds_the_pose(repo):
    script = repo / "examples" / "humanoid_crouch.py"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "largest joint error over the last second" in r.stdout


def test_joint_reactions_carry_a_hanging_arm():
    text = PENDULUM.replace("gravity = [0.0, 0.0, 0.0]", "gravity = [0.0, 0.0, -9.81]")
    w = cairn.World.from_string(text, method="lcp", name="pendulum")
    assert w.joint_reactions()["force"].shape == (0, 3)
    w.step(20)
    r = w.joint_reactions()
    assert r["force"].shape == (1, 3) and r["torque"].shape == (1, 3)
    # the hinge holds the hanging arm up: m·g on body 1
    assert r["force"][0, 2] == pytest.approx(1000 * 0.1 * 0.1 * 1.0 * 9.81, rel=0.01)
