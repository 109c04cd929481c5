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
