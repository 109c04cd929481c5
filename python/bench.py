"""Overheads of the Python binding (a benchmark, not a test): per-step cost of `World.step()` called from
Python over the Rust loop's step, and the cost of reading the state of 1000 bodies.

    python python/bench.py            # from the repository root, after `pip install ./python`

Each figure is the best of several rounds (the least disturbed by other processes).
"""

import statistics
import time

import cairn

ONE_BALL = """
format = 1
[world]
gravity = [0.0, 0.0, -9.81]
dt = 0.001
duration = 1.0
method = "lcp"
[[material]]
name = "default"
density = 1000.0
friction = 0.5
restitution = 0.0
[[body]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
position = [0.0, 0.0, 1000.0]
"""


def best(fn, rounds):
    return min(fn() for _ in range(rounds))


def step_overhead(make, steps, rounds):
    """Per step: Python calls of step() minus one Rust loop of step(n), on fresh worlds of the same scene."""

    def rust():
        w = make()
        t = time.perf_counter()
        w.step(steps)
        return (time.perf_counter() - t) / steps

    def python():
        w = make()
        step = w.step
        t = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - t) / steps

    def empty_loop():
        t = time.perf_counter()
        for _ in range(steps):
            pass
        return (time.perf_counter() - t) / steps

    r = [best(rust, 1) for _ in range(rounds)]
    p = [best(python, 1) for _ in range(rounds)]
    return min(r), min(p), best(empty_loop, rounds)


def per_call(fn, calls, rounds):
    def once():
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t) / calls

    return best(once, rounds)


def main():
    us = 1e6
    print("step() overhead over the Rust step (best of rounds):")
    for name, make, steps in [
        ("one free ball, lcp", lambda: cairn.World.from_string(ONE_BALL, name="ball"), 20000),
        ("stack10, lcp (settled)", lambda: settled("stack10", "lcp"), 2000),
        ("stack10, impulse (settled)", lambda: settled("stack10", "impulse"), 2000),
    ]:
        rust, py, loop = step_overhead(make, steps, rounds=7)
        print(
            f"  {name:<28} Rust step {rust * us:9.3f} µs   Python step() {py * us:9.3f} µs   "
            f"overhead {(py - rust) * us:6.3f} µs (of which the for loop {loop * us:.3f} µs)"
        )

    w = cairn.World.from_file("balls1000")
    w.step(1)
    n = len(w)
    print(f"state reads, balls1000 ({n} bodies), best of rounds:")
    for name, fn in [
        ("poses()", w.poses),
        ("positions()", w.positions),
        ("quaternions()", w.quaternions),
        ("velocities()", w.velocities),
        ("angular_velocities()", w.angular_velocities),
        ("last_stats", lambda: w.last_stats),
        ("time", lambda: w.time),
    ]:
        print(f"  {name:<22} {per_call(fn, 2000, 7) * us:8.3f} µs")
    samples = [per_call(w.poses, 200, 1) * us for _ in range(25)]
    print(f"  poses() over 25 rounds: median {statistics.median(samples):.3f} µs, best {min(samples):.3f} µs")


_settled = {}


def settled(scene, method):
    """A world of the scene after it has come to rest (restored from a snapshot taken once)."""
    key = (scene, method)
    w = cairn.World.from_file(scene, method=method)
    if key not in _settled:
        w.step(300)
        _settled[key] = w.snapshot()
    w.restore(_settled[key])
    return w


if __name__ == "__main__":
    main()
