"""cairn beside MuJoCo on gymnasium's MJCF files (a benchmark, not a test): steps per second of each cairn
method and of MuJoCo on the same file, zero controls, from the file's initial state.

    python python/bench_mujoco.py                               # every model and method, 1000 steps each
    python python/bench_mujoco.py --models ant,humanoid --methods lcp --steps 5000
    python python/bench_mujoco.py --models path/to/robot.xml   # any MJCF file

Models are gymnasium's MuJoCo assets (gymnasium must be installed) or MJCF paths. Both engines run their own
loop over N steps (`World.step(n)`, `mujoco.mj_step(m, d, nstep=n)`) at the file's time step; a figure is the
best of --repeat rounds, each from the initial state after a 10-step warm-up. A cell that cannot run says why
(the loader refusing the file, a step failing) and the table goes on; a method slower than --max-seconds per
round is timed on the steps it managed (marked `*`). MuJoCo's column shows `—` where the `mujoco` package is
missing. cairn's stepping may use several threads (RAYON_NUM_THREADS; --threads sets it), MuJoCo's uses one.
"""

import argparse
import os
import pathlib
import sys
import time
import warnings
from xml.etree import ElementTree

# the installed cairn, not the source folder beside this script (which lacks the built extension)
if sys.path and pathlib.Path(sys.path[0]).resolve() == pathlib.Path(__file__).resolve().parent:
    del sys.path[0]

MODELS = [
    "inverted_pendulum",
    "inverted_double_pendulum",
    "reacher",
    "hopper",
    "walker2d",
    "half_cheetah",
    "ant",
    "humanoid",
]
WARMUP = 10


def model_path(name):
    """A gymnasium asset's path (by name) or the given file."""
    if name.endswith(".xml"):
        return pathlib.Path(name)
    import gymnasium

    return pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / f"{name}.xml"


def best_rate(step, reset, steps, repeat, max_seconds):
    """Steps per second of step(k) over `steps` steps, best of `repeat` rounds, each from reset() and a warm-up;
    the steps a round managed when it ran out of max_seconds (chunks of a tenth of `steps`), with a flag."""
    chunk = max(1, steps // 10)
    best, cut = 0.0, False
    for _ in range(repeat):
        reset()
        step(WARMUP)
        done, start = 0, time.perf_counter()
        while done < steps:
            k = min(chunk, steps - done)
            step(k)
            done += k
            if time.perf_counter() - start > max_seconds and done < steps:
                cut = True
                break
        best = max(best, done / (time.perf_counter() - start))
    return best, cut


def cairn_rate(cairn, path, method, args):
    """(steps/s, cut short) or the reason it cannot run, as a str."""
    try:
        with warnings.catch_warnings():  # the loader's notes on what it ignores
            warnings.simplefilter("ignore")
            world = cairn.World(path, method=method)
        return best_rate(world.step, world.reset, args.steps, args.repeat, args.max_seconds)
    except cairn.CairnError as e:
        return f"{type(e).__name__}: {reason(e)}"


def mujoco_rate(mujoco, path, args):
    try:
        model = mujoco.MjModel.from_xml_path(str(path))
    except Exception as e:  # MuJoCo's loader raises ValueError
        return f"{type(e).__name__}: {reason(e)}"
    data = mujoco.MjData(model)
    step = lambda k: mujoco.mj_step(model, data, nstep=k)  # noqa: E731
    return best_rate(step, lambda: mujoco.mj_resetData(model, data), args.steps, args.repeat, args.max_seconds)


def timestep(path):
    """The MJCF file's <option timestep> (MuJoCo's default 0.002 without one); both engines step at it."""
    option = ElementTree.parse(path).getroot().find("option")
    return float(option.get("timestep", 0.002)) if option is not None else 0.002


def reason(e, width=110):
    """The first line of an error, without the file's path, cut to `width`."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    text = text.split(".xml", 1)[-1].lstrip(": ") if ".xml" in text else text
    return text if len(text) <= width else text[: width - 1] + "…"


def cell(result):
    if result is None:
        return "—"
    if isinstance(result, str):
        return result
    rate, cut = result
    return f"{rate:,.0f}{'*' if cut else ''}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1000, help="steps per round (default 1000)")
    p.add_argument("--methods", default=None, help="comma-separated cairn methods (default: all)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated gymnasium model names or MJCF paths")
    p.add_argument("--repeat", type=int, default=3, help="rounds; the best counts (default 3)")
    p.add_argument("--max-seconds", type=float, default=5.0, help="cut a round after this long (default 5)")
    p.add_argument("--threads", type=int, default=None, help="RAYON_NUM_THREADS for cairn")
    args = p.parse_args()
    if args.threads is not None:
        os.environ["RAYON_NUM_THREADS"] = str(args.threads)  # before cairn's first step starts its pool
    import cairn

    try:
        import mujoco
    except ImportError:
        mujoco = None
    methods = args.methods.split(",") if args.methods else list(cairn.METHODS)
    print(
        f"cairn {cairn.__version__} (RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'unset')}), "
        + (f"MuJoCo {mujoco.__version__}" if mujoco else "MuJoCo not installed")
        + f"; {args.steps} steps, best of {args.repeat}, zero controls; steps per second"
    )
    head = f"{'model':<26} {'dt':>6}  {'method':<19} {'cairn':>10} {'mujoco':>10} {'cairn/mujoco':>12}"
    print(head)
    print("-" * len(head))
    for name in args.models.split(","):
        path = model_path(name)
        label = path.stem
        if not path.is_file():
            print(f"{label:<26} no such file: {path}")
            continue
        ref = mujoco_rate(mujoco, path, args) if mujoco else None
        dt = f"{timestep(path):g}"
        for method in methods:
            ours = cairn_rate(cairn, path, method, args)
            if isinstance(ours, str):  # the reason takes the rest of the line
                print(f"{label:<26} {dt:>6}  {method:<19} {'':>10} {cell(ref):>10} {'':>12}  {ours}")
                continue
            ratio = f"{ours[0] / ref[0]:.3g}" if isinstance(ref, tuple) else ""
            print(f"{label:<26} {dt:>6}  {method:<19} {cell(ours):>10} {cell(ref):>10} {ratio:>12}")
        if isinstance(ref, str):
            print(f"{label:<26} MuJoCo: {ref}")
    print("* cut short at --max-seconds: the rate over the steps it managed")


if __name__ == "__main__":
    main()
