"""cairn's equivalents of MuJoCo's com-based quantities (cinert, cvel, cfrc_ext, qfrc_actuator, mass_center),
computed in vectorised numpy from a `BatchView`'s arrays (leading axis N), with MuJoCo's definitions: spatial
quantities about the centre of mass of the body's subtree root (MuJoCo's subtree_com[body_rootid]), in world
axes, rotation part first.

MuJoCo's bodies are those of the MJCF file, in its order. cairn splits a body with several joints into a
chain (`body/joint` intermediate links carrying 1% of its mass each): their mass, inertia and contact forces
are folded back into the body. cairn welds a body without joints into its parent: its inertia (spheres only)
is split back out of the parent, its velocity is the parent's, and its contact forces stay with the parent
(MuJoCo's row for the welded body is then zero).
"""

import numpy as np

from . import mjcf


def _cross(a, b):
    """Row-wise cross product of (..., 3) arrays, written out (the same bits for any leading shape)."""
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def rotate(q, v):
    """Rotate vector(s) v (3,) or (..., 3) by unit quaternions q (..., 4) [w, x, y, z]."""
    u = q[..., 1:]
    w = q[..., :1]
    v = np.broadcast_to(v, u.shape)
    return v + 2.0 * _cross(u, _cross(u, v) + w * v)


class MujocoBodies:
    """MuJoCo's bodies of an MJCF file mapped onto a core's cairn bodies."""

    def __init__(self, model, core):
        names = core.body_names
        self.model = model
        self.nbody = len(model.bodies)
        masses = core.body_masses
        dynamic = np.isfinite(masses) & (masses > 0)
        self.mass = np.where(dynamic, masses, 0.0)
        # each cairn body's tree root: follow parents up to the world
        parents = core.body_parents
        root = np.arange(len(names))
        for i in range(len(names)):
            r = i
            while parents[r] != -1:
                r = parents[r]
            root[i] = r
        self.cairn_root = root
        self.roots = sorted(set(root[dynamic].tolist()))
        # per MuJoCo body: the cairn body carrying its frame (and the offset), its mass group, welded or not
        self.host, self.offset_pos, self.offset_quat, self.group, self.welded = [], [], [], [], []
        for j, b in enumerate(model.bodies):
            h, pos, quat = model.host(j)
            hname = model.bodies[h]["name"]
            # the world (MuJoCo's body 0) is a cairn body only where it has geometry
            self.host.append(names.index(hname) if hname in names else -1)
            self.offset_pos.append(pos)
            self.offset_quat.append(quat)
            welded = h != j
            self.welded.append(welded)
            if welded or j == 0:
                self.group.append([])
            else:
                self.group.append(
                    [names.index(hname)] + [i for i, n in enumerate(names) if n.startswith(hname + "/")]
                )
        self.host = np.array(self.host)
        self._spheres = None

    def spheres(self):
        """Per welded MuJoCo body: its spheres (mass, centre in the host's frame, radius)."""
        if self._spheres is None:
            self._spheres = {}
            for j in range(1, self.nbody):
                if self.welded[j]:
                    pos, quat = self.offset_pos[j], self.offset_quat[j]
                    self._spheres[j] = [
                        (m, pos + mjcf.quat_rotate(quat, c), r) for m, c, r in self.model.spheres(j)
                    ]
        return self._spheres


def _weighted_sum(x, index, weight):
    """sum over k of x[:, index[k]] * weight[index[k]], added in order (the same bits for any N)."""
    acc = x[:, index[0]] * weight[index[0]]
    for i in index[1:]:
        acc = acc + x[:, i] * weight[i]
    return acc


def root_com(view, mb):
    """(N, cairn bodies, 3): the centre of mass of each cairn body's tree (MuJoCo's subtree_com of its root)."""
    if "root_com" not in view.cache:
        com = view.centers_of_mass
        out = np.zeros_like(com)
        for r in mb.roots:
            members = np.flatnonzero((mb.cairn_root == r) & (mb.mass > 0))
            c = _weighted_sum(com, members, mb.mass) / mb.mass[members].sum()
            out[:, mb.cairn_root == r, :] = c[:, None, :]
        view.cache["root_com"] = out
    return view.cache["root_com"]


def _cinert_rows(inertia, mass, d):
    """MuJoCo's cinert layout [Ixx, Iyy, Izz, Ixy, Ixz, Iyz, m dx, m dy, m dz, m] of a mass with world inertia
    `inertia` (..., 3, 3) about its centre, d (..., 3) from the reference point to its centre."""
    dx, dy, dz = d[..., 0], d[..., 1], d[..., 2]
    return np.stack(
        [
            inertia[..., 0, 0] + mass * (dy * dy + dz * dz),
            inertia[..., 1, 1] + mass * (dx * dx + dz * dz),
            inertia[..., 2, 2] + mass * (dx * dx + dy * dy),
            inertia[..., 0, 1] - mass * dx * dy,
            inertia[..., 0, 2] - mass * dx * dz,
            inertia[..., 1, 2] - mass * dy * dz,
            mass * dx,
            mass * dy,
            mass * dz,
            np.broadcast_to(mass, dx.shape),
        ],
        axis=-1,
    )


