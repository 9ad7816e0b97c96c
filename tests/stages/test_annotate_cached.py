"""The annotate stage's benchmark-wide step (settling printed and shown pairs) reads nothing
that only a computing run sets up: a benchmark compiled from cached units, or by worker
processes, or by children forked from this one, holds the items a fresh single-process
compile holds."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import FAST, run_inprocess

ARGS = (*FAST[1:], "render.max_logs=null")  # every log rendered: all preferred


def _items(bench: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in
                                   sorted((bench / "annotations").glob("*.jsonl")))).hexdigest()


def test_cached_parallel_and_forked_compiles_settle_like_a_fresh_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked: ``workers=0`` hands annotate's units after the first to two children forked
    from this process (the probe and a pool's price set to nothing here)."""
    import xlebench.runner.runner as R

    stages = "stages=[library,persona,plan,simulate,annotate]"
    assert run_inprocess(tmp_path, *ARGS, stages, "name=fresh").rc == 0
    cached = run_inprocess(tmp_path, *ARGS, stages, "name=cached")
    assert cached.rc == 0 and "annotate" in cached.text
    parallel = run_inprocess(tmp_path, *ARGS, stages, "name=parallel", "workers=2",
                             "force=[annotate]")
    assert parallel.rc == 0, parallel.text[-2000:]
    for name, value in (("cores", lambda: 2), ("PROBE_S", 0.0), ("POOL_START_S", 0.0),
                        ("UNIT_COST_S", 0.0)):
        monkeypatch.setattr(R, name, value)
    forked = run_inprocess(tmp_path, *ARGS, stages, "name=forked", "workers=0",
                           "force=[annotate]")
    assert forked.rc == 0 and "the rest over 2 workers" in forked.text, forked.text[-2000:]
    bench = tmp_path / "benchmarks"
    assert _items(bench / "cached") == _items(bench / "fresh") == _items(bench / "parallel") \
        == _items(bench / "forked")
