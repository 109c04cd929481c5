"""gymnasium's MuJoCo v5 tasks on cairn, on the MJCF files gymnasium installs: the observations, rewards,
terminations, frame skips, reset noise, default keywords and info keys of gymnasium's v5 sources, computed for
a batch (leading axis N) so the single env and the vector env share them.

Each task is a `Task` (its keywords as gymnasium's v5 env takes them, plus `xml_file`), turned into an env by
`<Name>Env(method="lcp", **kw)` and a vector env by `<Name>VectorEnv(num_envs, method="lcp", **kw)`.
"""

import os

import numpy as np

import gymnasium

from . import mjcf, quantities
from .env import CairnEnv
from .vector import CairnVectorEnv

ASSETS = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


def _sumsq(x):
    """Row-wise sum of squares of an (N, k) array, added column by column (the same bits for any N)."""
    x = x.reshape(x.shape[0], -1)
    acc = x[:, 0] * x[:, 0]
    for k in range(1, x.shape[1]):
        acc = acc + x[:, k] * x[:, k]
    return acc


def _within(x, low, high):
    return (low < x) & (x < high)


class Task:
    """A task's callables over a `BatchView`; subclasses define observation, reward, terminated (N rows)."""

    xml = None
    frame_skip = 1
    reset_noise_scale = 0.0
    prev_fields = ("qpos",)

    def __init__(
        self, xml_file=None, frame_skip=None, reset_noise_scale=None, default_camera_config=None, **world_kwargs
    ):
        path = xml_file or self.xml
        self.xml_file = path if os.path.isabs(path) or os.path.exists(path) else os.path.join(ASSETS, path)
        if frame_skip is not None:
            self.frame_skip = frame_skip
        if reset_noise_scale is not None:
            self.reset_noise_scale = reset_noise_scale
        self.world_kwargs = world_kwargs
        self.model = mjcf.Model(self.xml_file)
        self._mb = None

    def bodies(self, view):
        """MuJoCo's bodies mapped onto the core's (built on first use)."""
        if self._mb is None:
            self._mb = quantities.MujocoBodies(self.model, view.core)
        return self._mb

    def terminated(self, view):
        return np.zeros(view.n, dtype=bool)

    def reset_info(self, view):
        return {}

    def reset_state(self, core, rngs):
        """init + U(-s, s) on qpos and qvel (Hopper, Walker2d, Humanoid, InvertedPendulum)."""
        s = self.reset_noise_scale
        qpos, qvel = np.empty((len(rngs), core.nq)), np.empty((len(rngs), core.nv))
        for k, rng in enumerate(rngs):
            qpos[k] = core.init_qpos + rng.uniform(low=-s, high=s, size=core.nq)
            qvel[k] = core.init_qvel + rng.uniform(low=-s, high=s, size=core.nv)
        return qpos, qvel

    def spec(self):
        """The keywords of CairnEnv / CairnVectorEnv for this task."""
        return dict(
            scene=self.xml_file,
            frame_skip=self.frame_skip,
            observation=self.observation,
            reward=self.reward,
            terminated=self.terminated,
            reset_noise_scale=self.reset_noise_scale,
            reset_state=self.reset_state,
            reset_info=self.reset_info,
            prev_fields=self.prev_fields,
            **self.world_kwargs,
        )


class _NormalQvel:
    """init + U(-s, s) on qpos, init + s·N(0, 1) on qvel (HalfCheetah, Ant, InvertedDoublePendulum)."""

    def reset_state(self, core, rngs):
        s = self.reset_noise_scale
        qpos, qvel = np.empty((len(rngs), core.nq)), np.empty((len(rngs), core.nv))
        for k, rng in enumerate(rngs):
            qpos[k] = core.init_qpos + rng.uniform(low=-s, high=s, size=core.nq)
            qvel[k] = core.init_qvel + s * rng.standard_normal(core.nv)
        return qpos, qvel


class InvertedPendulum(Task):
    xml = "inverted_pendulum.xml"
    frame_skip = 2
    reset_noise_scale = 0.01

    def observation(self, view):
        return np.concatenate([view.qpos, view.qvel], axis=1)

    def terminated(self, view):
        obs = self.observation(view)
        return ~np.isfinite(obs).all(axis=1) | (np.abs(obs[:, 1]) > 0.2)

    def reward(self, view):
        r = (~self.terminated(view)).astype(np.float64)
        return r, {"reward_survive": r}


