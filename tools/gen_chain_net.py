"""Writes scenes/chain_net.toml and scenes/chain_net_big.toml: N × N horizontal rings linked by vertical rings
(each through the holes of its two horizontal neighbours), the four corner rings fixed, with a ball dropped on the
centre. Run from the repository root: python3 tools/gen_chain_net.py"""

PITCH = 0.5  # between neighbouring horizontal rings, m
# the horizontal rings' major radius, and the vertical rings': these reach 0.08 m from a horizontal ring's centre,
# inside its hole (0.16 m), 0.11 m from the perpendicular vertical ring there (the tubes are 0.08 m thick)
H_MAJOR, V_MAJOR, MINOR = 0.2, 0.17, 0.04


def f(x):
    return f"{x:.4f}".rstrip("0").rstrip(".") + (".0" if float(x).is_integer() else "")


def torus(major):
    return (f'{{ type = "generated", generator = "torus", major_radius = {major}, minor_radius = {MINOR}, '
            'segments = 16, sides = 8 }')


def ring(name, major, pos, rotation=None, fixed=False):
    lines = ["[[body]]", f'name = "{name}"']
    if fixed:
        lines.append('kind = "static"')
    lines += ['material = "metal"', f"shape = {torus(major)}", f"position = [{f(pos[0])}, {f(pos[1])}, {f(pos[2])}]"]
    if rotation:
        lines.append(f"rotation_deg = {rotation}")
    return lines + [""]


def net(name, n, ball_radius, ball_height, what):
    rings = n * n + 2 * n * (n - 1)
    out = [
        f"# {name}: A {n} × {n} net of interlocked rings, fixed at its corners, with a ball dropped on its centre.",
        f"# {name} (source Figs. 4, 5{what}): {n} × {n} horizontal rings (major radius {H_MAJOR} m) linked by",
        f"# vertical rings ({V_MAJOR} m) through their holes, {rings} rings, the four corner rings fixed; a ball of",
        f"# radius {ball_radius} m is dropped on the centre from {ball_height} m. Written by tools/gen_chain_net.py.",
        "format = 1",
        "",
        "[world]",
        "dt = 0.01",
        "duration = 2.0",
        'method = "abd"',
        "",
        "[solver.abd]",
        "dhat = 0.001",
        "",
        "[[material]]",
        'name = "metal"',
        "density = 2000.0",
        "friction = 0.3",
        "",
    ]
    corners = {(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)}
    for i in range(n):
        for j in range(n):
            out += ring(f"h{i}_{j}", H_MAJOR, (i * PITCH, j * PITCH, 0.0), fixed=(i, j) in corners)
    # vertical rings in the xz plane (about x) between x neighbours, in the yz plane (about y) between y neighbours
    for i in range(n - 1):
        for j in range(n):
            out += ring(f"vx{i}_{j}", V_MAJOR, ((i + 0.5) * PITCH, j * PITCH, 0.0), "[90.0, 0.0, 0.0]")
    for i in range(n):
        for j in range(n - 1):
            out += ring(f"vy{i}_{j}", V_MAJOR, (i * PITCH, (j + 0.5) * PITCH, 0.0), "[0.0, 90.0, 0.0]")
    c = 0.5 * (n - 1) * PITCH
    out += ["[[body]]", 'name = "ball"', 'material = "metal"', f'shape = {{ type = "sphere", radius = {ball_radius} }}',
            f"position = [{f(c)}, {f(c)}, {f(ball_height)}]", ""]
    open(f"scenes/{name}.toml", "w").write("\n".join(out))


net("chain_net", 3, 0.15, 0.6, "")
net("chain_net_big", 6, 0.3, 1.0, ", the larger net")
