"""The wheel carries the bundled scenes, and the installed package finds its own copy from any folder."""

import os
import subprocess
import sys
import zipfile

import pytest

# run in a fresh interpreter from a folder without scenes, $CAIRN_SCENES unset
FIND_OWN_SCENES = """
import pathlib, warnings, cairn
warnings.simplefilter("ignore")
d = cairn.scenes_dir()
assert d == pathlib.Path(cairn.__file__).parent / "scenes", d
assert "pyramid20" in cairn.scenes() and "stack60" in cairn.scenes()
w = cairn.World.from_file("pyramid20")
w.step()
assert len(w) == 211
for robot in [str(d / "robots" / "arm2_scene.toml"), "robots/arm2_scene", str(d / "robots" / "gimbal.xml")]:
    cairn.World.from_file(robot).step()
print("ok")
"""


def run_python(code, cwd, **env):
    e = {k: v for k, v in os.environ.items() if k != "CAIRN_SCENES"} | env
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=e, capture_output=True, text=True, timeout=120)


def test_the_wheel_carries_every_bundled_scene(repo):
    wheel = os.environ.get("CAIRN_WHEEL")
    if not wheel:
        pytest.skip("no wheel to look into: CAIRN_WHEEL names it (.ci/run sets it)")
    scenes = repo / "scenes"
    files = {"cairn/scenes/" + p.relative_to(scenes).as_posix(): p for p in scenes.rglob("*") if p.is_file()}
    assert "cairn/scenes/pyramid20.toml" in files and "cairn/scenes/robots/meshes/forearm.stl" in files
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert {n for n in names if n.startswith("cairn/scenes/")} == set(files)
        for name, p in files.items():
            assert z.read(name) == p.read_bytes(), name
    assert {"cairn/__init__.py", "cairn/__init__.pyi", "cairn/py.typed"} <= names
    assert any(n.startswith("cairn/_cairn.") for n in names), sorted(names)


def test_the_package_finds_its_own_scenes_from_any_folder(tmp_path):
    r = run_python(FIND_OWN_SCENES, tmp_path)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr


def test_cairn_scenes_still_comes_first(tmp_path, repo):
    (tmp_path / "only.toml").write_bytes((repo / "scenes" / "stack10.toml").read_bytes())
    code = "import cairn; print(cairn.scenes_dir(), sorted(cairn.scenes())); cairn.World('only').step()"
    r = run_python(code, tmp_path, CAIRN_SCENES=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{tmp_path} ['only']\n"