class InvertedDoublePendulum(_NormalQvel, Task):
    xml = "inverted_double_pendulum.xml"
    frame_skip = 5
    reset_noise_scale = 0.1

    def __init__(self, healthy_reward=10.0, **kw):
        super().__init__(**kw)
        self.healthy_reward = healthy_reward

    def observation(self, view):
        q, v = view.qpos, view.qvel
        # cairn's equivalent of qfrc_constraint[0] (the cart's limit force): not available, 0; MuJoCo's is
        # nonzero only while the cart presses on its rail's ends
        qfrc_constraint = np.zeros((view.n, 1))
        return np.concatenate(
            [q[:, :1], np.sin(q[:, 1:]), np.cos(q[:, 1:]), np.clip(v, -10, 10), qfrc_constraint], axis=1
        )

    def terminated(self, view):
        return quantities.site_xpos(view, self.bodies(view), "tip")[:, 2] <= 1

    def reward(self, view):
        tip = quantities.site_xpos(view, self.bodies(view), "tip")
        x, y = tip[:, 0], tip[:, 2]
        v1, v2 = view.qvel[:, 1], view.qvel[:, 2]
        dist_penalty = 0.01 * x**2 + (y - 2) ** 2
        vel_penalty = 1e-3 * v1**2 + 5e-3 * v2**2
        alive = self.healthy_reward * (~(y <= 1)).astype(np.float64)
        info = {"reward_survive": alive, "distance_penalty": -dist_penalty, "velocity_penalty": -vel_penalty}
        return alive - dist_penalty - vel_penalty, info


class Reacher(Task):
    xml = "reacher.xml"
    frame_skip = 2

    def __init__(self, reward_dist_weight=1, reward_control_weight=1, **kw):
        super().__init__(**kw)
        self.reward_dist_weight = reward_dist_weight
        self.reward_control_weight = reward_control_weight

    def _vec(self, view):
        mb = self.bodies(view)
        names = mb.model.names
        return quantities.body_xpos(view, mb, names.index("fingertip")) - quantities.body_xpos(
            view, mb, names.index("target")
        )

    def observation(self, view):
        q = view.qpos
        theta = q[:, :2]
        return np.concatenate(
            [np.cos(theta), np.sin(theta), q[:, 2:], view.qvel[:, :2], self._vec(view)[:, :2]], axis=1
        )

    def reward(self, view):
        reward_dist = -np.sqrt(_sumsq(self._vec(view))) * self.reward_dist_weight
        reward_ctrl = -_sumsq(view.action) * self.reward_control_weight
        return reward_dist + reward_ctrl, {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl}

    def reset_state(self, core, rngs):
        qpos, qvel = np.empty((len(rngs), core.nq)), np.empty((len(rngs), core.nv))
        for k, rng in enumerate(rngs):
            qpos[k] = rng.uniform(low=-0.1, high=0.1, size=core.nq) + core.init_qpos
            while True:
                goal = rng.uniform(low=-0.2, high=0.2, size=2)
                if np.linalg.norm(goal) < 0.2:
                    break
            qpos[k, -2:] = goal
            qvel[k] = core.init_qvel + rng.uniform(low=-0.005, high=0.005, size=core.nv)
            qvel[k, -2:] = 0
        return qpos, qvel


class _Planar(Task):
    """Hopper and Walker2d: forward reward from rootx, healthy z and angle, clipped velocities."""

    frame_skip = 4
    reset_noise_scale = 5e-3
    healthy_state_range = None

    def __init__(
        self,
        forward_reward_weight=1.0,
        ctrl_cost_weight=1e-3,
        healthy_reward=1.0,
        terminate_when_unhealthy=True,
        healthy_z_range=None,
        healthy_angle_range=None,
        exclude_current_positions_from_observation=True,
        **kw,
    ):
        super().__init__(**kw)
        self.forward_reward_weight = forward_reward_weight
        self.ctrl_cost_weight = ctrl_cost_weight
        self.healthy_reward = healthy_reward
        self.terminate_when_unhealthy = terminate_when_unhealthy
        self.healthy_z_range = healthy_z_range or self.default_z_range
        self.healthy_angle_range = healthy_angle_range or self.default_angle_range
        self.exclude = bool(exclude_current_positions_from_observation)

    def is_healthy(self, view):
        z, angle = view.qpos[:, 1], view.qpos[:, 2]
        ok = _within(z, *self.healthy_z_range) & _within(angle, *self.healthy_angle_range)
        if self.healthy_state_range is not None:
            state = np.concatenate([view.qpos, view.qvel], axis=1)[:, 2:]
            ok &= _within(state, *self.healthy_state_range).all(axis=1)
        return ok

    def observation(self, view):
        q = view.qpos[:, 1:] if self.exclude else view.qpos
        return np.concatenate([q, np.clip(view.qvel, -10, 10)], axis=1)

    def terminated(self, view):
        return ~self.is_healthy(view) & self.terminate_when_unhealthy

    def reward(self, view):
        x = view.qpos[:, 0]
        x_velocity = (x - view.prev.qpos[:, 0]) / view.dt
        forward = self.forward_reward_weight * x_velocity
        healthy = self.is_healthy(view) * self.healthy_reward
        ctrl_cost = self.ctrl_cost_weight * _sumsq(view.action)
        info = dict(self.reset_info(view), x_velocity=x_velocity)
        info.update(reward_forward=forward, reward_ctrl=-ctrl_cost, reward_survive=healthy)
        return forward + healthy - ctrl_cost, info

    def reset_info(self, view):
        return {"x_position": view.qpos[:, 0], "z_distance_from_origin": view.qpos[:, 1] - view.init_qpos[1]}


