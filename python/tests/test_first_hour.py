"""A new user's first hour in Python, replayed (issue 35; the command line's side is cli/tests/first_hour.rs).

What a MuJoCo or PyBullet user looks for: external forces and torques for one step, joint coordinates by
name, reset to the initial state, the version, a callback on step(n); errors that name the argument at fault
(ValueError/TypeError), a static body's state refused, `last_stats` a dict before the first step, a scene name
with or without `.toml`; the loader's notes as one warning per kind."""

import warnings

import math

import numpy as np
import pytest

import cairn

FREE_BOX = """
format = 1
[world]
gravity = [0.0, 0.0, 0.0]
dt = 0.01
duration = 1.0
[[body]]
name = "ground"
kind = "static"
shape = { type = "box", size = [4.0, 4.0, 1.0] }
position = [0.0, 0.0, -50.0]
[[body]]
name = "box"
shape = { type = "box", size = [1.0, 1.0, 1.0] }
position = [0.0, 0.0, 5.0]
"""
MASS = 1000.0  # unit cube, default density 1000


@pytest.mark.parametrize("method", cairn.METHODS)
def test_a_force_accelerates_a_free_body_by_f_over_m_for_one_step(method):
    w = cairn.World.from_string(FREE_BOX, method=method)
    w.apply_force("box", [3000.0, 0.0, -1000.0])
    w.step()
    v = w.velocities()[1]
    assert np.allclose(v, np.array([3000.0, 0.0, -1000.0]) * w.dt / MASS, rtol=1e-6, atol=1e-12)
    w.step()  # the force acted for one step only
    assert np.allclose(w.velocities()[1], v, rtol=1e-6, atol=1e-12)


def test_a_torque_and_a_force_at_a_point_turn_the_body():
    i_zz = MASS / 6.0  # unit cube: m (1 + 1) / 12
    w = cairn.World.from_string(FREE_BOX)
    w.apply_torque(1, [0.0, 0.0, 100.0])
    w.step()
    assert np.allclose(w.angular_velocities()[1], [0.0, 0.0, 100.0 * w.dt / i_zz], rtol=1e-9)
    w = cairn.World.from_string(FREE_BOX)
    # along y at x = 0.5 from the centre (in the body's frame, origin at its centre): moment 0.5 * 200 about z
    w.apply_force("box", [0.0, 200.0, 0.0], point=[0.5, 0.0, 0.0], frame="body")
    w.step()
    assert np.allclose(w.angular_velocities()[1], [0.0, 0.0, 100.0 * w.dt / i_zz], rtol=1e-9)
    assert np.allclose(w.velocities()[1], [0.0, 200.0 * w.dt / MASS, 0.0], rtol=1e-9)


def test_force_errors_name_the_argument_or_body():
    w = cairn.World.from_string(FREE_BOX)
    with pytest.raises(ValueError, match="frame: unknown frame `local`"):
        w.apply_force("box", [1.0, 0.0, 0.0], frame="local")
    with pytest.raises(cairn.SceneError, match="`ground` is static"):
        w.apply_force("ground", [1.0, 0.0, 0.0])
    with pytest.raises(cairn.SceneError, match="`ground` is static"):
        w.set_body_velocity("ground", [1.0, 0.0, 0.0])
    with pytest.raises(cairn.SceneError, match="finite"):
        w.apply_torque("box", [math.inf, 0.0, 0.0])


def test_step_with_a_negative_n_is_a_value_error_naming_n():
    w = cairn.World.from_string(FREE_BOX)
    with pytest.raises(ValueError, match="n must be a non-negative"):
        w.step(-5)
    assert w.steps == 0


def test_step_calls_back_after_every_step_and_stops_on_false():
    w = cairn.World.from_string(FREE_BOX)
    seen = []
    w.step(5, callback=lambda world: seen.append((world.steps, world.time)))
    assert [s for s, _ in seen] == [1, 2, 3, 4, 5]
    assert seen[-1][1] == pytest.approx(5 * w.dt)
    # a callback returning False stops there; None (or anything else) goes on
    w.step(10, callback=lambda world: world.steps < 8)
    assert w.steps == 8
    with pytest.raises(TypeError, match="callback must be callable"):
        w.step(2, callback=3)
    assert w.steps == 8


def test_vector_arguments_are_checked_naming_the_argument():
    w = cairn.World.from_string(FREE_BOX)
    with pytest.raises(ValueError, match="apply_force: force must have 3 numbers, got 2"):
        w.apply_force("box", [0.0, 0.0])
    with pytest.raises(TypeError, match="apply_force: point must be a sequence of 3 numbers"):
        w.apply_force("box", [0.0, 0.0, 1.0], point="here")
    with pytest.raises(ValueError, match="apply_torque: torque must have 3 numbers"):
        w.apply_torque("box", [1.0])
    with pytest.raises(ValueError, match="set_body_pose: quaternion must have 4 numbers"):
        w.set_body_pose("box", [0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="set_body_velocity: angular_velocity must be a sequence of 3 numbers"):
        w.set_body_velocity("box", angular_velocity=3.0)
    # numpy arrays and tuples are sequences too
    w.apply_force("box", np.array([0.0, 0.0, 1.0]), point=(0.0, 0.0, 0.0))
    w.step()


def test_reset_brings_back_the_initial_state_and_empties_last_stats():
    w = cairn.World.from_file("stack10")
    start = w.poses()
    assert w.last_stats == {}
    w.step(20)
    assert w.last_stats["contacts"] >= 0
    w.reset()
    assert w.steps == 0 and w.time == 0.0 and w.last_stats == {}
    assert np.array_equal(w.poses(), start)


def test_joint_names_positions_and_velocities():
    w = cairn.World.from_file("hinge_pendulum")
    assert w.joint_names == ["joint0", "joint1"]
    q0 = w.joint_positions()
    assert q0.shape == (2,) and np.all(np.isfinite(q0))
    w.step(30)
    assert not np.allclose(w.joint_positions(), q0)  # released horizontal, it swings
    assert np.all(np.isfinite(w.joint_velocities())) and np.abs(w.joint_velocities()).max() > 0.1


def test_robot_joint_names_come_from_the_robot_file():
    w = cairn.World.from_file(str(cairn.scenes_dir() / "robots" / "arm2_scene.toml"))
    assert "a_shoulder" in w.joint_names, w.joint_names


def test_version_and_scene_name_with_extension():
    assert isinstance(cairn.__version__, str) and cairn.__version__.count(".") == 2
    assert cairn.World.from_file("pyramid20.toml").scene == cairn.World.from_file("pyramid20").scene


def test_a_bad_method_names_the_argument_and_lists_the_methods():
    for method in ["LCP", "pgs"]:
        with pytest.raises(cairn.SceneError, match=f"method: unknown method `{method}`: allowed are `lcp`"):
            cairn.World("pyramid20", method=method)


def test_robot_notes_are_one_warning_per_kind():
    robot = str(cairn.scenes_dir() / "robots" / "quadruped.xml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = cairn.World(robot)
    messages = [str(c.message) for c in caught]
    assert len(messages) < len(w.notes), messages
    friction = [m for m in messages if "different friction" in m]
    assert len(friction) == 1 and "link `fl`, `fr` and 2 more has geoms" in friction[0], messages
    assert sum("different friction" in n for n in w.notes) == 4
    assert all(m.count("quadruped.xml:") == 1 for m in messages), messages
