"""cairn.gym: gymnasium's checker on every registered env, seeded resets, vector env = single envs bit for bit,
and (where mujoco is installed) the reset state against gymnasium's own MuJoCo envs."""

import pickle
import subprocess
import sys
import types

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import cairn  # noqa: E402

if not hasattr(cairn, "Batch"):
    pytest.skip("cairn.Batch is not in this build", allow_module_level=True)

import cairn.gym  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

# observation sizes of gymnasium's v5 envs
OBS = {
    "InvertedPendulum": 4,
    "InvertedDoublePendulum": 9,
    "Reacher": 10,
    "Hopper": 11,
    "Walker2d": 17,
    "HalfCheetah": 17,
    "Ant": 105,
    "Humanoid": 348,
}
IDS = [f"cairn/{name}-v5" for name in OBS]


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_every_task_is_registered():
    assert cairn.gym.ENV_IDS == IDS
    for env_id in IDS:
        assert env_id in gymnasium.registry


@pytest.mark.filterwarnings("ignore:.*(infinity|symmetric and normalized).*:UserWarning")
@pytest.mark.parametrize("env_id", IDS)
def test_check_env_and_a_short_rollout(env_id):
    env = cairn.gym.make(env_id, method="lcp")
    name = env_id[6:-3]
    assert env.observation_space.shape == (OBS[name],)
    assert env.observation_space.dtype == np.float64
    assert env.action_space.dtype == np.float32
    assert env.unwrapped.batch.nu == env.action_space.shape[0]
    check_env(env.unwrapped, skip_render_check=True)
    env.action_space.seed(0)
    obs, info = env.reset(seed=0)
    for _ in range(10):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert obs.shape == (OBS[name],) and obs.dtype == np.float64
        assert isinstance(reward, float) and isinstance(terminated, bool)
        if terminated or truncated:
            obs, info = env.reset()
    env.close()


@pytest.mark.parametrize("env_id", ["cairn/Hopper-v5", "cairn/Ant-v5", "cairn/Reacher-v5"])
def test_seeded_reset_is_reproducible_bit_for_bit(env_id):
    env = cairn.gym.make(env_id)
    actions = np.random.default_rng(3).uniform(-0.5, 0.5, (5,) + env.action_space.shape).astype(np.float32)

    def run(seed):
        obs, _ = env.reset(seed=seed)
        out = [bits(obs)]
        for a in actions:
            obs, reward, *_ = env.step(a)
            out += [bits(obs), bits(reward)]
        return np.concatenate(out)

    first, other, again = run(7), run(8), run(7)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("env_id", ["cairn/HalfCheetah-v5", "cairn/Hopper-v5", "cairn/Reacher-v5"])
def test_a_vector_env_of_4_equals_4_single_envs(env_id):
    # (Reacher under lcp also exercises worlds whose step fails, while cairn lacks its joints' armature)
    n, steps = 4, 12
    seeds = [11, 12, 13, 14]
    venv = cairn.gym.make_vec(env_id, num_envs=n)
    assert venv.observation_space.shape[0] == n
    envs = [cairn.gym.make(env_id) for _ in range(n)]
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (steps, n) + envs[0].action_space.shape).astype(np.float32)
    if env_id == "cairn/Hopper-v5":
        actions[3:6] = 1.0  # topple some hoppers: exercises the next-step autoreset
    vobs, vinfo = venv.reset(seed=seeds)
    single = [e.reset(seed=s) for e, s in zip(envs, seeds)]
    assert np.array_equal(bits(vobs), bits(np.stack([o for o, _ in single])))
    for key in single[0][1]:
        assert np.array_equal(bits(vinfo[key]), bits([i[key] for _, i in single]))
    done = np.zeros(n, dtype=bool)
    for t in range(steps):
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions[t])
        for i, env in enumerate(envs):
            if done[i]:
                obs, _ = env.reset()
                rew, term, trunc = 0.0, False, False
            else:
                obs, rew, term, trunc, info = env.step(actions[t, i])
                for key in info:
                    assert np.array_equal(bits(vinfo[key][i]), bits(info[key])), (t, i, key)
            assert np.array_equal(bits(vobs[i]), bits(obs)), (t, i)
            assert np.array_equal(bits(vrew[i]), bits(rew)) and vterm[i] == term and vtrunc[i] == trunc
            done[i] = term or trunc
    venv.close()


def test_task_envs_pickle_and_continue_bit_for_bit():
    env = cairn.gym.make("cairn/Ant-v5").unwrapped
    venv = cairn.gym.make_vec("cairn/InvertedPendulum-v5", num_envs=3)
    env.reset(seed=1)
    venv.reset(seed=1)
    a = np.full(env.action_space.shape, 0.1, dtype=np.float32)
    va = np.full(venv.action_space.shape, 0.1, dtype=np.float32)
    env.step(a)
    venv.step(va)
    # both hold compound shapes in contact (parry's composite workspaces travel as hex text)
    env2, venv2 = pickle.loads(pickle.dumps(env)), pickle.loads(pickle.dumps(venv))
    for _ in range(3):
        assert np.array_equal(bits(env.step(a)[0]), bits(env2.step(a)[0]))
        assert np.array_equal(bits(venv.step(va)[0]), bits(venv2.step(va)[0]))
    assert np.array_equal(bits(env.reset()[0]), bits(env2.reset()[0]))  # the generators travel too


