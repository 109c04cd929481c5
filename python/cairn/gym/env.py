"""CairnEnv: a gymnasium Env over any cairn scene, and the batched core it shares with the vector env.

Both the single env and the vector env hold a `_Core`: one `cairn.Batch` (of 1 or of n worlds) and the
observation, reward and termination callables, which take a `BatchView` (arrays with a leading axis N) and
return arrays with that leading axis, so one callable serves both.
"""

import re
import warnings

import numpy as np

import gymnasium
from gymnasium import spaces

import cairn

# Batch array readers a view exposes lazily (name -> Batch method); `ctrl` is a property
_METHODS = (
    "qpos",
    "qvel",
    "sensordata",
    "time",
    "positions",
    "quaternions",
    "centers_of_mass",
    "velocities",
    "angular_velocities",
    "body_inertias",
    "contact_wrenches",
    "actuator_forces",
)


class BatchView:
    """The state of a batch after a step or reset, as arrays with a leading axis N (read once, on first use).

    Attributes: ``qpos`` (N, nq), ``qvel`` (N, nv), ``sensordata``, ``ctrl``, ``time``, ``positions``,
    ``quaternions``, ``centers_of_mass``, ``velocities``, ``angular_velocities``, ``body_inertias``,
    ``contact_wrenches``, ``actuator_forces`` (as `cairn.Batch` returns them), ``body_masses`` (bodies,),
    ``action`` (N, nu) float64 (the step's actions; zeros after a reset), ``prev`` (the view before the
    step, with the fields in the env's ``prev_fields`` read; None after a reset), ``init_qpos``,
    ``init_qvel`` (the scene's start state), ``dt`` (the env's step: world dt × frame_skip), ``n``,
    ``body_index(name)``, ``cache`` (a dict for derived quantities). Callables may read any of them.
    """

    def __init__(self, core, action=None, prev=None):
        self.core = core
        self.n = core.n
        self.action = np.zeros((core.n, core.nu)) if action is None else action
        self.prev = prev
        self.cache = {}

    def __getattr__(self, name):
        # only called when `name` is not cached in __dict__ yet
        if name in _METHODS:
            value = getattr(self.core.batch, name)()
        elif name == "ctrl":
            value = np.array(self.core.batch.ctrl, dtype=np.float64)
        elif name in ("body_masses", "init_qpos", "init_qvel", "dt", "batch"):
            return getattr(self.core, name)
        else:
            raise AttributeError(name)
        self.__dict__[name] = value
        return value

    def body_index(self, name):
        return self.core.body_names.index(name)


def default_observation(view):
    """concat(qpos, qvel, sensordata)."""
    return np.concatenate([view.qpos, view.qvel, view.sensordata], axis=1)


def _as_reward(result, n):
    """A reward callable's result -> ((N,) float64, dict of (N,) arrays)."""
    info = {}
    if isinstance(result, tuple):
        result, info = result
    return np.broadcast_to(np.asarray(result, dtype=np.float64), (n,)), info


