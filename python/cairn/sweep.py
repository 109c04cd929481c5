"""Parameter sweeps: every scene × method × grid point through `cairn.run`, on any executor, as one table.

    import cairn
    rows = cairn.sweep(["incline"], ["lcp", "impulse"], grid={"material.0.friction": [0.2, 0.5]}, duration=0.5)
    df = cairn.sweep(..., as_frame=True)                        # a pandas DataFrame, the same rows

Each run happens in a worker of `executor` (default: a local process pool); the table comes back in grid order
and equals a serial run's, `wall_seconds` aside. See `sweep` for the columns and the error contract.
"""

import concurrent.futures as cf
import itertools
import multiprocessing
import os
import pathlib
import tempfile
import warnings

from ._cairn import CairnError, SceneError, SimulationError, run

_VECTOR = {3: "xyz", 4: "wxyz"}  # suffixes of flattened 3-vectors and [w, x, y, z] quaternions
_ERRORS = {"SceneError": SceneError, "SimulationError": SimulationError, "CairnError": CairnError}


def sweep(
    scenes=None,
    methods=None,
    grid=None,
    *,
    duration=None,
    dt=None,
    executor=None,
    out=None,
    texts=None,
    bodies=False,
    frame_every=None,
    check_intersections=False,
    as_frame=False,
):
    """Runs every combination of scene × method × grid point like `cairn.run` and returns one row per run.

    scenes: a bundled scene's name or a file path, or a sequence of them. A path travels as a path, so a worker
        must see the same file (a shared folder); a bundled name works wherever cairn is installed.
    texts: {label: scene text (TOML)}, more scenes given as text; each worker writes it to a temporary .toml
        file (mesh paths in it must then be absolute). Listed after `scenes`, with `label` as their scene.
    methods: a method key or a sequence of them (see `cairn.METHODS`); None runs each scene's own method.
    grid: {dotted override key: [values]} — the keys of `cairn.run(overrides=...)` and the command line's
        `--set`, e.g. {"material.0.friction": [0.2, 0.5], "solver.lcp.iterations": [20, 50]}; every
        combination of values is a grid point, the last key varying fastest.
    duration, dt, frame_every, check_intersections: as in `cairn.run`, for every run.
    out: a folder; run i writes its trajectory.npy, metrics.csv and summary.json into out/NNN-scene-method
        (the row's `out`). Workers must see the folder.
    executor: any `concurrent.futures.Executor` — `distributed.Client(...).get_executor()` for Dask,
        `cairn.ray_executor()` for Ray — or "serial" (in this process, one after another). None: a
        process pool of spawned workers (one per core, at most one per run, each stepping on one thread);
        a script that uses it must guard its top level with `if __name__ == "__main__":`.
    bodies: per-body columns of the final state: False (none), True (every body), a body's name or a sequence
        of names, as `NAME.position.x`, `NAME.rotation.w`, `NAME.velocity.z`, `NAME.max_displacement`, ...
    as_frame: return a pandas DataFrame of the same rows (ImportError when pandas is missing).

    Returns a list of dicts, one per run, in order (scenes, then methods, then grid points), each with the same
    keys: `scene` (as given, or the text's label), `method` (the scene's own where `methods` is None), each grid
    key with its value, the summary's fields flattened — `completed`, `dt`, `max_displacement`, `max_drift`,
    `max_penetration`, `notes` (joined with "; "), `steps`, `time`, `wall_seconds` (the one field that differs
    between identical runs) — then the per-body columns asked for, `error` (None for a run that completed) and,
    with `out`, `out`. Every executor gives the same table, bit for bit but for `wall_seconds`.

    Errors: bad input — an unknown scene, method or override key, a value a key refuses, an output folder that
    cannot be written — raises `SceneError` (or `CairnError`) naming the combination, once a worker reports it:
    the runs not yet started are cancelled, those running finish, and the first bad combination in grid order
    is the one named. A run that fails while stepping (`SimulationError`) does not stop the sweep: its row has
    `error` ("SimulationError: ..."), `completed` False and None in the summary's other fields. A grid that is
    not {key: [values]} raises TypeError or ValueError before anything runs.
    """
    jobs = _jobs(scenes, texts, methods, grid)
    if isinstance(bodies, str):
        bodies = [bodies]
    common = dict(duration=duration, dt=dt, frame_every=frame_every, check_intersections=check_intersections)
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
    args = []
    for i, (label, scene, text, method, point) in enumerate(jobs):
        folder = None if out is None else str(out / f"{i:03d}-{_slug(label)}-{method or 'default'}")
        args.append((label, scene, text, method, point, folder, common, bodies))
    rows = _same_columns(_map(_run_one, args, executor))
    return _frame(rows) if as_frame else rows


def _jobs(scenes, texts, methods, grid):
    """The combinations, in table order: (label, scene path or name, text or None, method, {key: value})."""
    if isinstance(scenes, (str, os.PathLike)):
        scenes = [scenes]
    items = [(str(s), os.fspath(s), None) for s in (scenes or [])]
    items += [(str(label), None, str(text)) for label, text in (texts or {}).items()]
    if not items:
        raise ValueError("sweep: no scenes (give `scenes` or `texts`)")
    if methods is None or isinstance(methods, str):
        methods = [methods]
    grid = dict(grid or {})
    for key, values in grid.items():
        if not isinstance(key, str) or isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"sweep: grid entry `{key}` must map a dotted key to a list of values, got {values!r}")
        grid[key] = [v.item() if getattr(v, "ndim", None) == 0 else v for v in values]  # numpy scalars → Python
        if not grid[key]:
            raise ValueError(f"sweep: grid key `{key}` has no values")
    points = [dict(zip(grid, combo)) for combo in itertools.product(*grid.values())]
    return [(label, scene, text, m, p) for label, scene, text in items for m in methods for p in points]


