"""The example script runs (briefly, printing its table)."""

import subprocess
import sys


def test_pyramid_two_methods_example_runs(repo):
    script = repo / "examples" / "pyramid_two_methods.py"
    r = subprocess.run(
        [sys.executable, str(script), "--duration", "0.1", "--no-plot"], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert "lcp: 6 steps" in r.stdout and "impulse: 6 steps" in r.stdout
    assert "top cube `row19_0_0_0`" in r.stdout
    rows = [l for l in r.stdout.splitlines() if l.strip().startswith("0.")]
    assert len(rows) == 7  # t = 0 and the six steps


def test_the_readme_python_example_is_quickstart_and_runs(repo, tmp_path):
    block = (repo / "README.md").read_text().split("```python\n", 1)[1].split("```", 1)[0]
    script = (repo / "examples" / "quickstart.py").read_text()
    assert script.endswith('"""\n\n' + block), "README.md's Python example differs from examples/quickstart.py"
    script_path = str(repo / "examples" / "quickstart.py")
    r = subprocess.run([sys.executable, script_path], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("t = 1.00 s, 211 bodies, ")