class Hopper(_Planar):
    xml = "hopper.xml"
    default_z_range = (0.7, float("inf"))
    default_angle_range = (-0.2, 0.2)

    def __init__(self, healthy_state_range=(-100.0, 100.0), **kw):
        super().__init__(**kw)
        self.healthy_state_range = healthy_state_range


class Walker2d(_Planar):
    xml = "walker2d_v5.xml"
    default_z_range = (0.8, 2.0)
    default_angle_range = (-1.0, 1.0)


class HalfCheetah(_NormalQvel, Task):
    xml = "half_cheetah.xml"
    frame_skip = 5
    reset_noise_scale = 0.1

    def __init__(
        self,
        forward_reward_weight=1.0,
        ctrl_cost_weight=0.1,
        exclude_current_positions_from_observation=True,
        **kw,
    ):
        super().__init__(**kw)
        self.forward_reward_weight = forward_reward_weight
        self.ctrl_cost_weight = ctrl_cost_weight
        self.exclude = bool(exclude_current_positions_from_observation)

    def observation(self, view):
        q = view.qpos[:, 1:] if self.exclude else view.qpos
        return np.concatenate([q, view.qvel], axis=1)

    def reward(self, view):
        x = view.qpos[:, 0]
        x_velocity = (x - view.prev.qpos[:, 0]) / view.dt
        forward = self.forward_reward_weight * x_velocity
        ctrl_cost = self.ctrl_cost_weight * _sumsq(view.action)
        info = {"x_position": x, "x_velocity": x_velocity, "reward_forward": forward, "reward_ctrl": -ctrl_cost}
        return forward - ctrl_cost, info

    def reset_info(self, view):
        return {"x_position": view.qpos[:, 0]}


def _xy_info(view):
    q = view.qpos
    return {
        "x_position": q[:, 0],
        "y_position": q[:, 1],
        "distance_from_origin": np.sqrt(q[:, 0] ** 2 + q[:, 1] ** 2),
    }


class Ant(_NormalQvel, Task):
    xml = "ant.xml"
    frame_skip = 5
    reset_noise_scale = 0.1
    prev_fields = ("qpos", "positions", "quaternions")

    def __init__(
        self,
        forward_reward_weight=1,
        ctrl_cost_weight=0.5,
        contact_cost_weight=5e-4,
        healthy_reward=1.0,
        main_body=1,
        terminate_when_unhealthy=True,
        healthy_z_range=(0.2, 1.0),
        contact_force_range=(-1.0, 1.0),
        exclude_current_positions_from_observation=True,
        include_cfrc_ext_in_observation=True,
        **kw,
    ):
        super().__init__(**kw)
        self.forward_reward_weight = forward_reward_weight
        self.ctrl_cost_weight = ctrl_cost_weight
        self.contact_cost_weight = contact_cost_weight
        self.healthy_reward = healthy_reward
        self.main_body = main_body if isinstance(main_body, int) else self.model.names.index(main_body)
        self.terminate_when_unhealthy = terminate_when_unhealthy
        self.healthy_z_range = healthy_z_range
        self.contact_force_range = contact_force_range
        self.exclude = bool(exclude_current_positions_from_observation)
        self.include_cfrc_ext = bool(include_cfrc_ext_in_observation)

    def contact_forces(self, view):
        return np.clip(quantities.cfrc_ext(view, self.bodies(view)), *self.contact_force_range)

    def is_healthy(self, view):
        finite = np.isfinite(view.qpos).all(axis=1) & np.isfinite(view.qvel).all(axis=1)
        z = view.qpos[:, 2]
        return finite & (self.healthy_z_range[0] <= z) & (z <= self.healthy_z_range[1])

    def observation(self, view):
        parts = [view.qpos[:, 2:] if self.exclude else view.qpos, view.qvel]
        if self.include_cfrc_ext:
            parts.append(self.contact_forces(view)[:, 1:].reshape(view.n, -1))
        return np.concatenate(parts, axis=1)

    def terminated(self, view):
        return ~self.is_healthy(view) & self.terminate_when_unhealthy

    def reward(self, view):
        mb = self.bodies(view)
        xy_velocity = (
            quantities.body_xpos(view, mb, self.main_body) - quantities.body_xpos(view.prev, mb, self.main_body)
        )[:, :2] / view.dt
        forward = xy_velocity[:, 0] * self.forward_reward_weight
        healthy = self.is_healthy(view) * self.healthy_reward
        ctrl_cost = self.ctrl_cost_weight * _sumsq(view.action)
        contact_cost = self.contact_cost_weight * _sumsq(self.contact_forces(view))
        info = _xy_info(view)
        info.update(x_velocity=xy_velocity[:, 0], y_velocity=xy_velocity[:, 1], reward_forward=forward)
        info.update(reward_ctrl=-ctrl_cost, reward_contact=-contact_cost, reward_survive=healthy)
        return forward + healthy - ctrl_cost - contact_cost, info

    def reset_info(self, view):
        return _xy_info(view)


