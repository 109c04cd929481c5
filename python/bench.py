"""Overheads of the Python binding (a benchmark, not a test): per-step cost of `World.step()` called from
Python over the Rust loop's step, and the cost of reading the state of 1000 bodies.

    python python/bench.py            # from the repository root, after `pip install ./python`

Each figure is the best of several rounds (the least disturbed by other processes). `poses()` and
`positions()` compute each body's [R | p] with the engine's `State::pose_3x4` (a quaternion to a matrix and the
frame's origin); `centers_of_mass()` and `quaternions()` only copy, so they show what the binding itself costs.
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


def step_overhead(world, steps, rounds):
    """Per step, over `rounds` interleaved pairs from the same state (restored from a snapshot): the Rust loop
    `step(steps)` and `steps` Python calls of `step()`. Returns the best Rust and Python times per step, the
    median of the pairs' differences, and the cost of an empty Python loop per iteration."""
    start = world.snapshot()
    step = world.step
    rust, python, diff = [], [], []
    for _ in range(rounds):
        world.restore(start)
        t = time.perf_counter()
        step(steps)
        r = (time.perf_counter() - t) / steps
        world.restore(start)
        t = time.perf_counter()
        for _ in range(steps):
            step()
        p = (time.perf_counter() - t) / steps
        rust.append(r)
        python.append(p)
        diff.append(p - r)

    def empty_loop():
        t = time.perf_counter()
        for _ in range(steps):
            pass
        return (time.perf_counter() - t) / steps

    return min(rust), min(python), statistics.median(diff), best(empty_loop, rounds)


def per_call(fn, calls, rounds):
    def once():
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t) / calls

    return best(once, rounds)


def main():
    us = 1e6
    print("step() called from Python over the Rust loop's step (best of rounds; overhead: median of pairs):")
    for name, world, steps, rounds in [
        ("one free ball, lcp", cairn.World.from_string(ONE_BALL, name="ball"), 20000, 9),
        ("stack10, lcp (settled)", settled("stack10", "lcp"), 500, 31),
        ("stack10, impulse (settled)", settled("stack10", "impulse"), 200, 31),
    ]:
        rust, py, over, loop = step_overhead(world, steps, rounds)
        print(
            f"  {name:<28} Rust step {rust * us:9.3f} µs   Python step() {py * us:9.3f} µs   "
            f"overhead {over * us:7.3f} µs (the bare for loop: {loop * us:.3f} µs)"
        )

    w = cairn.World.from_file("balls1000")
    w.step(1)
    n = len(w)
    print(f"state reads, balls1000 ({n} bodies), best of rounds:")
    for name, fn in [
        ("poses()", w.poses),
        ("positions()", w.positions),
        ("centers_of_mass()", w.centers_of_mass),
        ("quaternions()", w.quaternions),
        ("velocities()", w.velocities),
        ("angular_velocities()", w.angular_velocities),
        ("last_stats", lambda: w.last_stats),
        ("time", lambda: w.time),
    ]:
        print(f"  {name:<22} {per_call(fn, 2000, 7) * us:8.3f} µs")
    samples = [per_call(w.poses, 200, 1) * us for _ in range(25)]
    print(f"  poses() over 25 rounds: median {statistics.median(samples):.3f} µs, best {min(samples):.3f} µs")


def settled(scene, method):
    """A world of the scene after 300 steps, when the stack has come to rest."""
    w = cairn.World.from_file(scene, method=method)
    w.step(300)
    return w


if __name__ == "__main__":
    main()
