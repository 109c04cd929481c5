"""Holds gymnasium's humanoid (torque motors) in a crouched pose with a PD law written in Python.

The model is gymnasium's public `humanoid.xml` (MIT licence, beside it in examples/models/gymnasium/): 17 torque
motors with gears 25 to 300 and controls limited to ±0.4. The scene places it with its torso welded 1.4 m above
the floor (a hanging robot: the legs and arms carry their own weight, no balance is involved) and adds a
`jointpos` and a `jointvel` sensor per actuated joint. Every step the law reads `world.sensordata`, computes

    u = (kp·(q* − q) − kd·q̇) / gear,

and writes it to `world.ctrl` (the world clamps it to the motors' ±0.4). It prints the largest joint error over
the last second and exits non-zero when a joint is more than `--tolerance` rad off its target.

    python examples/humanoid_crouch.py [--method lcp] [--duration 3.0]
"""

import argparse
import pathlib
import sys

import numpy as np

import cairn

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE / "models" / "gymnasium" / "humanoid.xml"

# the crouch: hips flexed, knees bent, arms folded a little (rad; the file's joint ranges allow these)
TARGET = {
    "right_hip_y": -1.0,
    "left_hip_y": -1.0,
    "right_knee": -1.6,
    "left_knee": -1.6,
    "right_elbow": -0.8,
    "left_elbow": -0.8,
}


def scene_text(joints):
    """The TOML scene: the humanoid on its floor, torso welded, a position and a velocity sensor per joint."""
    lines = [
        "format = 1",
        "[world]",
        "dt = 0.003",
        "[[robot]]",
        f'file = "{MODEL.as_posix()}"',
        "fixed_base = true",
    ]
    for j in joints:
        lines += ["[[sensor]]", f'name = "q_{j}"', 'type = "jointpos"', f'joint = "{j}"']
        lines += ["[[sensor]]", f'name = "qd_{j}"', 'type = "jointvel"', f'joint = "{j}"']
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--method", default="lcp")
    p.add_argument("--duration", type=float, default=3.0)
    p.add_argument("--tolerance", type=float, default=0.1, help="largest joint error allowed over the last second, rad")
    args = p.parse_args()

    import warnings

    # the file's visual elements and MuJoCo solver options are noted as ignored: not this example's subject
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probe = cairn.World.from_string(scene_text([]), method=args.method, name="humanoid")
    actuators = probe.actuator_names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        world = cairn.World.from_string(scene_text(actuators), method=args.method, name="humanoid")

    # the gears, as the file gives them (the law divides by them)
    gear = {
        "abdomen_y": 100, "abdomen_z": 100, "abdomen_x": 100, "right_hip_x": 100, "right_hip_z": 100,
        "right_hip_y": 300, "right_knee": 200, "left_hip_x": 100, "left_hip_z": 100, "left_hip_y": 300,
        "left_knee": 200, "right_shoulder1": 25, "right_shoulder2": 25, "right_elbow": 25,
        "left_shoulder1": 25, "left_shoulder2": 25, "left_elbow": 25,
    }  # fmt: skip
    g = np.array([gear[a] for a in actuators], dtype=float)
    target = np.array([TARGET.get(a, 0.0) for a in actuators])
    # gains per joint (N·m/rad, N·m·s/rad): the trunk and legs (gears 100 to 300) stiff enough to carry the
    # legs' weight within the motors' limits, the arms (gear 25) softer
    kp = np.where(g >= 100, 1000.0, 80.0)
    kd = np.where(g >= 100, 50.0, 2.0)
    n = len(actuators)

    steps = int(round(args.duration / world.dt))
    worst_late = 0.0
    for k in range(steps):
        data = world.sensordata
        q, qd = data[0 : 2 * n : 2], data[1 : 2 * n : 2]
        world.ctrl[:] = (kp * (target - q) - kd * qd) / g
        world.step()
        if world.time > args.duration - 1.0:
            worst_late = max(worst_late, float(np.max(np.abs(target - world.sensordata[0 : 2 * n : 2]))))

    q = world.sensordata[0 : 2 * n : 2]
    print(f"{args.method}: {steps} steps of {world.dt} s, {n} actuators")
    for a, qa, t in zip(actuators, q, target):
        print(f"  {a:16s} q = {qa:+.3f} rad   target {t:+.3f}")
    print(f"largest joint error over the last second: {worst_late:.4f} rad")
    if worst_late > args.tolerance:
        print(f"the crouch was not held: error above {args.tolerance} rad", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
