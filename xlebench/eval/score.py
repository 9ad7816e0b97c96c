"""Score replies against task items: one row per item of the benchmark, whatever the reply.

Every item gets a status: ``ok`` (parsed and scored), ``missing`` (no reply), ``unparseable``
(nothing its subtask can read), ``no_information`` ("There is no information available…") or
``refusal`` (by the configured patterns). A row that is not ``ok`` carries each metric's worst
value, so the **headline** — the mean over every item of the benchmark — counts it as a wrong
answer: a system cannot score higher by answering less. The paper's protocol, which leaves
no-information replies and refusals out (never missing ones), is a second, labelled column
computed from the same rows (`xlebench.eval.table`).

Rows also carry a weight per metric: counting accuracy is pooled over queried actions as the
paper does (an item of five actions weighs five), with the per-item mean as a secondary metric.
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
from xlebench.eval.parse import parse_counts, parse_order, parse_spans, reply_status

SUMMARY = ("single_summary", "multi_summary", "holistic_summary")
LOCALISATION = ("object_retrieval", "people_retrieval", "moment_retrieval")
#: Statuses the paper's protocol leaves out of its averages.
PAPER_EXCLUDES = ("no_information", "refusal")
STATUSES = ("ok", "missing", "unparseable", "no_information", "refusal")


@dataclass(frozen=True)
class ScoreSettings:
    ks: tuple[int, ...] = (1, 5)
    tious: tuple[float, ...] = (0.3, 0.5)
    refusal_patterns: tuple[str, ...] = ()
    no_information_patterns: tuple[str, ...] = ()
    bertscore: bool = True


def metrics_for(item: dict, response: str, s: ScoreSettings) -> dict[str, float] | None:
    """Metric values of one parseable reply, or None when its subtask cannot read it."""
    sub, ans = item["subtask"], item["answer"]
    if sub in LOCALISATION:
        spans = parse_spans(response)
        return recall_grid(spans, ans["spans"], s.ks, s.tious) if spans else None
    if sub in SUMMARY:
        return {"rougeL": rouge_l(response, ans["text"])}
    if sub == "action_counting":
        counts = parse_counts(response, list(ans["counts"]))
        if not counts:
            return None
        acc = counting_accuracy(counts, ans["counts"])
        return {"count_acc": acc, "count_acc_item": acc}
    if sub == "summary_ordering":
        # Numbers that are not summary indices (a clock time, a year) make no order.
        order = [i for i in parse_order(response) if 0 <= i < len(ans["order"])]
        if not order:
            return None
        return {"position_acc": position_accuracy(order, ans["order"]),
                "kendall_tau": kendall_tau(order, ans["order"])}
    raise ValueError(f"unknown subtask {sub!r}")


def worst(item: dict, s: ScoreSettings) -> dict[str, float]:
    """What a wrong answer scores on every metric of the item's subtask."""
    sub = item["subtask"]
    if sub in LOCALISATION:
        return {k: 0.0 for k in recall_grid([], [(0, 1)], s.ks, s.tious)}
    if sub in SUMMARY:
        return {"rougeL": 0.0, **({"bertscore_f1": 0.0} if s.bertscore else {})}
    if sub == "action_counting":
        return {"count_acc": 0.0, "count_acc_item": 0.0}
    return {"position_acc": 0.0, "kendall_tau": -1.0}


def weights(item: dict) -> dict[str, float]:
    """Pooling weights that are not 1: counting accuracy weighs each queried action."""
    if item["subtask"] == "action_counting":
        return {"count_acc": float(len(item["answer"]["counts"]))}
    return {}


def score_items(items: Sequence[dict], responses: dict[str, str], s: ScoreSettings,
                bertscorer: Any = None) -> list[dict[str, Any]]:
    """One row per item: status, metric values (worst values unless ``ok``), weights."""
    rows = []
    for item in items:
        response = responses.get(item["item_id"])
        status = reply_status(response, s.refusal_patterns, s.no_information_patterns)
        scores = None if status else metrics_for(item, response, s)
        if status is None and scores is None:
            status = "unparseable"
        rows.append({"item_id": item["item_id"], "subtask": item["subtask"],
                     "lifelog_id": item["lifelog_id"], "category": item["category"],
                     "primary": PRIMARY[item["subtask"]], "status": status or "ok",
                     "scores": scores if scores is not None else worst(item, s),
                     "weights": weights(item), "response": response})
    if s.bertscore and bertscorer is not None:
        _add_bertscore(rows, items, bertscorer)
    for row in rows:  # undefined values (tau over < 2 summaries) are null, never NaN
        row["scores"] = {m: (v if finite(v) else None) for m, v in row["scores"].items()}
    return rows


def _add_bertscore(rows: list[dict], items: Sequence[dict], scorer: Any) -> None:
    todo = [(r, it) for r, it in zip(rows, items, strict=True)
            if it["subtask"] in SUMMARY and r["status"] == "ok"]
    if not todo:
        return
    f1 = scorer.f1([r["response"] for r, _ in todo], [it["answer"]["text"] for _, it in todo])
    for (r, _), v in zip(todo, f1, strict=True):
        r["scores"]["bertscore_f1"] = v
