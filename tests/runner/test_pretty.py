"""The fast published-JSON encoder gives the standard library's bytes, errors included."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from xlebench.runner.pretty import _reference_dumps, pretty_dumps

ALPHABET = "ab \"\\\n\t/é漢😀\x00\x1f,:{}[]"


def _value(rng: random.Random, depth: int):
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-10**20, 10**20)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1e16, 1e-7, 0.1, 2.5, -3.75e300, rng.random() * 1e6])
    if kind in (4, 5):
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(6)))
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    return {"".join(rng.choice(ALPHABET) for _ in range(rng.randrange(4))):
            _value(rng, depth + 1) for _ in range(rng.randrange(5))}


@pytest.mark.parametrize("seed", range(300))
def test_random_documents_encode_to_the_same_bytes(seed: int) -> None:
    doc = _value(random.Random(seed), 0)
    assert pretty_dumps(doc) == _reference_dumps(doc)


def test_shared_containers_are_encoded_once_per_level_with_the_same_bytes() -> None:
    chunk = {"chunk_id": "c1", "scenarios": ["cooking", "eating"], "start_s": 3600}
    rest = [{"x": 1}, []]
    doc = {"a": [chunk, chunk, {"deeper": [chunk]}], "b": chunk, "c": rest, "d": [rest]}
    assert pretty_dumps(doc) == _reference_dumps(doc)


def test_what_only_the_standard_encoder_handles_goes_to_it() -> None:
    for doc in ({1: "int key", 2.5: [True]}, {"x": (1, {False: None})}):
        assert pretty_dumps(doc) == _reference_dumps(doc)


@pytest.mark.parametrize("bad", [
    {"x": math.nan}, {"x": [math.inf]}, {1: "int", "a": "str keys"}, {"x": np.float32(1.5)},
    {"x": {1, 2}}])
def test_what_json_refuses_is_refused_with_its_error(bad) -> None:
    with pytest.raises((ValueError, TypeError)) as expected:
        _reference_dumps(bad)
    with pytest.raises(expected.type, match=str(expected.value)[:20]):
        pretty_dumps(bad)


def test_circular_documents_are_refused() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        pretty_dumps({"x": loop})


def test_a_real_life_log_round_trips() -> None:
    from xlebench.plan.chunks import PlanChunk
    from xlebench.plan.reflect import Revision, shared_chunk_dicts

    chunks = [PlanChunk(f"c{i}", 3600 * i, 3600 * i + 900, "cooking", "I cook dinner",
                        ("cooking",), "indoor", "day", "meal", i % 2) for i in range(12)]
    revisions = [Revision(i, 3600 * i, chunks[i + 1:], chunks[i + 1:], ["shifted"])
                 for i in range(11)]
    shared = [r.to_dict(shared_chunk_dicts()) for r in revisions]
    plain = [r.to_dict() for r in revisions]
    assert pretty_dumps(shared) == _reference_dumps(plain)
    assert json.loads(pretty_dumps(shared)) == plain
