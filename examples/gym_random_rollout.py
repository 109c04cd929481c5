"""Random-action rollouts of cairn's gymnasium tasks: one env, then a vector env of n worlds in one cairn.Batch.

Run from the repository root after `pip install ./python` and `pip install gymnasium`:

    python examples/gym_random_rollout.py                          # cairn/Hopper-v5, lcp, 200 steps
    python examples/gym_random_rollout.py --env cairn/Ant-v5 --num-envs 16 --method impulse

It prints each finished episode's return and length, and the steps per second of both.
"""

import argparse
import time

import numpy as np

import cairn
import cairn.gym

# %% Arguments
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--env", default="cairn/Hopper-v5", choices=cairn.gym.ENV_IDS)
parser.add_argument("--method", default="lcp", choices=cairn.METHODS)
parser.add_argument("--steps", type=int, default=200, help="env steps (per world for the vector env)")
parser.add_argument("--num-envs", type=int, default=8)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

# %% One env: gymnasium.make under the hood (TimeLimit and the checker's wrappers included)
env = cairn.gym.make(args.env, method=args.method)
env.action_space.seed(args.seed)
obs, info = env.reset(seed=args.seed)
episode_return, length = 0.0, 0
start = time.perf_counter()
for _ in range(args.steps):
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    episode_return += reward
    length += 1
    if terminated or truncated:
        print(f"episode: return {episode_return:9.2f} over {length} steps")
        obs, info = env.reset()
        episode_return, length = 0.0, 0
single_rate = args.steps / (time.perf_counter() - start)
print(f"{args.env} ({args.method}): obs {obs.shape}, {single_rate:.0f} env steps/s on one env")

# %% A vector env: one cairn.Batch, every world stepped per call; next-step autoreset
envs = cairn.gym.make_vec(args.env, num_envs=args.num_envs, method=args.method)
envs.action_space.seed(args.seed)
obs, info = envs.reset(seed=args.seed)
returns, lengths = np.zeros(args.num_envs), np.zeros(args.num_envs, dtype=int)
finished, restarting = [], np.zeros(args.num_envs, dtype=bool)
start = time.perf_counter()
for _ in range(args.steps):
    obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    returns[restarting], lengths[restarting] = 0.0, 0  # this step reset them (reward 0)
    returns += reward
    lengths += ~restarting
    restarting = terminated | truncated
    finished += list(zip(returns[restarting], lengths[restarting]))
vector_rate = args.steps * args.num_envs / (time.perf_counter() - start)
print(
    f"{args.num_envs} worlds: {len(finished)} episodes finished, mean return "
    f"{np.mean([r for r, _ in finished]) if finished else float('nan'):.2f}; {vector_rate:.0f} env steps/s"
)
