"""The annotate stage's benchmark-wide step (settling printed and shown pairs) reads nothing
that only a computing run sets up: a benchmark compiled from cached units, or by worker
processes, holds the items a fresh single-process compile holds."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import FAST, run_inprocess

ARGS = (*FAST[1:], "render.max_logs=null")  # every log rendered: all preferred


def _items(bench: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in
                                   sorted((bench / "annotations").glob("*.jsonl")))).hexdigest()


def test_cached_and_parallel_compiles_settle_like_a_fresh_one(tmp_path: Path) -> None:
    stages = "stages=[library,persona,plan,simulate,annotate]"
    assert run_inprocess(tmp_path, *ARGS, stages, "name=fresh").rc == 0
    cached = run_inprocess(tmp_path, *ARGS, stages, "name=cached")
    assert cached.rc == 0 and "annotate" in cached.text
    parallel = run_inprocess(tmp_path, *ARGS, stages, "name=parallel", "workers=2",
                             "force=[annotate]")
    assert parallel.rc == 0, parallel.text[-2000:]
    bench = tmp_path / "benchmarks"
    assert _items(bench / "cached") == _items(bench / "fresh") == _items(bench / "parallel")


def test_units_forked_from_this_process_settle_like_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``workers=0`` hands annotate's units after the first to forked children (the probe
    and a pool's price set to nothing here): the published items are those of one process."""
    import xlebench.runner.runner as R

    stages = "stages=[library,persona,plan,simulate,annotate]"
    assert run_inprocess(tmp_path, *ARGS, stages, "name=one", "workers=1").rc == 0
    for name, value in (("cores", lambda: 2), ("PROBE_S", 0.0), ("POOL_START_S", 0.0),
                        ("UNIT_COST_S", 0.0)):
        monkeypatch.setattr(R, name, value)
    forked = run_inprocess(tmp_path, *ARGS, stages, "name=forked", "workers=0",
                           "force=[annotate]")
    assert forked.rc == 0, forked.text[-2000:]
    assert "annotate:" in forked.text and "the rest over 2 workers" in forked.text
    bench = tmp_path / "benchmarks"
    assert _items(bench / "forked") == _items(bench / "one")
