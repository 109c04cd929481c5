"""Shared helpers of cairn's Python tests (run from anywhere: the bundled scenes are found by name)."""

import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def state_bits(world):
    """Every body's pose, velocity and angular velocity, as the bits of their floats."""
    return np.concatenate(
        [
            world.poses().reshape(-1),
            world.velocities().reshape(-1),
            world.angular_velocities().reshape(-1),
        ]
    ).view(np.uint64)


def run_bits(world, steps):
    """Steps `world` one step at a time, returning the state's bits after each."""
    out = []
    for _ in range(steps):
        world.step()
        out.append(state_bits(world))
    return out


@pytest.fixture
def repo():
    return REPO
