"""Scoring rows and the Table 5 layout: exclusion of failed replies, robust column, pooling,
clustered bootstrap."""

from __future__ import annotations

import pytest

from xlebench.eval.score import ScoreSettings, score_items
from xlebench.eval.table import clustered_ci, results_table, to_markdown


def _item(i: int, sub: str, cat: str, log: str, **answer) -> dict:
    base = {"text": "", "spans": [], "counts": {}, "order": []}
    return {"item_id": f"{log}-{sub}-{i}", "subtask": sub, "lifelog_id": log, "category": cat,
            "answer": {**base, **answer}}


ITEMS = [
    _item(0, "object_retrieval", "short", "a", spans=[[100, 110]]),
    _item(1, "object_retrieval", "short", "b", spans=[[200, 210]]),
    _item(2, "object_retrieval", "long", "c", spans=[[300, 310]]),
    _item(3, "moment_retrieval", "short", "a", spans=[[0, 60], [120, 180]]),
    _item(4, "action_counting", "long", "c", counts={"cut onion": 2, "wash pan": 1}),
    _item(5, "summary_ordering", "long", "c", order=[2, 0, 1]),
    _item(6, "single_summary", "short", "a", text="C cooks pasta."),
]
RESPONSES = {
    "a-object_retrieval-0": "[00:01:41 - 00:01:49]",                 # hit
    "b-object_retrieval-1": "There is no information available.",    # failed: excluded
    "c-object_retrieval-2": "[00:00:00 - 00:00:05]",                 # miss
    "a-moment_retrieval-3": "[00:02:05 - 00:02:55], [00:00:00 - 00:00:01]",  # second GT span
    "c-action_counting-4": "cut onion: 2; wash pan: 3",
    "c-summary_ordering-5": "Correct order of the summaries: 2, 1, 0",
    "a-single_summary-6": "C cooks pasta.",
}


def test_rows_and_table() -> None:
    rows = score_items(ITEMS, RESPONSES, ScoreSettings(bertscore=False))
    status = {r["item_id"]: r["status"] for r in rows}
    assert status["b-object_retrieval-1"] == "failed"
    assert sum(s == "ok" for s in status.values()) == 6
    t = results_table(rows, n_boot=200, seed=1)
    obj = t["rows"]["object_retrieval"]
    assert (obj["short"]["mean"], obj["short"]["n"], obj["short"]["total"]) == (1.0, 1, 2)
    assert obj["short"]["robust_mean"] == 0.5 and obj["short"]["failed"] == 1
    assert (obj["all"]["mean"], obj["all"]["n"], obj["all"]["coverage"]) == (0.5, 2, 0.6667)
    assert t["rows"]["moment_retrieval"]["all"]["mean"] == 1.0
    assert t["rows"]["action_counting"]["all"]["mean"] == 0.5
    assert t["rows"]["summary_ordering"]["all"]["mean"] == pytest.approx(1 / 3, abs=1e-4)
    assert t["extra"]["summary_ordering"]["kendall_tau"]["all"]["mean"] == pytest.approx(1 / 3, abs=1e-4)
    assert t["rows"]["single_summary"]["all"]["mean"] == 1.0
    avg = t["rows"]["temporal localisation AVG"]["all"]
    assert (avg["mean"], avg["n"]) == (pytest.approx((0.5 * 2 + 1.0 * 1) / 3, abs=1e-4), 3)
    md = to_markdown(t, "demo")
    assert "| object_retrieval | R@5,0.3 | 100.0 (n=1)" in md and "(n=3)" in md


def test_missing_and_unparseable_replies_are_counted() -> None:
    rows = score_items(ITEMS[:2], {"a-object_retrieval-0": "somewhere in the kitchen"},
                       ScoreSettings(bertscore=False))
    assert [r["status"] for r in rows] == ["unparseable", "missing"]
    assert all(r["robust"]["R@5,0.3"] == 0.0 for r in rows)


def test_clustered_bootstrap_resamples_logs() -> None:
    values = [("a", 1.0)] * 10 + [("b", 0.0)] * 10 + [("c", 1.0)]
    lo, hi = clustered_ci(values, 500, seed=0)
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert clustered_ci(values, 500, seed=0) == (lo, hi), "seeded: reproducible"
    assert clustered_ci([("a", 1.0)], 100, 0) is None, "one cluster: no interval"
