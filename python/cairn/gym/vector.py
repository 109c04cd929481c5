"""CairnVectorEnv: a gymnasium VectorEnv over one cairn.Batch of n worlds, stepped together in Rust.

Autoreset is gymnasium 1.x's default, next-step: the step after a sub-env terminates or truncates resets it
(returning its reset observation, reward 0, terminated and truncated False). Each sub-env has its own
generator, seeded as SyncVectorEnv seeds its envs (seed + i), so sub-env i follows `CairnEnv` reset with the
same seed bit for bit.
"""

import numpy as np

from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space
from gymnasium.vector.vector_env import AutoresetMode

from .env import _Core


def _vector_info(info, mask):
    """A dict of (N, ...) arrays as gymnasium's vector infos: each key with its `_key` mask."""
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = _vector_info(value, mask)
        else:
            out[key] = np.asarray(value)
        out[f"_{key}"] = mask.copy()
    return out


def _merge_info(step_info, reset_info, reset):
    """Vector infos of sub-envs that stepped (~reset) and of those that restarted (reset)."""
    out = {}
    for key in list(step_info) + [k for k in reset_info if k not in step_info]:
        a, b = step_info.get(key), reset_info.get(key)
        if isinstance(a, dict) or isinstance(b, dict):
            out[key] = _merge_info(a or {}, b or {}, reset)
            out[f"_{key}"] = (
                np.ones_like(reset)
                if a is not None and b is not None
                else (reset.copy() if a is None else ~reset)
            )
        elif a is None:
            out[key], out[f"_{key}"] = np.asarray(b), reset.copy()
        elif b is None:
            out[key], out[f"_{key}"] = np.asarray(a), ~reset
        else:
            a, b = np.asarray(a), np.asarray(b)
            out[key] = np.where(reset.reshape((-1,) + (1,) * (a.ndim - 1)), b, a)
            out[f"_{key}"] = np.ones_like(reset)
    return out


class CairnVectorEnv(VectorEnv):
    """n copies of a cairn scene as one VectorEnv: actions (n, nu) written to the batch's ctrl, one
    `cairn.Batch.step` per step, observations, rewards and terminations computed for all n at once by the
    same callables as `CairnEnv` (same keywords)."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        scene,
        num_envs=1,
        method="lcp",
        frame_skip=1,
        observation=None,
        reward=None,
        terminated=None,
        max_episode_steps=None,
        render_mode=None,
        reset_noise_scale=0.0,
        *,
        reset_state=None,
        reset_info=None,
        prev_fields=("qpos",),
        ctrl_range=None,
        **world_kwargs,
    ):
        if render_mode is not None:
            raise ValueError(f"cairn's gym environments do not render (render_mode {render_mode!r})")
        self.render_mode = None
        self.num_envs = int(num_envs)
        self.core = _Core(
            scene,
            self.num_envs,
            method=method,
            frame_skip=frame_skip,
            observation=observation,
            reward=reward,
            terminated=terminated,
            reset_noise_scale=reset_noise_scale,
            reset_state=reset_state,
            reset_info=reset_info,
            prev_fields=prev_fields,
            ctrl_range=ctrl_range,
            **world_kwargs,
        )
        self.max_episode_steps = max_episode_steps
        self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.core.dt)))
        low, high = self.core.ctrl_low.astype(np.float32), self.core.ctrl_high.astype(np.float32)
        self.single_action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        dim = self.core.last_obs.shape[1:]
        self.single_observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=dim, dtype=np.float64)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._rngs = [None] * self.num_envs
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)

    @property
    def dt(self):
        return self.core.dt

    @property
    def batch(self):
        """The `cairn.Batch` of num_envs worlds."""
        return self.core.batch

    @property
    def notes(self):
        """The scene loader's notes (what cairn approximates or ignores in the file)."""
        return self.core.notes

    def _rng(self, i):
        if self._rngs[i] is None:
            self._rngs[i], _ = seeding.np_random()
        return self._rngs[i]

    def reset(self, *, seed=None, options=None):
        """Resets every sub-env (or those of `options["reset_mask"]`); `seed` an int (sub-env i gets seed + i)
        or a list of n ints or Nones."""
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        for i, s in enumerate(seeds):
            if s is not None:
                self._rngs[i], _ = seeding.np_random(s)
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
        indices = np.flatnonzero(mask).tolist()
        obs, info = self.core.reset(indices, [self._rng(i) for i in indices])
        self._elapsed[mask] = 0
        self._autoreset[mask] = False
        return obs, _vector_info(info, mask)

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.float64)
        if actions.shape != (self.num_envs, self.core.nu):
            raise ValueError(
                f"Action shape mismatch. Expected {(self.num_envs, self.core.nu)}, found {actions.shape}"
            )
        obs, reward, term, info = self.core.step(actions)
        reward, term = reward.copy(), term.copy()
        self._elapsed += 1
        trunc = np.zeros(self.num_envs, dtype=bool)
        if self.max_episode_steps is not None:
            trunc = self._elapsed >= self.max_episode_steps
        done = self._autoreset
        if done.any():
            # sub-envs that ended last step: their step above is discarded, they restart
            indices = np.flatnonzero(done).tolist()
            reset_obs, reset_info = self.core.reset(indices, [self._rng(i) for i in indices])
            obs = np.where(done[:, None], reset_obs, obs)
            reward[done], term[done], trunc[done] = 0.0, False, False
            self._elapsed[done] = 0
            info = _merge_info(info, reset_info, done)
        else:
            info = _vector_info(info, np.ones(self.num_envs, dtype=bool))
        self._autoreset = term | trunc
        return obs, reward, term, trunc, info

    def render(self):
        return None

    def close_extras(self, **kwargs):
        pass
