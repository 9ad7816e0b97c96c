"""Reflection records store what changed: runs of shifted chunks and replaced chunks, never
full copies (a log's record stays linear in its chunks)."""

from __future__ import annotations

from dataclasses import replace

from xlebench.plan.chunks import PlanChunk
from xlebench.plan.reflect import Revision


def _chunk(k: int, start: int) -> PlanChunk:
    return PlanChunk(f"c{k:02d}", start, start + 600, f"activity {k}", f"C does {k}.",
                     ("Cooking",), "indoor", "daytime")


def test_a_revision_stores_runs_of_shifts_and_the_replaced_chunks() -> None:
    before = [_chunk(k, 36000 + 900 * k) for k in range(1, 9)]
    after = [replace(c, start_s=c.start_s + 120, end_s=c.end_s + 120) for c in before[:5]]
    after += [replace(before[5], start_s=before[5].start_s + 60, end_s=before[5].end_s + 60)]
    after += [_chunk(20, before[6].start_s), before[7]]
    rec = Revision(0, 36000, before, after, changes=["replaced c07"]).to_dict()
    assert rec["remaining"] == 8
    assert rec["shifted"] == [[0, 4, 120], [5, 5, 60]]
    assert [c["position"] for c in rec["changed"]] == [6]
    assert rec["changed"][0]["before"] == {"chunk_id": "c07", "activity": "activity 7",
                                           "start_s": before[6].start_s,
                                           "end_s": before[6].end_s}
    assert rec["changed"][0]["after"]["chunk_id"] == "c20"


def test_a_shift_that_changes_the_time_class_is_a_change() -> None:
    c = _chunk(1, 60000)
    moved = replace(c, start_s=c.start_s + 3600, end_s=c.end_s + 3600, time_class="twilight")
    rec = Revision(0, 59000, [c], [moved]).to_dict()
    assert rec["shifted"] == [] and rec["changed"][0]["after"]["time_class"] == "twilight"


def test_stored_revisions_keep_the_chunk_matched_next(tmp_path) -> None:
    """The engine pops the next chunk off the remaining list: it must not pop it off the
    stored revision (every published reflection once lacked its first chunk)."""
    import json

    from tests.conftest import FAST, run_inprocess

    assert run_inprocess(tmp_path, *FAST, "stages=[simulate]", "simulation.n_chunks=8",
                         "planner.min_chunks=16").rc == 0
    for path in (tmp_path / "benchmarks" / "demo" / "lifelogs").glob("*.json"):
        log = json.loads(path.read_text())
        n = len(log["segments"])
        assert [r["remaining"] for r in log["reflections"]] == list(range(n - 1, 0, -1))
        for r in log["reflections"]:
            assert all(c["after"] is not None for c in r["changed"])
