"""RL-style rollouts on Ray actors, each actor holding a `cairn.Batch` of worlds stepped together in Rust.

Run from the repository root after `pip install ./python` (and `pip install ray` for the actors):

    python examples/ray_rollouts.py                              # 4 actors × 16 ants × 500 steps on Ray
    python examples/ray_rollouts.py --actors 2 --envs 8 --steps 100 --scene arm_sine
    python examples/ray_rollouts.py --local                      # no Ray: the same actors, one after another
    python examples/ray_rollouts.py --address auto               # an existing Ray cluster

The scene is gymnasium's ant.xml when gymnasium is installed, else cairn's scenes/robots/quadruped.xml; any
scene with actuators does (--scene: a bundled name or a path). The driver builds one Batch and sends a copy to
each actor: batches pickle as their scene plus the state, so each actor gets its own worlds, at the same start
state, wherever it runs (a scene given by path must exist there too). Every step, each actor writes random
actions, uniform in ±--action-scale and seeded per actor, into its batch's (n, nu) controls, steps all its
worlds in one call (rayon threads inside, the interpreter's lock released), and scores each world the way
gymnasium's locomotion tasks do: forward speed of the centre of mass minus 0.5 |u|². It prints the mean return
per actor and the world-steps per second overall. Without Ray installed, or with --local, the actors are plain
objects in this process (same seeds, same returns).
"""

import argparse
import os
import pathlib
import pickle
import time

import numpy as np

import cairn

REPO = pathlib.Path(__file__).resolve().parents[1]


class RolloutWorker:
    """Holds a Batch; `rollout` runs random-action episodes in all its worlds: their returns, the seconds it
    took, the steps it made and why it stopped early (None when it did not)."""

    def __init__(self, batch, seed):
        self.batch = batch
        self.rng = np.random.default_rng(seed)
        masses = batch.body_masses()
        self.masses = np.where(np.isfinite(masses), masses, 0.0)  # static bodies do not count

    def com_x(self):
        """(n,): x of each world's centre of mass."""
        return self.batch.centers_of_mass()[:, :, 0] @ self.masses / self.masses.sum()

    def rollout(self, steps, scale):
        b = self.batch
        b.reset()
        returns = np.zeros(len(b))
        x = self.com_x()
        start = time.perf_counter()
        for t in range(steps):
            u = self.rng.uniform(-scale, scale, (len(b), b.nu))
            try:
                b.step(u)  # all worlds, one call
            except cairn.SimulationError as e:  # a world diverged: the rollout ends there, said so
                return returns, time.perf_counter() - start, t, f"stopped at step {t}: {e}"
            x_new = self.com_x()
            returns += (x_new - x) / b.dt - 0.5 * np.sum(u * u, axis=1)
            x = x_new
        return returns, time.perf_counter() - start, steps, None


def default_scene():
    try:
        import gymnasium
    except ImportError:
        return str(REPO / "scenes" / "robots" / "quadruped.xml")
    return str(pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / "ant.xml")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scene", default=None, help="bundled name or path (default: gymnasium's ant.xml)")
    p.add_argument("--method", default="lcp", choices=cairn.METHODS)
    p.add_argument("--actors", type=int, default=4)
    p.add_argument("--envs", type=int, default=16, help="worlds per actor's Batch")
    p.add_argument("--steps", type=int, default=500, help="steps per rollout")
    p.add_argument("--action-scale", type=float, default=1.0, help="actions uniform in ±this")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="rayon threads per actor (RAYON_NUM_THREADS)")
    p.add_argument("--local", action="store_true", help="run the actors in this process, without Ray")
    p.add_argument("--address", default=None, help="a Ray cluster's address (default: start a local one)")
    args = p.parse_args()

    try:
        import ray
    except ImportError:
        ray = None
    local = args.local or ray is None
    scene = args.scene or default_scene()
    batch = cairn.Batch(scene, args.envs, method=args.method)
    where = "this process" if local else "Ray actors"
    print(f"{pathlib.Path(scene).stem} ({args.method}, nu = {batch.nu}, dt = {batch.dt:g}) on {where}")
    print(f"{args.actors} actors × {args.envs} worlds × {args.steps} steps")

    start = time.perf_counter()
    if local:
        os.environ.setdefault("RAYON_NUM_THREADS", str(args.threads))
        # a pickled copy each, exactly what travels to a Ray actor
        workers = [RolloutWorker(pickle.loads(pickle.dumps(batch)), args.seed + i) for i in range(args.actors)]
        results = [w.rollout(args.steps, args.action_scale) for w in workers]
    else:
        ray.init(address=args.address)
        # the loader's notes (warnings) were shown here already; the actors' copies need not repeat them
        env = {"env_vars": {"RAYON_NUM_THREADS": str(args.threads), "PYTHONWARNINGS": "ignore::UserWarning"}}
        Actor = ray.remote(num_cpus=args.threads, runtime_env=env)(RolloutWorker)
        actors = [Actor.remote(batch, args.seed + i) for i in range(args.actors)]  # the batch pickles to each
        results = ray.get([a.rollout.remote(args.steps, args.action_scale) for a in actors])
    wall = time.perf_counter() - start

    for i, (returns, seconds, steps, error) in enumerate(results):
        line = f"actor {i}: {len(returns)} rollouts of {steps} steps in {seconds:.2f} s"
        print(f"{line}, mean return {returns.mean():.4f}")
        if error:
            print(f"  actor {i} {error}")
    total = sum(len(r[0]) * r[2] for r in results)
    stepping = sum(r[1] for r in results) if local else max(r[1] for r in results)  # actors in turn, or at once
    print(f"{total} world-steps: {total / stepping:,.0f} per second stepping, {wall:.2f} s in all (start-up included)")
    if not local:
        ray.shutdown()


if __name__ == "__main__":
    main()
