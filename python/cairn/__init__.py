"""cairn: rigid bodies in contact, from Python.

Five contact methods behind one world and one scene format, with the state as numpy arrays::

    import cairn
    world = cairn.World.from_file("pyramid20", method="lcp")
    world.step(100)                  # the interpreter's lock is released while stepping
    poses = world.poses()            # (bodies, 3, 4): [R | p] of each body's reference frame
    print(world.time, world.last_stats["contacts"])

``cairn.run`` runs a scene like ``cairn run`` (and writes ``trajectory.npy``, ``metrics.csv`` and
``summary.json`` with ``out=``), ``cairn.validate`` returns the rows of ``cairn validate``, and
``cairn.scenes`` lists the bundled scenes. Errors are ``SceneError`` (bad input) and ``SimulationError``
(a step failed), both ``CairnError``, with the command line's messages.
"""

import pathlib as _pathlib

from ._cairn import (
    METHODS,
    Batch,
    CairnError,
    SceneError,
    SimulationError,
    Snapshot,
    World,
    __version__,
    run,
    scenes,
    scenes_dir,
    validate,
)
from .sweep import ray_executor, sweep
from ._cairn import _set_scenes_dir

# the bundled scenes: a copy in the wheel, a link to the repository's scenes/ in the source tree;
# $CAIRN_SCENES still comes first
_scenes = _pathlib.Path(__file__).parent / "scenes"
if _scenes.is_dir():
    _set_scenes_dir(_scenes)

__all__ = [
    "METHODS",
    "Batch",
    "CairnError",
    "SceneError",
    "SimulationError",
    "Snapshot",
    "World",
    "__version__",
    "ray_executor",
    "run",
    "scenes",
    "scenes_dir",
    "sweep",
    "validate",
]