@pytest.mark.filterwarnings("ignore:.*(infinity|symmetric and normalized).*:UserWarning")
def test_cairn_env_over_any_scene(tmp_path):
    scene = tmp_path / "arm.toml"
    scene.write_text("""format = 1
[world]
dt = 0.001
[[body]]
name = "arm"
shape = { type = "box", size = [0.1, 0.1, 1.0] }
position = [0.0, 0.0, -0.5]
[[joint]]
type = "hinge"
name = "shoulder"
body1 = "arm"
anchor = [0.0, 0.0, 0.0]
axis = [0.0, 1.0, 0.0]
[[actuator]]
name = "torque"
type = "motor"
joint = "shoulder"
ctrlrange = [-2.0, 2.0]
[[sensor]]
name = "q"
type = "jointpos"
joint = "shoulder"
""")
    env = cairn.gym.CairnEnv(str(scene), frame_skip=3, max_episode_steps=4)
    assert env.dt == pytest.approx(0.003)
    assert env.observation_space.shape == (3,)  # qpos, qvel, the jointpos sensor
    check_env(env, skip_render_check=True)
    env = cairn.gym.CairnEnv(
        str(scene),
        frame_skip=3,
        observation=lambda v: v.qpos,
        reward=lambda v: (-(v.qpos[:, 0] ** 2), {"angle": v.qpos[:, 0]}),
        terminated=lambda v: np.abs(v.qpos[:, 0]) > 1.0,
        max_episode_steps=4,
    )
    assert env.observation_space.shape == (1,)
    obs, _ = env.reset(seed=0)
    for k in range(4):
        obs, reward, terminated, truncated, info = env.step(np.array([1.0], dtype=np.float32))
        assert reward == -info["angle"] ** 2 and truncated == (k == 3)
    assert obs[0] != 0.0


def _reference(name, monkeypatch, tmp_path, **kw):
    """gymnasium's own MuJoCo env (its renderer's imageio is not needed to step), loaded in tmp_path: MuJoCo
    writes its warnings (half_cheetah.xml's settotalmass) to MUJOCO_LOG.TXT in the working directory."""
    pytest.importorskip("mujoco")
    monkeypatch.chdir(tmp_path)
    try:
        import imageio  # noqa: F401
    except ImportError:
        sys.modules.setdefault("imageio", types.ModuleType("imageio"))
    return gymnasium.make(f"{name}-v5", **kw).unwrapped


@pytest.mark.parametrize("name,npart", [("Hopper", 5 + 6), ("HalfCheetah", 8 + 9), ("Ant", 13 + 14)])
def test_reset_state_matches_gymnasium_mujoco(name, npart, monkeypatch, tmp_path):
    ref = _reference(name, monkeypatch, tmp_path, reset_noise_scale=0.0)
    env = cairn.gym.make(f"cairn/{name}-v5", reset_noise_scale=0.0)
    robs, rinfo = ref.reset(seed=0)
    obs, info = env.reset(seed=0)
    assert np.abs(obs[:npart] - robs[:npart]).max() <= 1e-9
    assert sorted(info) == sorted(rinfo)


def test_humanoid_cinert_matches_gymnasium_mujoco(monkeypatch, tmp_path):
    # At the model's pose cairn's folded intermediate links share their body's centre and axes, and the feet
    # (spheres cairn welds into the shins) are split back out exactly, so cinert differs from MuJoCo's only by
    # the rounding of the geoms' mass properties: 1e-9 relative to the largest entry (the torso's mass, 8.9 kg).
    ref = _reference("Humanoid", monkeypatch, tmp_path, reset_noise_scale=0.0)
    env = cairn.gym.make("cairn/Humanoid-v5", reset_noise_scale=0.0)
    robs, _ = ref.reset(seed=0)
    obs, _ = env.reset(seed=0)
    assert np.abs(obs[:45] - robs[:45]).max() <= 1e-9  # qpos[2:], qvel
    cin, rcin = obs[45:175], robs[45:175]
    assert np.abs(cin - rcin).max() <= 1e-9 * np.abs(rcin).max()


def test_random_rollout_example_runs(repo):
    script = repo / "examples" / "gym_random_rollout.py"
    r = subprocess.run(
        [sys.executable, str(script), "--steps", "5", "--num-envs", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "cairn/Hopper-v5 (lcp): obs (11,)" in r.stdout and "2 worlds:" in r.stdout


def test_without_gymnasium_the_import_error_says_what_to_install():
    code = "import sys; sys.modules['gymnasium'] = None; import cairn.gym"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "pip install gymnasium" in r.stderr
