"""Chance floors: what answering without looking scores, on the same items, with the same
metrics, the same rows and the same bootstrap as a system.

* temporal localisation — K random windows (K = the largest k of ``eval.ks``, as a system may
  give) inside the queried period, their widths drawn from the subtask's answer widths;
* counting — the most common count of the subtask's answers, for every listed action;
* ordering — a uniformly random permutation;
* summaries — one fixed generic summary, scored with ROUGE-L and BERTScore like any reply.

Random floors are averaged over ``eval.floor_draws`` draws per item, each drawn from a
generator seeded by (seed, item id): the floor is an expected value, reproducible from the
seed, and it does not depend on which other items are scored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.metrics import kendall_tau, position_accuracy, recall_grid
from xlebench.eval.score import LOCALISATION, SUMMARY, ScoreSettings, score_items
from xlebench.runner.rng import unit_rng

GENERIC_SUMMARY = "C carries out everyday activities and moves around."


def floor_rows(items: Sequence[dict], s: ScoreSettings, *, seed: int, draws: int,
               bertscorer: Any = None) -> list[dict]:
    """Rows shaped like `score_items` rows for a system that answers at chance."""
    widths = _answer_widths(items)
    modes = _modal_counts(items)
    rows = []
    for item in items:
        sub = item["subtask"]
        rng = unit_rng(seed, "floor", item["item_id"])
        if sub in LOCALISATION:
            scores = _random_windows(item, widths[sub], max(s.ks), s, rng, draws)
        elif sub == "summary_ordering":
            scores = _random_order(item, rng, draws)
        else:
            continue
        rows.append(_row(item, scores))
    text = [it for it in items if it["subtask"] in SUMMARY or it["subtask"] == "action_counting"]
    replies = {it["item_id"]: _fixed_reply(it, modes) for it in text}
    rows += score_items(text, replies, s, bertscorer)
    order = {it["item_id"]: k for k, it in enumerate(items)}
    return sorted(rows, key=lambda r: order[r["item_id"]])


def _row(item: dict, scores: dict[str, float]) -> dict:
    from xlebench.eval.metrics import PRIMARY
    from xlebench.eval.score import weights

    return {"item_id": item["item_id"], "subtask": item["subtask"],
            "lifelog_id": item["lifelog_id"], "category": item["category"],
            "primary": PRIMARY[item["subtask"]], "status": "ok", "scores": scores,
            "weights": weights(item), "response": None}


def _answer_widths(items: Sequence[dict]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for it in items:
        out[it["subtask"]] += [max(0.0, b - a) for a, b in it["answer"]["spans"]]
    return out


def _random_windows(item: dict, widths: list[float], k: int, s: ScoreSettings,
                    rng: np.random.Generator, draws: int) -> dict[str, float]:
    lo, hi = item["period"]["start_s"], item["period"]["end_s"]
    pool = np.asarray(widths or [1.0])
    total: Counter = Counter()
    for _ in range(draws):
        w = np.minimum(rng.choice(pool, size=k), hi - lo)
        starts = lo + rng.random(k) * (hi - lo - w)
        total.update(recall_grid(list(zip(starts, starts + w, strict=True)),
                                 item["answer"]["spans"], s.ks, s.tious))
    return {m: v / draws for m, v in total.items()}


def _random_order(item: dict, rng: np.random.Generator, draws: int) -> dict[str, float]:
    gt = item["answer"]["order"]
    acc = tau = 0.0
    for _ in range(draws):
        guess = [int(x) for x in rng.permutation(len(gt))]
        acc += position_accuracy(guess, gt)
        tau += kendall_tau(guess, gt)
    return {"position_acc": acc / draws, "kendall_tau": tau / draws}


def _modal_counts(items: Sequence[dict]) -> dict[str, int]:
    counts = Counter(n for it in items if it["subtask"] == "action_counting"
                     for n in it["answer"]["counts"].values())
    return {"action_counting": min(counts.most_common(), key=lambda kv: (-kv[1], kv[0]))[0]
            if counts else 1}


def _fixed_reply(item: dict, modes: dict[str, int]) -> str:
    if item["subtask"] == "action_counting":
        n = modes["action_counting"]
        return "; ".join(f"{a}: {n}" for a in item["answer"]["counts"])
    return GENERIC_SUMMARY