def cinert(view, mb):
    """cairn's equivalent of MuJoCo's data.cinert: (N, nbody, 10) com-based inertia and mass of each MuJoCo body
    about its subtree root's centre of mass, world axes (row 0, the world, zero)."""
    if "cinert" in view.cache:
        return view.cache["cinert"]
    c = root_com(view, mb)
    com = view.centers_of_mass
    rows = _cinert_rows(view.body_inertias, mb.mass[None, :], com - c)  # (N, cairn bodies, 10)
    out = np.zeros((view.n, mb.nbody, 10))
    for j in range(1, mb.nbody):
        for i in mb.group[j]:
            out[:, j] += rows[:, i]
    for j, spheres in mb.spheres().items():
        h = mb.host[j]
        for m, centre, r in spheres:
            p = view.positions[:, h] + rotate(view.quaternions[:, h], centre)
            piece = _cinert_rows(np.eye(3) * (0.4 * m * r * r), m, p - c[:, h])
            out[:, j] += piece
            hj = _mujoco_index(mb, h)
            out[:, hj] -= piece
    view.cache["cinert"] = out
    return out


def _mujoco_index(mb, cairn_index):
    """The non-welded MuJoCo body whose group holds a cairn body."""
    for j in range(1, mb.nbody):
        if cairn_index in mb.group[j]:
            return j
    raise KeyError(cairn_index)


def cvel(view, mb):
    """cairn's equivalent of MuJoCo's data.cvel: (N, nbody, 6) [angular velocity, linear velocity of the
    point at the subtree root's centre of mass moving with the body], world axes."""
    if "cvel" in view.cache:
        return view.cache["cvel"]
    c = root_com(view, mb)
    w = view.angular_velocities
    v = view.velocities + _cross(w, c - view.centers_of_mass)
    h = mb.host[1:]
    out = np.zeros((view.n, mb.nbody, 6))
    out[:, 1:, :3] = w[:, h]
    out[:, 1:, 3:] = v[:, h]
    view.cache["cvel"] = out
    return out


def cfrc_ext(view, mb):
    """cairn's equivalent of MuJoCo's data.cfrc_ext: (N, nbody, 6) [torque about the subtree root's centre of
    mass, force] of the contacts each MuJoCo body received in the last step (contact forces only: no
    applied forces in the tasks)."""
    if "cfrc_ext" in view.cache:
        return view.cache["cfrc_ext"]
    c = root_com(view, mb)
    wr = view.contact_wrenches  # (N, B, 6): torque about the body's centre of mass, force
    torque = wr[..., :3] + _cross(view.centers_of_mass - c, wr[..., 3:])
    out = np.zeros((view.n, mb.nbody, 6))
    for j in range(1, mb.nbody):
        for i in mb.group[j]:
            out[:, j, :3] += torque[:, i]
            out[:, j, 3:] += wr[:, i, 3:]
    view.cache["cfrc_ext"] = out
    return out


class ActuatorMap:
    """Each actuator's gear and the qvel index of its joint (joint transmissions only)."""

    def __init__(self, model, core):
        joints = list(core.batch.joint_names)
        nfree = (core.nq - len(joints)) // 7  # free roots: 7 qpos, 6 qvel each
        self.gear = np.array([a["gear"] for a in model.actuators])
        self.dof = np.array([6 * nfree + joints.index(a["joint"]) for a in model.actuators])
        self.nv = core.nv


def qfrc_actuator(view, amap):
    """cairn's equivalent of MuJoCo's data.qfrc_actuator: (N, nv) gear × each actuator's force of the last
    step, summed on its joint's dof."""
    f = view.actuator_forces * amap.gear[None, :]
    out = np.zeros((view.n, amap.nv))
    for k, dof in enumerate(amap.dof):
        out[:, dof] += f[:, k]
    return out


def mass_center(view, mb):
    """(N, 3): the centre of mass of every body (MuJoCo's Humanoid mass_center before taking x, y)."""
    members = np.flatnonzero(mb.mass > 0)
    return _weighted_sum(view.centers_of_mass, members, mb.mass) / mb.mass[members].sum()


def body_xpos(view, mb, j):
    """(N, 3): MuJoCo body j's frame origin (data.xpos), also for a body cairn welds into its parent."""
    h = mb.host[j]
    return view.positions[:, h] + rotate(view.quaternions[:, h], mb.offset_pos[j])


def site_xpos(view, mb, name):
    """(N, 3): a site's world position (data.site_xpos)."""
    j, pos = mb.model.sites[name]
    h = mb.host[j]
    local = mb.offset_pos[j] + mjcf.quat_rotate(mb.offset_quat[j], pos)
    return view.positions[:, h] + rotate(view.quaternions[:, h], local)