class _Core:
    """One cairn.Batch of n worlds and the task's callables: steps, resets and reads them as arrays."""

    def __init__(
        self,
        scene,
        n,
        method="lcp",
        frame_skip=1,
        observation=None,
        reward=None,
        terminated=None,
        reset_noise_scale=0.0,
        reset_state=None,
        reset_info=None,
        prev_fields=("qpos",),
        ctrl_range=None,
        **world_kwargs,
    ):
        if int(frame_skip) < 1:
            raise ValueError(f"frame_skip must be at least 1, not {frame_skip}")
        with warnings.catch_warnings(record=True) as caught:
            # the loader's notes (what cairn ignores in a file) are kept on `notes`, not warned on every make()
            warnings.simplefilter("always", UserWarning)
            if isinstance(scene, cairn.World):
                self.batch = cairn.Batch(scene, n)
            else:
                self.batch = cairn.Batch(scene, n, method=method, **world_kwargs)
        self.notes = [str(w.message) for w in caught]
        self.scene = scene
        self.n = n
        self.method = method
        self.frame_skip = int(frame_skip)
        self.nq, self.nv, self.nu = self.batch.nq, self.batch.nv, self.batch.nu
        self.body_names = list(self.batch.body_names)
        self.body_masses = np.asarray(self.batch.body_masses(), dtype=np.float64)
        self.dt = self.batch.dt * self.frame_skip
        self.init_qpos = self.batch.qpos()[0].copy()
        self.init_qvel = self.batch.qvel()[0].copy()
        self.observation = observation or default_observation
        self.reward = reward
        self.terminated = terminated
        self.reset_noise_scale = float(reset_noise_scale)
        self.reset_state = reset_state or uniform_reset_noise
        self.reset_info = reset_info
        self.prev_fields = tuple(prev_fields)
        world = self.batch.world(0)  # a copy, for what the batch does not expose
        self.body_parents = list(world.body_parents)
        self.ctrl_low, self.ctrl_high = _ctrl_bounds(world, ctrl_range)
        self.refresh()

    def refresh(self):
        """Forgets what was read from the batch (after the batch was changed from outside)."""
        self.view = BatchView(self)
        self.last_obs = np.asarray(self.observation(self.view), dtype=np.float64)

    def step(self, action):
        """Steps every world frame_skip steps with `action` (N, nu) as ctrl; returns obs, reward, terminated,
        info (dict of (N,) arrays)."""
        prev = self.view
        for name in self.prev_fields:
            getattr(prev, name)  # read before the step moves the batch
        prev.prev = None  # no chain of old views
        try:
            self.batch.step(ctrl=action, n=self.frame_skip)
            failed = None
        except cairn.SimulationError as e:
            failed = self._failed(e)
        view = BatchView(self, action=action, prev=prev)
        self.view = view
        with np.errstate(all="ignore" if failed is not None else "warn"):
            obs = np.asarray(self.observation(view), dtype=np.float64)
            if self.reward is None:
                reward, info = np.zeros(self.n), {}
            else:
                reward, info = _as_reward(self.reward(view), self.n)
            if self.terminated is None:
                term = np.zeros(self.n, dtype=bool)
            else:
                term = np.broadcast_to(np.asarray(self.terminated(view), dtype=bool), (self.n,))
        if failed is not None:
            # a world whose step failed ends its episode: its last observation again, reward 0, terminated
            obs = np.where(failed[:, None], self.last_obs, obs)
            reward = np.where(failed, 0.0, reward)
            term = term | failed
            info = dict(info, simulation_error=failed)
        self.last_obs = obs
        return obs, reward, term, info

    def _failed(self, error):
        """The worlds a SimulationError stopped: the one it names, and any whose state is not finite."""
        failed = ~(np.isfinite(self.batch.qpos()).all(axis=1) & np.isfinite(self.batch.qvel()).all(axis=1))
        named = re.findall(r"world (\d+)", str(error))
        failed[[int(i) for i in named if int(i) < self.n]] = True
        if self.n == 1:
            failed[0] = True
        if not failed.any():
            raise error
        return failed

    def reset(self, indices, rngs):
        """Resets worlds `indices` (a list) to the start state plus noise drawn from `rngs` (one Generator per
        index, in order); returns the observations and reset info of every world (rows of those not reset are
        their current ones)."""
        self.batch.reset(indices)
        qpos, qvel = self.reset_state(self, rngs)
        self.batch.set_qpos(np.asarray(qpos, dtype=np.float64), indices)
        self.batch.set_qvel(np.asarray(qvel, dtype=np.float64), indices)
        self.view = view = BatchView(self)
        obs = np.asarray(self.observation(view), dtype=np.float64)
        info = self.reset_info(view) if self.reset_info is not None else {}
        self.last_obs = obs
        return obs, info


def uniform_reset_noise(core, rngs):
    """init_qpos + U(-s, s), init_qvel + U(-s, s), s the reset noise scale (gymnasium's Hopper-v5 and others):
    one row per generator, qpos drawn before qvel as gymnasium draws them."""
    s = core.reset_noise_scale
    qpos = np.empty((len(rngs), core.nq))
    qvel = np.empty((len(rngs), core.nv))
    for k, rng in enumerate(rngs):
        qpos[k] = core.init_qpos + rng.uniform(low=-s, high=s, size=core.nq)
        qvel[k] = core.init_qvel + rng.uniform(low=-s, high=s, size=core.nv)
    return qpos, qvel


