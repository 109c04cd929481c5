"""Type stubs of cairn (the extension module cairn._cairn, re-exported)."""

import concurrent.futures
import os
import pathlib
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

_Scalar = Union[bool, int, float, str]
_Value = Union[_Scalar, Sequence[Any], Mapping[str, Any]]
_Overrides = Mapping[str, _Value]
_Vec3 = Union[Sequence[float], npt.NDArray[np.float64]]
_Quat = Union[Sequence[float], npt.NDArray[np.float64]]
_Path = Union[str, "os.PathLike[str]"]

METHODS: List[str]
"""The implemented contact methods' keys."""

__version__: str
"""The package's version (the engine crate's)."""

class CairnError(Exception):
    """Base class of every error cairn raises."""

class SceneError(CairnError):
    """Bad input: a scene, an override, a body or proxy, a snapshot that does not fit; the message names it."""

class SimulationError(CairnError):
    """A step failed: a NaN or infinity (body, step and stage named) or a solver failure."""

class Snapshot:
    """A saved state of a world; picklable. ``World.restore`` continues bit for bit."""

    def __init__(self, json: Union[str, bytes]) -> None: ...
    @staticmethod
    def from_json(text: Union[str, bytes]) -> "Snapshot": ...
    def to_json(self) -> str: ...
    @property
    def scene(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def time(self) -> float: ...
    @property
    def step(self) -> int: ...
    def __copy__(self) -> "Snapshot": ...
    def __deepcopy__(self, memo: Any) -> "Snapshot": ...

class World:
    """A scene loaded under one contact method; poses of reference frames, velocities of centres of mass,
    quaternions [w, x, y, z]."""

    def __init__(
        self,
        path: _Path,
        method: Optional[str] = None,
        *,
        dt: Optional[float] = None,
        duration: Optional[float] = None,
        overrides: Optional[_Overrides] = None,
    ) -> None: ...
    @staticmethod
    def from_file(
        path: _Path,
        method: Optional[str] = None,
        *,
        dt: Optional[float] = None,
        duration: Optional[float] = None,
        overrides: Optional[_Overrides] = None,
    ) -> "World": ...
    @staticmethod
    def from_string(
        text: str,
        method: Optional[str] = None,
        *,
        dt: Optional[float] = None,
        duration: Optional[float] = None,
        overrides: Optional[_Overrides] = None,
        name: str = "scene",
    ) -> "World": ...
    def step(self, n: int = 1, callback: Optional[Any] = None) -> None:
        """Advance n steps with the interpreter's lock released; SimulationError when a step fails,
        ValueError when n is negative. With callback, callback(world) runs after every step (holding the
        lock); returning False stops there; TypeError when it is not callable."""
    @property
    def time(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def dt(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def method(self) -> str: ...
    @property
    def scene(self) -> str: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def stage_names(self) -> List[str]: ...
    @property
    def notes(self) -> List[str]: ...
    @property
    def last_stats(self) -> Dict[str, Any]:
        """contacts, islands, max_penetration, iterations, residual, normal_impulse, friction_impulse,
        unresolved, resolutions, resolution_seconds, sleeping, stage_seconds, total_seconds, proxies,
        intersections, crossings, min_distance; empty before the first step."""
    def __len__(self) -> int: ...
    def body_index(self, name: str) -> int: ...
    def poses(self) -> npt.NDArray[np.float64]:
        """(bodies, 3, 4): [R | p] of each reference frame, as in trajectory.npy."""
    def positions(self) -> npt.NDArray[np.float64]:
        """(bodies, 3): reference-frame origins."""
    def centers_of_mass(self) -> npt.NDArray[np.float64]:
        """(bodies, 3)."""
    def quaternions(self) -> npt.NDArray[np.float64]:
        """(bodies, 4): [w, x, y, z]."""
    def velocities(self) -> npt.NDArray[np.float64]:
        """(bodies, 3): of the centres of mass, world frame."""
    def angular_velocities(self) -> npt.NDArray[np.float64]:
        """(bodies, 3): world frame."""
    def kinetic_energy(self) -> float: ...
    def potential_energy(self) -> float: ...
    def set_body_pose(self, body: Union[int, str], position: _Vec3, quaternion: Optional[_Quat] = None) -> None: ...
    def set_body_velocity(
        self, body: Union[int, str], velocity: Optional[_Vec3] = None, angular_velocity: Optional[_Vec3] = None
    ) -> None: ...
    def set_proxy_target(
        self,
        proxy: int,
        position: _Vec3,
        rotation: _Quat,
        velocity: _Vec3 = ...,
        angular_velocity: _Vec3 = ...,
    ) -> None: ...
    def set_motor_target(self, joint: int, value: float, rate: float = ...) -> None: ...
    def snapshot(self) -> Snapshot: ...
    def restore(self, snapshot: Snapshot) -> None: ...
    def reset(self) -> None:
        """Back to the scene's initial state; pending forces and motor or proxy targets dropped."""
    def apply_force(
        self, body: Union[int, str], force: _Vec3, point: Optional[_Vec3] = None, frame: str = "world"
    ) -> None:
        """Force (N) during the next step only, at point (None: the centre of mass); frame "world" or "body"."""
    def apply_torque(self, body: Union[int, str], torque: _Vec3, frame: str = "world") -> None:
        """Torque (N·m) during the next step only; frame "world" or "body"."""
    @property
    def joint_names(self) -> List[str]: ...
    def joint_positions(self) -> npt.NDArray[np.float64]:
        """(joints,): hinge angle (rad) or slide (m); NaN for ball and fixed joints."""
    def joint_velocities(self) -> npt.NDArray[np.float64]:
        """(joints,): rad/s or m/s; NaN for ball and fixed joints."""
    @property
    def actuator_names(self) -> List[str]: ...
    @property
    def ctrl(self) -> npt.NDArray[np.float64]:
        """(actuators,): the controls; one array for the world's life: `world.ctrl[:] = u` sets them."""
    @ctrl.setter
    def ctrl(self, values: Sequence[float]) -> None: ...
    @property
    def act(self) -> npt.NDArray[np.float64]:
        """(actuators,): activations (0 without activation dynamics)."""
    @property
    def actuator_forces(self) -> npt.NDArray[np.float64]:
        """(actuators,): each actuator's scalar force during the last step."""
    @property
    def sensor_names(self) -> List[str]: ...
    @property
    def sensor_dims(self) -> List[int]: ...
    @property
    def sensordata(self) -> npt.NDArray[np.float64]:
        """Every sensor's values after the last step, flat in sensor order (a copy)."""
    def joint_reactions(self) -> Dict[str, npt.NDArray[np.float64]]:
        """What each joint applied to its body 1 in the last step: `force`, `torque` (joints, 3)."""
    def contacts(self) -> Dict[str, npt.NDArray[Any]]:
        """The last step's contacts: `bodies` (n, 2) int64, `point`, `normal`, `force` (n, 3)."""
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    def qpos(self) -> npt.NDArray[np.float64]:
        """(nq,) MuJoCo-layout coordinates: free roots' origin and [w, x, y, z], then hinge and slide joints."""
    def qvel(self) -> npt.NDArray[np.float64]:
        """(nv,) free roots' origin velocity (world) and angular velocity (body frame), then joint rates."""
    @property
    def qpos_names(self) -> List[str]: ...
    @property
    def qvel_names(self) -> List[str]: ...
    def set_qpos(self, qpos: Sequence[float]) -> None:
        """Forward kinematics from generalised coordinates; qvel is kept."""
    def set_qvel(self, qvel: Sequence[float]) -> None: ...
    def body_masses(self) -> npt.NDArray[np.float64]: ...
    def body_inertias(self) -> npt.NDArray[np.float64]:
        """(bodies, 3, 3) inertia about each centre of mass, world axes."""
    @property
    def body_parents(self) -> List[int]: ...
    def ctrl_ranges(self) -> npt.NDArray[np.float64]:
        """(actuators, 2) control ranges, +-inf where unlimited."""
    def contact_wrenches(self) -> npt.NDArray[np.float64]:
        """(bodies, 6) last step's contact [torque about the centre of mass, force], world axes."""
    def __reduce__(self) -> Any: ...

class Batch:
    """n copies of a world stepped together on rayon's threads, the interpreter's lock released."""

    def __init__(
        self,
        scene: Union[_Path, World],
        n: int,
        method: Optional[str] = None,
        *,
        dt: Optional[float] = None,
        overrides: Optional[_Overrides] = None,
    ) -> None: ...
    def __len__(self) -> int: ...
    def step(self, ctrl: Optional[npt.ArrayLike] = None, n: int = 1) -> None:
        """Every world n steps; ctrl an (N, nu) array replaces the controls first."""
    def reset(self, indices: Optional[Sequence[int]] = None) -> None: ...
    def snapshot(self, i: int) -> Snapshot: ...
    def restore(self, snapshot: Snapshot, indices: Optional[Sequence[int]] = None) -> None: ...
    def set_qpos(self, qpos: npt.ArrayLike, indices: Optional[Sequence[int]] = None) -> None: ...
    def set_qvel(self, qvel: npt.ArrayLike, indices: Optional[Sequence[int]] = None) -> None: ...
    @property
    def ctrl(self) -> npt.NDArray[np.float64]: ...
    @ctrl.setter
    def ctrl(self, values: npt.ArrayLike) -> None: ...
    def qpos(self) -> npt.NDArray[np.float64]: ...
    def qvel(self) -> npt.NDArray[np.float64]: ...
    def sensordata(self) -> npt.NDArray[np.float64]: ...
    def time(self) -> npt.NDArray[np.float64]: ...
    def actuator_forces(self) -> npt.NDArray[np.float64]: ...
    def act(self) -> npt.NDArray[np.float64]: ...
    def positions(self) -> npt.NDArray[np.float64]: ...
    def quaternions(self) -> npt.NDArray[np.float64]: ...
    def centers_of_mass(self) -> npt.NDArray[np.float64]: ...
    def velocities(self) -> npt.NDArray[np.float64]: ...
    def angular_velocities(self) -> npt.NDArray[np.float64]: ...
    def body_inertias(self) -> npt.NDArray[np.float64]: ...
    def contact_wrenches(self) -> npt.NDArray[np.float64]: ...
    def body_masses(self) -> npt.NDArray[np.float64]: ...
    def world(self, i: int) -> World:
        """A World holding a copy of world i."""
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    @property
    def nu(self) -> int: ...
    @property
    def nsensordata(self) -> int: ...
    @property
    def dt(self) -> float: ...
    @property
    def method(self) -> str: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def joint_names(self) -> List[str]: ...
    @property
    def actuator_names(self) -> List[str]: ...
    @property
    def sensor_names(self) -> List[str]: ...
    @property
    def qpos_names(self) -> List[str]: ...
    @property
    def qvel_names(self) -> List[str]: ...
    def __reduce__(self) -> Any: ...

def run(
    scene: _Path,
    *,
    method: Optional[str] = None,
    dt: Optional[float] = None,
    duration: Optional[float] = None,
    out: Optional[_Path] = None,
    overrides: Optional[_Overrides] = None,
    frame_every: Optional[int] = None,
    check_intersections: bool = False,
) -> Dict[str, Any]:
    """Run a scene like `cairn run`; returns the summary.json object."""

def validate(
    method: str = "lcp", *, only: Optional[Sequence[str]] = None, overrides: Optional[_Overrides] = None
) -> List[Dict[str, Any]]:
    """The rows of `cairn validate`: experiment, expected, measured, tolerance, pass."""

def scenes() -> Dict[str, str]:
    """Bundled scenes: name -> description."""

def scenes_dir() -> pathlib.Path:
    """The bundled scenes' folder: $CAIRN_SCENES, else the package's scenes/, else ./scenes, else the source tree's."""

_Scenes = Union[_Path, Sequence[_Path], None]
_Methods = Union[str, Sequence[Optional[str]], None]
_Executor = Union[concurrent.futures.Executor, Literal["serial"], None]

@overload
def sweep(
    scenes: _Scenes = None,
    methods: _Methods = None,
    grid: Optional[Mapping[str, Sequence[_Value]]] = None,
    *,
    duration: Optional[float] = None,
    dt: Optional[float] = None,
    executor: _Executor = None,
    out: Optional[_Path] = None,
    texts: Optional[Mapping[str, str]] = None,
    bodies: Union[bool, Sequence[str]] = False,
    frame_every: Optional[int] = None,
    check_intersections: bool = False,
    as_frame: Literal[False] = False,
) -> List[Dict[str, Any]]:
    """Every scene × method × grid point through `run`, on `executor` (default: a local process pool; "serial":
    here): flat dicts (scene, method, grid keys, summary fields, error) in grid order, the same on every
    executor but for `wall_seconds`. Bad input raises SceneError naming the combination; a failed step gives a
    row with `error`."""

@overload
def sweep(
    scenes: _Scenes = None,
    methods: _Methods = None,
    grid: Optional[Mapping[str, Sequence[_Value]]] = None,
    *,
    duration: Optional[float] = None,
    dt: Optional[float] = None,
    executor: _Executor = None,
    out: Optional[_Path] = None,
    texts: Optional[Mapping[str, str]] = None,
    bodies: Union[bool, Sequence[str]] = False,
    frame_every: Optional[int] = None,
    check_intersections: bool = False,
    as_frame: Literal[True],
) -> Any:
    """The same rows as a pandas DataFrame (ImportError without pandas)."""

def ray_executor(**options: Any) -> concurrent.futures.Executor:
    """An Executor running each call as a Ray task (ray.init() unless initialised), for `sweep`."""