def _map(fn, args, executor):
    """fn over args on the executor, results in order; bad input stops the sweep and raises."""
    if executor == "serial":
        return [_check(fn(a)) for a in args]
    own = executor is None
    if own:
        workers = max(1, min(len(args), os.cpu_count() or 1))
        ctx = multiprocessing.get_context("spawn")  # no fork of a process whose rayon threads may hold locks
        executor = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_one_thread)
    try:
        futures = [executor.submit(fn, a) for a in args]
        pending = set(futures)
        while pending:  # as they finish, so that bad input stops the sweep early
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            if any(f.result()[0] == "raise" for f in done):
                for p in pending:
                    p.cancel()  # those not started; the running ones finish
                cf.wait([f for f in futures if not f.cancelled()])
                break
        # in grid order: the first bad combination is the one named, whichever finished first
        return [_check(f.result()) for f in futures if not f.cancelled()]
    finally:
        if own:
            executor.shutdown(wait=True, cancel_futures=True)


def _same_columns(rows):
    """Every row with every column (a failed run has no per-body ones): None where a row lacks one; the
    error and the output folder last."""
    keys = dict.fromkeys(k for r in rows for k in r if k not in ("error", "out"))
    keys.update(dict.fromkeys(k for k in ("error", "out") if any(k in r for r in rows)))
    return [{k: r.get(k) for k in keys} for r in rows]


def _check(result):
    """A worker's ("row", row) → row; ("raise", error class name, message) → that error, raised."""
    if result[0] == "raise":
        raise _ERRORS.get(result[1], CairnError)(result[2])
    return result[1]


def _one_thread():
    """Process-pool initializer: one run per core, so each run steps on one rayon thread."""
    os.environ.setdefault("RAYON_NUM_THREADS", "1")


def _run_one(arg):
    """One combination, in a worker: ("row", row) or ("raise", error class, message). Module-level, so that it
    pickles by reference to any executor."""
    label, scene, text, method, point, folder, common, bodies = arg
    where = f"sweep: scene `{label}`, method `{method or 'default'}`"
    where += "".join(f", {k} = {v!r}" for k, v in point.items())
    row = {"scene": label, "method": method, **point}
    try:
        with warnings.catch_warnings():  # the loader's notes warn; the row's `notes` has them
            warnings.simplefilter("ignore", UserWarning)
            if text is None:
                summary = run(scene, method=method, overrides=point or None, out=folder, **common)
            else:
                with tempfile.TemporaryDirectory() as tmp:
                    path = pathlib.Path(tmp) / f"{_slug(label)}.toml"
                    path.write_text(text)
                    summary = run(str(path), method=method, overrides=point or None, out=folder, **common)
    except SimulationError as e:
        row.update(dict.fromkeys(_SUMMARY), completed=False, error=f"SimulationError: {e}")
    except CairnError as e:  # bad input or an unwritable output: the sweep is wrong, not this run
        return ("raise", type(e).__name__, f"{where}: {e}")
    else:
        row["method"] = summary.get("method", method)
        row.update(_flatten(summary, bodies), error=None)
    if folder is not None:
        row["out"] = folder
    return ("row", row)


# the summary's fields, for the row of a run that failed
_SUMMARY = (
    "completed", "dt", "max_displacement", "max_drift", "max_penetration", "notes", "steps", "time", "wall_seconds",
)


def _flatten(summary, bodies):
    """The summary as flat columns: scalars as they are, lists of numbers as `.x .y .z` (or indices),
    notes joined; per-body fields only for the bodies asked for."""
    flat = {}
    for key, value in summary.items():
        if key == "notes":
            flat[key] = "; ".join(map(str, value))
        elif key not in ("scene", "method", "bodies"):  # the row's own scene (as given) and method come first
            _put(flat, key, value)
    for body in summary.get("bodies", []):  # after the run's fields
        if bodies is True or (bodies and body.get("name") in bodies):
            for field, v in body.items():
                if field != "name":
                    _put(flat, f"{body['name']}.{field}", v)
    return flat


def _put(flat, key, value):
    if isinstance(value, dict):
        for k, v in value.items():
            _put(flat, f"{key}.{k}", v)
    elif isinstance(value, (list, tuple)):
        names = _VECTOR.get(len(value), range(len(value)))
        for n, v in zip(names, value):
            _put(flat, f"{key}.{n}", v)
    else:
        flat[key] = value


def _slug(label):
    """A file-name-safe form of a scene's label (its stem for a path)."""
    stem = pathlib.Path(label).stem or "scene"
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)


def _frame(rows):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("sweep(..., as_frame=True) needs pandas (pip install pandas, or cairn[dask])") from e
    return pandas.DataFrame(rows)


class _RayExecutor(cf.Executor):
    """A minimal Executor over Ray tasks: submit runs fn as a remote task and returns its ObjectRef's
    `concurrent.futures.Future`."""

    def __init__(self, ray, options):
        self._ray, self._options, self._remote = ray, options, {}

    def submit(self, fn, /, *args, **kwargs):
        if fn not in self._remote:  # register each function once
            task = self._ray.remote(fn)
            self._remote[fn] = task.options(**self._options) if self._options else task
        return self._remote[fn].remote(*args, **kwargs).future()


def ray_executor(**options):
    """A `concurrent.futures.Executor` that runs each call as a Ray task, for `sweep(executor=...)`; Ray is
    initialised (`ray.init()`, a local cluster) unless it already is. `options` are Ray's task options
    (`num_cpus=1`, `resources={...}`)."""
    import ray

    if not ray.is_initialized():
        ray.init()
    return _RayExecutor(ray, options)