def _ctrl_bounds(world, ctrl_range):
    """(low, high) of each actuator's control: `ctrl_range` if given, else the world's ctrl ranges (±inf where a
    control is unlimited)."""
    r = np.asarray(world.ctrl_ranges() if ctrl_range is None else ctrl_range, dtype=np.float64)
    r = r.reshape(len(world.actuator_names), 2)
    return r[:, 0].copy(), r[:, 1].copy()


def _scalar_info(info, i=0):
    """Row i of a dict of (N,) arrays, as numpy scalars (nested dicts kept)."""
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = _scalar_info(value, i)
        else:
            a = np.asarray(value)
            out[key] = a[i] if a.ndim else a[()]
    return out


class CairnEnv(gymnasium.Env):
    """A gymnasium Env over a cairn scene (a file, a bundled scene's name, or a `cairn.World`).

    Actions are written to the world's ``ctrl`` (float32 Box from the actuators' ctrlrange, unbounded where a
    control has none) and the world steps ``frame_skip`` times per env step. ``observation(view)``,
    ``reward(view)`` (an (N,) array, or ``(reward, info)`` with info a dict of (N,) arrays) and
    ``terminated(view)`` take a `BatchView` of N = 1 worlds; the default observation is
    concat(qpos, qvel, sensordata), the default reward 0 and never terminated. ``reset`` puts the world at the
    scene's start state plus U(-s, s) noise on qpos and qvel (s = ``reset_noise_scale``) drawn from
    ``self.np_random``.
    ``max_episode_steps`` truncates here (``gymnasium.make`` adds its own TimeLimit instead).
    Keyword-only hooks: ``reset_state(core, rngs)`` -> (qpos, qvel) rows for the worlds being reset (one
    Generator each), ``reset_info(view)`` -> dict of (N,) arrays, ``prev_fields`` (view fields read before
    each step, for ``view.prev``), ``ctrl_range`` ((nu, 2), overriding the scene's).
    ``world_kwargs`` (``dt``, ``overrides``) go to `cairn.Batch`.
    """

    metadata = {"render_modes": [], "render_fps": None}

    def __init__(
        self,
        scene,
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
        self.core = _Core(
            scene,
            1,
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
        self.frame_skip = self.core.frame_skip
        self.max_episode_steps = max_episode_steps
        self.metadata = dict(self.metadata, render_fps=int(np.round(1.0 / self.core.dt)))
        low, high = self.core.ctrl_low, self.core.ctrl_high
        self.action_space = spaces.Box(
            low=low.astype(np.float32), high=high.astype(np.float32), dtype=np.float32
        )
        obs = self.core.last_obs
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=obs.shape[1:], dtype=np.float64)
        self._elapsed = 0

    @property
    def dt(self):
        """Simulated seconds per env step (world dt × frame_skip)."""
        return self.core.dt

    @property
    def batch(self):
        """The `cairn.Batch` of one world behind the env."""
        return self.core.batch

    @property
    def notes(self):
        """The scene loader's notes (what cairn approximates or ignores in the file)."""
        return self.core.notes

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.core.reset([0], [self.np_random])
        self._elapsed = 0
        return obs[0], _scalar_info(info)

    def step(self, action):
        a = np.asarray(action, dtype=np.float64)
        if a.shape != (self.core.nu,):
            raise ValueError(f"Action dimension mismatch. Expected {(self.core.nu,)}, found {a.shape}")
        obs, reward, term, info = self.core.step(a.reshape(1, -1))
        self._elapsed += 1
        truncated = self.max_episode_steps is not None and self._elapsed >= self.max_episode_steps
        return obs[0], float(reward[0]), bool(term[0]), bool(truncated), _scalar_info(info)

    def render(self):
        return None

    def close(self):
        pass