class Humanoid(Task):
    xml = "humanoid.xml"
    frame_skip = 5
    reset_noise_scale = 1e-2
    prev_fields = ("qpos", "centers_of_mass")

    def __init__(
        self,
        forward_reward_weight=1.25,
        ctrl_cost_weight=0.1,
        contact_cost_weight=5e-7,
        contact_cost_range=(-np.inf, 10.0),
        healthy_reward=5.0,
        terminate_when_unhealthy=True,
        healthy_z_range=(1.0, 2.0),
        exclude_current_positions_from_observation=True,
        include_cinert_in_observation=True,
        include_cvel_in_observation=True,
        include_qfrc_actuator_in_observation=True,
        include_cfrc_ext_in_observation=True,
        **kw,
    ):
        super().__init__(**kw)
        self.forward_reward_weight = forward_reward_weight
        self.ctrl_cost_weight = ctrl_cost_weight
        self.contact_cost_weight = contact_cost_weight
        self.contact_cost_range = contact_cost_range
        self.healthy_reward = healthy_reward
        self.terminate_when_unhealthy = terminate_when_unhealthy
        self.healthy_z_range = healthy_z_range
        self.exclude = bool(exclude_current_positions_from_observation)
        self.include = (
            bool(include_cinert_in_observation),
            bool(include_cvel_in_observation),
            bool(include_qfrc_actuator_in_observation),
            bool(include_cfrc_ext_in_observation),
        )
        self._amap = None

    def qfrc_actuator(self, view):
        if self._amap is None:
            self._amap = quantities.ActuatorMap(self.model, view.core)
        return quantities.qfrc_actuator(view, self._amap)

    def is_healthy(self, view):
        return _within(view.qpos[:, 2], *self.healthy_z_range)

    def observation(self, view):
        mb = self.bodies(view)
        n = view.n
        parts = [view.qpos[:, 2:] if self.exclude else view.qpos, view.qvel]
        if self.include[0]:
            parts.append(quantities.cinert(view, mb)[:, 1:].reshape(n, -1))
        if self.include[1]:
            parts.append(quantities.cvel(view, mb)[:, 1:].reshape(n, -1))
        if self.include[2]:
            parts.append(self.qfrc_actuator(view)[:, 6:])
        if self.include[3]:
            parts.append(quantities.cfrc_ext(view, mb)[:, 1:].reshape(n, -1))
        return np.concatenate(parts, axis=1)

    def terminated(self, view):
        return ~self.is_healthy(view) & self.terminate_when_unhealthy

    def _tendons(self, view):
        joints = list(view.core.batch.joint_names)
        nfree = (view.core.nq - len(joints)) // 7
        length = np.zeros((view.n, len(self.model.tendons)))
        velocity = np.zeros_like(length)
        for t, terms in enumerate(self.model.tendons):
            for joint, coef in terms:
                k = joints.index(joint)
                length[:, t] += coef * view.qpos[:, 7 * nfree + k]
                velocity[:, t] += coef * view.qvel[:, 6 * nfree + k]
        return length, velocity

    def reset_info(self, view):
        length, velocity = self._tendons(view)
        info = _xy_info(view)
        info.update(tendon_length=length, tendon_velocity=velocity)
        return info

    def reward(self, view):
        mb = self.bodies(view)
        xy_velocity = (quantities.mass_center(view, mb) - quantities.mass_center(view.prev, mb))[
            :, :2
        ] / view.dt
        forward = self.forward_reward_weight * xy_velocity[:, 0]
        healthy = self.is_healthy(view) * self.healthy_reward
        ctrl_cost = self.ctrl_cost_weight * _sumsq(view.action)
        contact_cost = np.clip(
            self.contact_cost_weight * _sumsq(quantities.cfrc_ext(view, mb)), *self.contact_cost_range
        )
        info = self.reset_info(view)
        info.update(x_velocity=xy_velocity[:, 0], y_velocity=xy_velocity[:, 1])
        info.update(
            reward_survive=healthy, reward_forward=forward, reward_ctrl=-ctrl_cost, reward_contact=-contact_cost
        )
        return forward + healthy - ctrl_cost - contact_cost, info


