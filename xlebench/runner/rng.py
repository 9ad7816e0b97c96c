"""Derived random generators: one per (seed, stage, unit), never a shared global stream.

Because each unit's generator depends only on its own identity, results do not change with
execution order, worker count or resumption.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np


def derive_seed(seed: int, *parts: str) -> int:
    """A 64-bit integer seed from the root seed and any number of labels."""
    h = hashlib.sha256(str(int(seed)).encode())
    for part in parts:
        h.update(b"\x00" + str(part).encode())
    return int.from_bytes(h.digest()[:8], "little")


def unit_rng(seed: int, *parts: str) -> np.random.Generator:
    """NumPy generator for one unit of work."""
    return np.random.default_rng(derive_seed(seed, *parts))


def unit_random(seed: int, *parts: str) -> random.Random:
    """Standard-library generator for one unit of work (for `choice`/`shuffle` on lists)."""
    return random.Random(derive_seed(seed, *parts))
