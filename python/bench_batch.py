"""`cairn.Batch` at scale (a benchmark, not a test): the parallel speed-up of a batch of gymnasium's Ant on the
machine's cores against one thread, and the Python overhead per world and step of `Batch.step`.

    python python/bench_batch.py [--worlds 64] [--steps 200] [--model PATH]

The thread counts run in separate processes (rayon's pool is sized once per process, by `RAYON_NUM_THREADS`), in
one invocation, so that the ratio is paired. The overhead is the time of one `Batch.step(ctrl)` call beyond the
Rust stepping it does, measured on a world that costs almost nothing to step (one ball in free fall), divided by
the number of worlds: the per-world cost of taking the (n, nu) control array and releasing the interpreter's
lock. Each figure is the best of several rounds.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

# the installed cairn, not the source folder beside this script (which lacks the built extension)
if sys.path and pathlib.Path(sys.path[0]).resolve() == pathlib.Path(__file__).resolve().parent:
    del sys.path[0]

ONE_BALL = """format = 1
[world]
dt = 0.001
method = "lcp"
[[material]]
name = "default"
density = 1000.0
friction = 0.5
[[body]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
position = [0.0, 0.0, 1.0]
"""


def ant_path():
    import gymnasium

    return str(pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / "ant.xml")


def rate(model, worlds, steps, rounds=3):
    """Steps per second of the whole batch (worlds × steps / s), best of `rounds`, random controls."""
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    import cairn

    batch = cairn.Batch(model, worlds, "lcp")
    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, size=(steps, worlds, batch.nu))
    best = float("inf")
    for _ in range(rounds):
        batch.reset()
        t = time.perf_counter()
        for k in range(steps):
            batch.step(u[k])
        best = min(best, time.perf_counter() - t)
    return worlds * steps / best


def overhead(worlds, calls=2000, rounds=5):
    """Seconds per world of one `Batch.step(ctrl)` call beyond its Rust stepping."""
    import tempfile

    import numpy as np

    import cairn

    path = pathlib.Path(tempfile.mkdtemp()) / "ball.toml"
    path.write_text(ONE_BALL)
    batch = cairn.Batch(str(path), worlds)
    ctrl = np.zeros((worlds, 0))
    per_call, per_step = float("inf"), float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            batch.step(ctrl)
        per_call = min(per_call, (time.perf_counter() - t) / calls)
        t = time.perf_counter()
        batch.step(ctrl, n=calls)
        per_step = min(per_step, (time.perf_counter() - t) / calls)
    return (per_call - per_step) / worlds, per_step / worlds


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--model", default=None, help="a scene or robot file (default: gymnasium's ant.xml)")
    p.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    model = args.model or ant_path()
    if args.child:
        print(json.dumps(rate(model, args.worlds, args.steps)))
        return 0
    rates = {}
    for threads in (1, os.cpu_count() or 1):
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
        cmd = [sys.executable, __file__, "--child", "1", "--worlds", str(args.worlds), "--steps", str(args.steps), "--model", model]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
        rates[threads] = json.loads(out.strip().splitlines()[-1])
    one = rates[1]
    for threads, r in rates.items():
        print(f"{pathlib.Path(model).name}: {args.worlds} worlds, {threads} thread(s): {r:,.0f} world-steps/s ({r / one:.2f}x one thread)")
    for n in (64, 1024):
        o, s = overhead(n)
        print(f"Batch.step overhead over its Rust stepping, {n} worlds: {o * 1e6:.3f} µs per world and call (a free-falling ball's step: {s * 1e6:.3f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
