"""Errors: Python exceptions of cairn's classes, with the command line's messages."""

import subprocess

import pytest

import cairn

GOOD = """
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
name = "box"
shape = { type = "box", size = [1.0, 1.0, 1.0] }
position = [0.0, 0.0, 2.0]
"""


def test_the_exceptions_are_one_family():
    assert issubclass(cairn.SceneError, cairn.CairnError)
    assert issubclass(cairn.SimulationError, cairn.CairnError)
    assert issubclass(cairn.CairnError, Exception)
    assert not issubclass(cairn.SceneError, cairn.SimulationError)


def test_an_unknown_key_is_a_scene_error_naming_it():
    with pytest.raises(cairn.SceneError, match="frictoin") as e:
        cairn.World.from_string(GOOD.replace("friction = 0.5", "frictoin = 0.5"), name="typo.toml")
    assert str(e.value).startswith("typo.toml")


def test_a_bad_value_is_a_scene_error_naming_the_key():
    with pytest.raises(cairn.SceneError, match="dt"):
        cairn.World.from_string(GOOD.replace("dt = 0.01", "dt = -0.01"))
    with pytest.raises(cairn.SceneError, match="density"):
        cairn.World.from_string(GOOD, overrides={"material.0.density": -5.0})


def test_an_unknown_method_is_a_scene_error_listing_the_methods():
    with pytest.raises(cairn.SceneError, match="unknown method `verlet`"):
        cairn.World.from_file("stack10", method="verlet")


def test_a_missing_scene_is_a_scene_error():
    with pytest.raises(cairn.SceneError, match="no scene file `nowhere.toml` and no bundled scene of that name"):
        cairn.World.from_file("nowhere.toml")


def test_an_override_of_a_type_toml_cannot_hold_is_a_type_error():
    with pytest.raises(TypeError, match="override `world.dt`"):
        cairn.World.from_file("stack10", overrides={"world.dt": object()})


def test_gravity_beyond_the_simulated_lengths_is_a_scene_error():
    with pytest.raises(cairn.SceneError, match=r"world.gravity: a step of free fall, .* 1e9 m"):
        cairn.World.from_string(GOOD.replace("[0.0, 0.0, -9.81]", "[0.0, 0.0, -1e307]"), name="overflow")


def test_a_non_finite_state_is_a_simulation_error_naming_body_step_and_stage():
    # a load near the largest double: the spin it gives overflows to infinity within the first step
    load = '[[load]]\nbody = "box"\nforce = [1e307, 1e307, 1e307]\ntorque = [1e307, 2e307, 0.0]\n'
    w = cairn.World.from_string(GOOD + load, name="overflow")
    with pytest.raises(cairn.SimulationError, match=r"non-finite \w+ of body `box` at step \d+, stage `\w+`") as e:
        w.step(10_000)
    # the steps before the failure stand, and the message names the one that failed
    assert w.steps < 10_000 and f"at step {w.steps}," in str(e.value)


def test_a_snapshot_of_another_method_is_refused():
    a = cairn.World.from_file("stack10", method="lcp")
    b = cairn.World.from_file("stack10", method="impulse")
    with pytest.raises(cairn.SceneError, match="`lcp` run .* this world runs `impulse`"):
        b.restore(a.snapshot())


def test_not_a_snapshot_is_a_scene_error():
    with pytest.raises(cairn.SceneError, match="not a cairn snapshot"):
        cairn.Snapshot.from_json("{}")


def test_an_output_folder_that_cannot_be_written_is_a_cairn_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(cairn.CairnError, match="cannot write"):
        cairn.run("stack10", duration=0.05, out=blocker / "sub")


def test_messages_are_the_command_lines(tmp_path, repo):
    """The same bad scene through the `cairn` binary (when built) and through Python: one message."""
    exe = repo / "target" / "release" / "cairn"
    if not exe.is_file():
        pytest.skip("target/release/cairn not built (cargo build --release)")
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("friction = 0.5", "frictoin = 0.5"))
    cli = subprocess.run([str(exe), "run", str(bad)], capture_output=True, text=True)
    assert cli.returncode != 0
    with pytest.raises(cairn.SceneError) as e:
        cairn.World.from_file(str(bad))
    assert cli.stderr.strip() == f"error: {e.value}"
    cli = subprocess.run([str(exe), "run", "nowhere"], capture_output=True, text=True)
    with pytest.raises(cairn.SceneError) as e:
        cairn.run("nowhere")
    assert cli.stderr.strip() == f"error: {e.value}"
