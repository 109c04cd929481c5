"""Snapshots: restore, pickle and JSON round trips continue bit for bit, for every method."""

import copy
import pickle

import pytest

import cairn
from conftest import run_bits

CASES = [
    ("stack10", "lcp", 40, 20),
    ("dominoes", "impulse", 40, 20),
    ("blocks4", "volumetric-penalty", 60, 30),
    ("abd_ramp", "abd", 15, 10),
]


@pytest.mark.parametrize("scene, method, before, after", CASES)
def test_restore_pickle_and_json_continue_bit_for_bit(scene, method, before, after):
    a = cairn.World.from_file(scene, method=method)
    a.step(before)
    snap = a.snapshot()
    assert (snap.scene, snap.method, snap.step) == (scene, method, before)
    pickled = pickle.dumps(snap)
    text = snap.to_json()
    straight = run_bits(a, after)

    # restored in place after running on
    a.restore(snap)
    assert a.steps == before and a.last_stats == {}
    assert _same(run_bits(a, after), straight)
    # a fresh world restored from the pickle
    b = cairn.World.from_file(scene, method=method)
    b.restore(pickle.loads(pickled))
    assert _same(run_bits(b, after), straight)
    # from the JSON text, and a deep copy
    for s in (cairn.Snapshot.from_json(text), cairn.Snapshot(text.encode()), copy.deepcopy(snap)):
        c = cairn.World.from_file(scene, method=method)
        c.restore(s)
        assert _same(run_bits(c, after), straight)


def _same(xs, ys):
    """Two runs' states, step by step, bit for bit."""
    return len(xs) == len(ys) and all((x == y).all() for x, y in zip(xs, ys))


def test_pickled_snapshot_survives_protocols():
    w = cairn.World.from_file("stack10")
    w.step(3)
    s = w.snapshot()
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        t = pickle.loads(pickle.dumps(s, protocol=proto))
        assert isinstance(t, cairn.Snapshot) and t.to_json() == s.to_json()
