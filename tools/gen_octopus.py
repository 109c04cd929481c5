"""Writes scenes/octopus.toml: a body with eight tentacles of five hinged, tapering links (the affine-body
paper's octopus in kind), dropped onto the ground beside two obstacles. Run from the repository root:
python3 tools/gen_octopus.py"""
import math

MANTLE = 0.15  # mantle sphere radius, m
TENTACLES, LINKS = 8, 5
TILT = math.radians(25.0)  # tentacles start pointing this far below the horizontal
GAP = 0.01  # between a link's end and the next one's (the hinge sits in its middle)
LIMIT = 0.7  # hinge limits, rad


def link(j):
    """Radius and segment length of link j (0 at the mantle): each 12% thinner and 8% shorter."""
    return 0.045 * (1.0 - 0.12 * j), 0.15 * (1.0 - 0.08 * j)


def f(x):
    return f"{x:.6f}".rstrip("0").rstrip(".") if abs(x) > 1e-12 else "0.0"


def vec(v):
    return "[" + ", ".join(f(x) if "." in f(x) else f(x) + ".0" for x in v) + "]"


out = [
    "# octopus: A body with eight tentacles of five hinged, tapering links dropped onto the ground and obstacles.",
    "# octopus (source Fig. 15, in kind): a sphere of 0.15 m with eight tentacles of five capsules each, every link",
    "# 12% thinner and 8% shorter than the one before it, on hinges across the tentacle (limits ±0.7 rad), the",
    "# tentacles starting 25° below the horizontal; dropped from 0.7 m onto the ground beside a step and a ball.",
    "# The mantle is a quarter as dense as the tentacles (a sac). 41 moving bodies, 40 hinges.",
    "# Written by tools/gen_octopus.py.",
    "format = 1",
    "",
    "[world]",
    "dt = 0.005",
    "duration = 3.0",
    'method = "lcp"',
    "",
    "[[material]]",
    'name = "skin"',
    "density = 1000.0",
    "friction = 0.6",
    "",
    "[[material]]",
    'name = "mantle"',
    "density = 250.0",
    "friction = 0.6",
    "",
    "[[body]]",
    'name = "ground"',
    'kind = "static"',
    'shape = { type = "box", size = [6.0, 6.0, 0.2] }',
    "position = [0.0, 0.0, -0.1]",
    "",
    "[[body]]",
    'name = "step"',
    'kind = "static"',
    'shape = { type = "box", size = [0.5, 0.9, 0.1] }',
    "position = [0.85, 0.0, 0.05]",
    "",
    "[[body]]",
    'name = "rock"',
    'kind = "static"',
    'shape = { type = "sphere", radius = 0.15 }',
    "position = [-0.55, 0.55, 0.05]",
    "",
]
centre = (0.0, 0.0, 0.7)
out += ["[[body]]", 'name = "mantle"', 'material = "mantle"', f'shape = {{ type = "sphere", radius = {f(MANTLE)} }}',
        f"position = {vec(centre)}", ""]
joints = []
for k in range(TENTACLES):
    a = 2.0 * math.pi * (k + 0.5) / TENTACLES
    d = (math.cos(a) * math.cos(TILT), math.sin(a) * math.cos(TILT), -math.sin(TILT))
    axis = (-math.sin(a), math.cos(a), 0.0)  # across the tentacle, horizontal
    # the rotation taking the capsule's z axis onto d: about z × d by the angle between them
    zd = (-d[1], d[0], 0.0)
    n = math.hypot(zd[0], zd[1])
    angle = math.degrees(math.acos(max(-1.0, min(1.0, d[2]))))
    s = MANTLE + 0.5 * GAP
    parent = "mantle"
    for j in range(LINKS):
        r, length = link(j)
        anchor = tuple(c + s * x for c, x in zip(centre, d))
        mid = s + 0.5 * GAP + r + 0.5 * length
        pos = tuple(c + mid * x for c, x in zip(centre, d))
        name = f"arm{k}_{j}"
        out += ["[[body]]", f'name = "{name}"', 'material = "skin"',
                f'shape = {{ type = "capsule", radius = {f(r)}, length = {f(length)} }}', f"position = {vec(pos)}",
                f"axis_angle = {{ axis = {vec((zd[0] / n, zd[1] / n, 0.0))}, angle_deg = {f(angle)} }}", ""]
        joints += ["[[joint]]", 'type = "hinge"', f'body1 = "{parent}"', f'body2 = "{name}"', f"anchor = {vec(anchor)}",
                   f"axis = {vec(axis)}", f"limits = [{-LIMIT}, {LIMIT}]", ""]
        s = mid + 0.5 * length + r + 0.5 * GAP
        parent = name
open("scenes/octopus.toml", "w").write("\n".join(out + joints))
