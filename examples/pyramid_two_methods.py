"""pyramid20 under two contact methods: the height of the top cube over time.

Run from the repository root after `pip install ./python`:

    python examples/pyramid_two_methods.py                    # lcp and impulse, the scene's 5 s
    python examples/pyramid_two_methods.py --methods lcp abd --duration 1 --out heights.png

With matplotlib installed it plots both curves (a window, or the --out image); without it, it prints a table.
"""

import argparse
import time

import numpy as np

import cairn

# %% Arguments
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--methods", nargs=2, default=["lcp", "impulse"], choices=cairn.METHODS)
parser.add_argument("--duration", type=float, default=None, help="simulated seconds (default: the scene's)")
parser.add_argument("--out", default=None, help="save the plot to this file instead of showing it")
parser.add_argument("--no-plot", action="store_true", help="print the table even when matplotlib is installed")
args = parser.parse_args()

# %% Simulate: one world per method, the top cube's height after every step
curves = {}
for method in args.methods:
    world = cairn.World.from_file("pyramid20", method=method, duration=args.duration)
    top = int(np.argmax(world.positions()[:, 2]))  # the apex cube starts highest
    steps = round(world.duration / world.dt)
    t, z = [world.time], [world.positions()[top, 2]]
    start = time.perf_counter()
    for _ in range(steps):
        world.step()
        t.append(world.time)
        z.append(world.positions()[top, 2])
    wall = time.perf_counter() - start
    curves[method] = (np.array(t), np.array(z))
    print(
        f"{method:>18}: {steps} steps in {wall:.2f} s, top cube `{world.body_names[top]}` "
        f"from {z[0]:.4f} m to {z[-1]:.4f} m (lowest {min(z):.4f} m)"
    )

# %% Plot, or print
try:
    if args.no_plot:
        raise ImportError
    import matplotlib

    if args.out:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print(f"\n{'time (s)':>9} " + " ".join(f"{m:>18}" for m in curves))
    t0 = next(iter(curves.values()))[0]
    for k in range(0, len(t0), -(-len(t0) // 20)):  # about 20 rows
        print(f"{t0[k]:9.3f} " + " ".join(f"{c[1][k]:18.5f}" for c in curves.values()))
else:
    fig, ax = plt.subplots(figsize=(7, 4))
    for method, (t, z) in curves.items():
        ax.plot(t, z, label=method)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("height of the top cube (m)")
    ax.set_title("pyramid20: the apex cube under two contact methods")
    ax.legend()
    fig.tight_layout()
    if args.out:
        fig.savefig(args.out, dpi=120)
        print(f"plot: {args.out}")
    else:
        plt.show()