def _state(env, worlds):
    """What a pickled task env carries beside its keywords: each world's snapshot, the generators, counters."""
    rngs = [env._np_random] if isinstance(env, CairnEnv) else env._rngs
    return dict(
        snapshots=[env.batch.snapshot(i) for i in worlds],
        rngs=[None if r is None else r.bit_generator.state for r in rngs],
        elapsed=env._elapsed,
        autoreset=getattr(env, "_autoreset", None),
    )


def _unpickle(cls, ctor, state):
    """A task env rebuilt from its keywords, then put back at the pickled state (the scene's text is not
    carried: gymnasium's installed MJCF files are read again)."""
    env = cls(**ctor)
    for i, snap in enumerate(state["snapshots"]):
        env.batch.restore(snap, [i])
    rngs = []
    for st in state["rngs"]:
        rng = None
        if st is not None:
            rng = np.random.Generator(getattr(np.random, st["bit_generator"])())
            rng.bit_generator.state = st
        rngs.append(rng)
    if isinstance(env, CairnEnv):
        env._np_random = rngs[0]
    else:
        env._rngs = rngs
        env._autoreset = state["autoreset"]
    env._elapsed = state["elapsed"]
    env.core.refresh()
    return env


def _env_class(task):
    class TaskEnv(CairnEnv):
        __doc__ = f"gymnasium's {task.__name__}-v5 on cairn: `{task.__name__}Env(method='lcp', **v5 keywords)`."

        def __init__(self, method="lcp", render_mode=None, max_episode_steps=None, **kw):
            self._ctor = dict(method=method, render_mode=render_mode, max_episode_steps=max_episode_steps, **kw)
            self.task = task(**kw)
            super().__init__(
                method=method, render_mode=render_mode, max_episode_steps=max_episode_steps, **self.task.spec()
            )

        def __reduce__(self):
            return _unpickle, (type(self), self._ctor, _state(self, [0]))

    TaskEnv.__name__ = TaskEnv.__qualname__ = f"{task.__name__}Env"
    return TaskEnv


def _vector_class(task):
    class TaskVectorEnv(CairnVectorEnv):
        __doc__ = f"gymnasium's {task.__name__}-v5 on cairn, n worlds in one cairn.Batch."

        def __init__(self, num_envs=1, method="lcp", render_mode=None, max_episode_steps=None, **kw):
            self._ctor = dict(
                num_envs=num_envs,
                method=method,
                render_mode=render_mode,
                max_episode_steps=max_episode_steps,
                **kw,
            )
            self.task = task(**kw)
            super().__init__(
                num_envs=num_envs,
                method=method,
                render_mode=render_mode,
                max_episode_steps=max_episode_steps,
                **self.task.spec(),
            )

        def __reduce__(self):
            return _unpickle, (type(self), self._ctor, _state(self, range(self.num_envs)))

    TaskVectorEnv.__name__ = TaskVectorEnv.__qualname__ = f"{task.__name__}VectorEnv"
    return TaskVectorEnv


TASKS = {
    # name: (task, max_episode_steps, reward_threshold) as gymnasium registers the v5 envs
    "InvertedPendulum": (InvertedPendulum, 1000, 950.0),
    "InvertedDoublePendulum": (InvertedDoublePendulum, 1000, 9100.0),
    "Reacher": (Reacher, 50, -3.75),
    "Hopper": (Hopper, 1000, 3800.0),
    "Walker2d": (Walker2d, 1000, None),
    "HalfCheetah": (HalfCheetah, 1000, 4800.0),
    "Ant": (Ant, 1000, 6000.0),
    "Humanoid": (Humanoid, 1000, None),
}

for _name, (_task, _, _) in TASKS.items():
    globals()[f"{_name}Env"] = _env_class(_task)
    globals()[f"{_name}VectorEnv"] = _vector_class(_task)
