"""What the gym environments read from an MJCF file themselves: actuators' gears and joints, the
body tree in MuJoCo's order (with the bodies cairn welds into a parent), sites, and welded bodies' spheres.

Only what gymnasium's MJCF files use: default classes, pos/quat frames; anything else is refused where it
matters (a welded body with a non-sphere geom when its inertia is asked for).
"""

import xml.etree.ElementTree as ET

import numpy as np

_ACTUATORS = ("motor", "position", "velocity", "intvelocity", "damper", "general", "cylinder", "muscle")


class Model:
    """An MJCF file's tree: `bodies` (MuJoCo's order, world first: dicts of name, parent, has_joint, pos,
    quat, element), `actuators` (dicts of name, joint, gear, ctrlrange or None), `sites` (name -> body, pos),
    `tendons` (fixed tendons: [(joint, coef), ...])."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        self._defaults = {}
        for d in root.findall("default"):
            self._read_defaults(d, "main", {})
        self.bodies = [
            dict(name="world", parent=-1, has_joint=False, pos=np.zeros(3), quat=_UNIT, element=None)
        ]
        self.sites = {}
        wb = root.find("worldbody")
        self._walk(wb, 0, "main")
        self.actuators = []
        for group in root.findall("actuator"):
            for el in group:
                if el.tag not in _ACTUATORS:
                    continue
                a = self._attrs("actuator", el, el.get("class", "main"))
                gear = float(a.get("gear", "1").split()[0])
                limited = a.get("ctrllimited", "auto")
                rng = a.get("ctrlrange")
                use = limited == "true" or (limited == "auto" and rng is not None)
                self.actuators.append(
                    dict(
                        name=a.get("name"),
                        joint=a.get("joint"),
                        gear=gear,
                        ctrlrange=[float(v) for v in rng.split()] if (use and rng) else None,
                    )
                )
        self.names = [b["name"] for b in self.bodies]
        # fixed tendons: list of [(joint, coef), ...]
        self.tendons = [
            [(j.get("joint"), float(j.get("coef", "1"))) for j in f.findall("joint")]
            for t in root.findall("tendon")
            for f in t.findall("fixed")
        ]

    def _read_defaults(self, el, cls, inherited):
        mine = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in el:
            if child.tag == "default":
                continue
            tag = "actuator" if child.tag in _ACTUATORS else child.tag
            mine.setdefault(tag, {}).update(child.attrib)
        self._defaults[cls] = mine
        for child in el.findall("default"):
            self._read_defaults(child, child.get("class", cls), mine)

    def _attrs(self, tag, el, cls):
        out = dict(self._defaults.get(cls, {}).get(tag, {}))
        out.update(el.attrib)
        return out

    def _walk(self, el, parent, childclass):
        for b in el.findall("body"):
            index = len(self.bodies)
            cls = b.get("childclass", childclass)
            name = b.get("name") or f"body{index}"
            has_joint = b.find("joint") is not None or b.find("freejoint") is not None
            if b.get("euler") or b.get("axisangle") or b.get("xyaxes") or b.get("zaxis"):
                quat = None  # not needed by gymnasium's files; refused where used
            else:
                quat = _vec(b.get("quat"), _UNIT)
            self.bodies.append(
                dict(
                    name=name,
                    parent=parent,
                    has_joint=has_joint,
                    pos=_vec(b.get("pos"), np.zeros(3)),
                    quat=quat,
                    element=b,
                    cls=cls,
                )
            )
            for s in b.findall("site"):
                if s.get("name"):
                    self.sites[s.get("name")] = (index, _vec(s.get("pos"), np.zeros(3)))
            self._walk(b, index, cls)

    def host(self, j):
        """(index of the body that carries body j in cairn, pos, quat of body j's frame in that body's frame):
        a body without joints is welded into its parent (a child of the world without joints stays static)."""
        pos, quat = np.zeros(3), _UNIT
        while j > 0 and not self.bodies[j]["has_joint"] and self.bodies[j]["parent"] > 0:
            b = self.bodies[j]
            if b["quat"] is None:
                raise NotImplementedError(f"body {b['name']}: only pos/quat frames are read")
            pos = b["pos"] + quat_rotate(b["quat"], pos)
            quat = quat_mul(b["quat"], quat)
            j = b["parent"]
        return j, pos, quat

    def spheres(self, j):
        """Body j's geoms as spheres: list of (mass, centre in body j's frame, radius); other geoms refused."""
        b = self.bodies[j]
        out = []
        for g in b["element"].findall("geom"):
            a = self._attrs("geom", g, g.get("class", b["cls"]))
            kind = a.get("type", "sphere")
            if kind != "sphere":
                raise NotImplementedError(f"body {b['name']}: geom type {kind} (only spheres are read)")
            r = float(a["size"].split()[0])
            mass = (
                float(a["mass"]) if "mass" in a else float(a.get("density", "1000")) * 4.0 / 3.0 * np.pi * r**3
            )
            out.append((mass, _vec(a.get("pos"), np.zeros(3)), r))
        return out


_UNIT = np.array([1.0, 0.0, 0.0, 0.0])


def _vec(text, default):
    return default.copy() if text is None else np.array([float(v) for v in text.split()])


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def quat_rotate(q, v):
    q = np.asarray(q, dtype=np.float64)
    q = q / np.linalg.norm(q)
    u, w = q[1:], q[0]
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)
