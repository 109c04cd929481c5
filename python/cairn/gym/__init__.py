"""cairn.gym: gymnasium environments on cairn.

``CairnEnv(scene, method="lcp", frame_skip=1, observation=None, reward=None, terminated=None, ...)`` is an Env
over any scene; ``CairnVectorEnv(scene, num_envs, ...)`` a VectorEnv over one `cairn.Batch`. gymnasium's MuJoCo
v5 tasks on its own MJCF files are registered as ``cairn/<Task>-v5`` (InvertedPendulum, InvertedDoublePendulum,
Reacher, Hopper, Walker2d, HalfCheetah, Ant, Humanoid), each taking a ``method`` keyword::

    import cairn.gym
    env = cairn.gym.make("cairn/Hopper-v5", method="lcp")
    envs = cairn.gym.make_vec("cairn/Ant-v5", num_envs=64)
"""

try:
    import gymnasium
except ImportError as e:  # pragma: no cover - exercised only without gymnasium
    raise ImportError("cairn.gym needs gymnasium: pip install gymnasium") from e

from .env import BatchView, CairnEnv, default_observation
from .tasks import TASKS, Task
from .vector import CairnVectorEnv

ENV_IDS = [f"cairn/{name}-v5" for name in TASKS]


def _register():
    for name, (_, steps, threshold) in TASKS.items():
        env_id = f"cairn/{name}-v5"
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point=f"cairn.gym.tasks:{name}Env",
            vector_entry_point=f"cairn.gym.tasks:{name}VectorEnv",
            max_episode_steps=steps,
            reward_threshold=threshold,
        )


_register()


def make(env_id, **kwargs):
    """``gymnasium.make(env_id, **kwargs)`` (``method=`` picks the contact method, default lcp)."""
    return gymnasium.make(env_id, **kwargs)


def make_vec(env_id, num_envs=1, **kwargs):
    """A `CairnVectorEnv` of ``num_envs`` worlds in one `cairn.Batch` (gymnasium's ``vector_entry_point``)."""
    kwargs.setdefault("vectorization_mode", "vector_entry_point")
    return gymnasium.make_vec(env_id, num_envs=num_envs, **kwargs)


__all__ = [
    "BatchView",
    "CairnEnv",
    "CairnVectorEnv",
    "ENV_IDS",
    "TASKS",
    "Task",
    "default_observation",
    "make",
    "make_vec",
]
