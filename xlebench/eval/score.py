"""Score predictions against task items: one row per item, with failures handled as the paper.

A reply that is empty, a refusal or a "no information" answer (configurable patterns), or that
cannot be parsed into what its subtask needs, is **failed**: it is excluded from the main
columns (as the paper does) and counted, and it scores 0 in the ``robust`` columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xlebench.eval.metrics import (
    PRIMARY,
    counting_accuracy,
    finite,
    kendall_tau,
    position_accuracy,
    recall_grid,
    rouge_l,
)
from xlebench.eval.parse import (
    DEFAULT_FAILURE_PATTERNS,
    is_failure,
    parse_counts,
    parse_order,
    parse_spans,
)

SUMMARY = ("single_summary", "multi_summary", "holistic_summary")
LOCALISATION = ("object_retrieval", "people_retrieval", "moment_retrieval")


@dataclass(frozen=True)
class ScoreSettings:
    ks: tuple[int, ...] = (1, 5)
    tious: tuple[float, ...] = (0.3, 0.5)
    failure_patterns: tuple[str, ...] = DEFAULT_FAILURE_PATTERNS
    bertscore: bool = True


def _metrics_for(item: dict, response: str, s: ScoreSettings) -> dict[str, float] | None:
    """Metric values, or None when the response is unparseable for this subtask."""
    sub, ans = item["subtask"], item["answer"]
    if sub in LOCALISATION:
        spans = parse_spans(response)
        return recall_grid(spans, ans["spans"], s.ks, s.tious) if spans else None
    if sub in SUMMARY:
        return {"rougeL": rouge_l(response, ans["text"])}
    if sub == "action_counting":
        counts = parse_counts(response, list(ans["counts"]))
        return {"count_acc": counting_accuracy(counts, ans["counts"])} if counts else None
    if sub == "summary_ordering":
        # Numbers that are not summary indices (a clock time, a year) make no order.
        order = [i for i in parse_order(response) if 0 <= i < len(ans["order"])]
        if not order:
            return None
        return {"position_acc": position_accuracy(order, ans["order"]),
                "kendall_tau": kendall_tau(order, ans["order"])}
    raise ValueError(f"unknown subtask {sub!r}")


def _zeros(item: dict, s: ScoreSettings) -> dict[str, float]:
    sub = item["subtask"]
    if sub in LOCALISATION:
        return {k: 0.0 for k in recall_grid([], [(0, 1)], s.ks, s.tious)}
    if sub in SUMMARY:
        return {"rougeL": 0.0, **({"bertscore_f1": 0.0} if s.bertscore else {})}
    if sub == "action_counting":
        return {"count_acc": 0.0}
    return {"position_acc": 0.0, "kendall_tau": -1.0}


def score_items(items: Sequence[dict], responses: dict[str, str], s: ScoreSettings,
                bertscorer: Any = None) -> list[dict[str, Any]]:
    rows = []
    for item in items:
        response = responses.get(item["item_id"])
        row: dict[str, Any] = {"item_id": item["item_id"], "subtask": item["subtask"],
                               "lifelog_id": item["lifelog_id"], "category": item["category"],
                               "primary": PRIMARY[item["subtask"]]}
        if response is None:
            row.update(status="missing", scores={}, robust=_zeros(item, s))
        elif is_failure(response, s.failure_patterns):
            row.update(status="failed", scores={}, robust=_zeros(item, s))
        else:
            scores = _metrics_for(item, response, s)
            if scores is None:
                row.update(status="unparseable", scores={}, robust=_zeros(item, s))
            else:
                row.update(status="ok", scores=scores, robust=dict(scores))
        row["response"] = response
        rows.append(row)
    if s.bertscore and bertscorer is not None:
        _add_bertscore(rows, items, bertscorer)
    for row in rows:  # undefined values (tau over < 2 summaries) are null, never NaN
        for key in ("scores", "robust"):
            row[key] = {m: (v if finite(v) else None) for m, v in row[key].items()}
    return rows


def _add_bertscore(rows: list[dict], items: Sequence[dict], scorer: Any) -> None:
    todo = [(r, it) for r, it in zip(rows, items, strict=True)
            if it["subtask"] in SUMMARY and r["status"] == "ok"]
    if not todo:
        return
    f1 = scorer.f1([r["response"] for r, _ in todo], [it["answer"]["text"] for _, it in todo])
    for (r, _), v in zip(todo, f1, strict=True):
        r["scores"]["bertscore_f1"] = v
        r["robust"]["bertscore_f1"] = v

