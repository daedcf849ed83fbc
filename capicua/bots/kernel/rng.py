"""The kernel's random stream: splitmix64 in a uint64 array of one element,
inlined into the jitted code that draws from it.

Every playout, deal and swap chain is seeded (:func:`seed_stream`), so the same
arguments give the same results.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit


@njit(inline="always")
def next_u64(s: Any) -> Any:
    """splitmix64 step; ``s`` is a uint64 array of one element."""
    z = s[0] + np.uint64(0x9E3779B97F4A7C15)
    s[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def below(s: Any, n: Any) -> Any:
    """Uniform int in [0, n) for 0 < n < 2**31."""
    return np.int64(((next_u64(s) >> np.uint64(33)) * np.uint64(n)) >> np.uint64(31))


@njit(inline="always")
def uniform(s: Any) -> Any:
    """Uniform float in [0, 1) (53 random bits)."""
    return np.float64(next_u64(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def seed_stream(s: Any, a: Any, b: Any, c: Any) -> None:
    """Start the stream ``s`` from three integers (a seed and two labels of what it draws)."""
    s[0] = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(b) * np.uint64(0xC2B2AE3D27D4EB4F)
    s[0] = s[0] ^ np.uint64(c) * np.uint64(0x165667B19E3779F9)
    next_u64(s)
    next_u64(s)


def seed63(seed: int) -> int:
    """A Python int as the non-negative int64 seed the jitted functions take."""
    return int(seed) & 0x7FFFFFFFFFFFFFFF
