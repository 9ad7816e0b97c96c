"""Temporal localisation: Recall@K at tIoU t (official Ego4D NLQ semantics), and its blind
panel — windows placed without seeing the video."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.metrics import recall_grid, top1_iou
from xlebench.eval.parse import parse_spans
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings
from xlebench.eval.scorers.learned import NEIGHBOURS, READS, fit_nearest, nearest

#: Relative positions inside the queried period are binned this finely by the position prior.
BINS = 20


def _period(item: dict) -> tuple[float, float]:
    return float(item["period"]["start_s"]), float(item["period"]["end_s"])


def answer_widths(items: Sequence[dict]) -> np.ndarray:
    """Widths of every answer span of the given items (1 s when there is none)."""
    return np.asarray([max(0.0, b - a) for it in items for a, b in it["answer"]["spans"]]
                      or [1.0])


def _draw(item: dict, widths: np.ndarray, k: int, ctx: BlindContext) -> np.ndarray:
    """``draws`` x ``k`` x 2 windows placed uniformly inside the queried period."""
    lo, hi = _period(item)
    w = np.minimum(ctx.rng.choice(widths, size=(ctx.draws, k)), hi - lo)
    starts = lo + ctx.rng.random((ctx.draws, k)) * (hi - lo - w)
    return np.stack([starts, starts + w], axis=-1)


def _recall_draws(windows: np.ndarray, gt: Sequence[Sequence[float]], s) -> dict[str, float]:
    """Mean over draws of the Recall@K grid (`xlebench.eval.metrics.tiou` semantics,
    vectorised: well-formed windows and spans only, the others count as misses)."""
    g = np.asarray([(a, b) for a, b in gt if b >= a], dtype=float).reshape(-1, 2)
    if not len(g):
        return {f"R@{k},{t:g}": 0.0 for k in s.ks for t in s.tious}
    p = windows[..., None, :]  # draws x k x 1 x 2
    inter = np.clip(np.minimum(p[..., 1], g[:, 1]) - np.maximum(p[..., 0], g[:, 0]), 0, None)
    union = np.maximum(p[..., 1], g[:, 1]) - np.minimum(p[..., 0], g[:, 0])
    iou = np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0).max(-1)
    grid = {f"R@{k},{t:g}": float((iou[:, :k] > t).any(1).mean()) for k in s.ks for t in s.tious}
    return {**grid, MIOU: float(iou[:, 0].mean())}


#: Mean tIoU of the top-ranked window (the official NLQ evaluator's mIoU).
MIOU = "mIoU"


def span_metrics(pred: Sequence, gt: Sequence, s: ScoreSettings) -> dict[str, float]:
    """The Recall@K grid and the top-1 window's tIoU."""
    return {**recall_grid(pred, gt, s.ks, s.tious), MIOU: top1_iou(pred, gt)}


def random_windows(item: dict, widths: np.ndarray, k: int, ctx: BlindContext,
                   score=None) -> dict[str, float]:
    """Expected metric values of ``k`` windows placed uniformly inside the queried period,
    widths drawn from ``widths``; ``score(pred, gt)`` gives the metrics per draw (the
    Recall@K grid, vectorised over draws, by default)."""
    windows = _draw(item, widths, k, ctx)
    if score is None:
        return _recall_draws(windows, item["answer"]["spans"], ctx.settings)
    total: Counter = Counter()
    for draw in windows:
        total.update(score([tuple(w) for w in draw], item["answer"]["spans"]))
    return {m: v / ctx.draws for m, v in total.items()}


def fit_positions(train: Sequence[dict]) -> dict:
    """Where answers sit in their periods on other life logs: the most frequent relative
    start bins (most frequent first) and the median width."""
    bins: Counter = Counter()
    for it in train:
        lo, hi = _period(it)
        for a, _ in it["answer"]["spans"]:
            bins[min(BINS - 1, int(BINS * (a - lo) / max(hi - lo, 1e-9)))] += 1
    ranked = [b for b, _ in sorted(bins.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {"bins": ranked or [0], "width": float(np.median(answer_widths(train)))}


def prior_windows(item: dict, model: dict, k: int) -> list[tuple[float, float]]:
    """``k`` windows of the prior's width at the prior's most frequent relative starts."""
    lo, hi = _period(item)
    w = min(model["width"], hi - lo)
    starts = [lo + (b + 0.5) / BINS * (hi - lo) for b in model["bins"][:k]]
    return [(min(a, hi - w), min(a, hi - w) + w) for a in starts]


def fit_plan_positions(train: Sequence[dict], _public: Any) -> dict:
    """`fit_positions` (the answers' widths, and the prior where the plan says nothing)."""
    return fit_positions(train)


def plan_windows(item: dict, model: dict, k: int, public: Any) -> list[tuple[float, float]]:
    """``k`` windows of the prior's width spread evenly over the part of the period the plan
    chunk most like the question covers (where the plan puts the asked activity); the
    position prior's where no chunk of the period is like it."""
    lo, hi = _period(item)
    c = public.chunk_like(item, item["query"], within=True) if public is not None else None
    if c is None:
        return prior_windows(item, model, k)
    a, b = max(lo, float(c["start_s"])), min(hi, float(c["end_s"]))
    w = min(model["width"], b - a)
    step = (b - a - w) / k
    return [(a + step * (j + 0.5), a + step * (j + 0.5) + w) for j in range(k)]


def _question(item: dict) -> str:
    """The query without its clock times: one annotation's question in every log."""
    return re.sub(r"\d+", "#", item["query"])


def fit_memory(train: Sequence[dict]) -> dict:
    """Other logs' answers by question: offsets from their period's start (and the period's
    length, to prefer a record of the same length: the same video), with the position prior
    for questions never seen."""
    seen: dict[str, list[tuple[float, list[tuple[float, float]]]]] = {}
    for it in train:
        lo, hi = _period(it)
        offsets = [(a - lo, b - lo) for a, b in it["answer"]["spans"]]
        seen.setdefault(_question(it), []).append((hi - lo, offsets))
    return {"seen": seen, "prior": fit_positions(train)}


def memory_windows(item: dict, model: dict, k: int) -> list[tuple[float, float]]:
    """Windows at the offsets other logs' answers to the same question sat at, those of the
    nearest period length first, then the position prior's."""
    lo, hi = _period(item)
    remembered = sorted(model["seen"].get(_question(item), []),
                        key=lambda m: abs(m[0] - (hi - lo)))
    out = [(lo + a, lo + b) for _, offsets in remembered for a, b in offsets
           if lo + b <= hi + 1e-6]
    out = list(dict.fromkeys(out))[:k]
    return out + prior_windows(item, model["prior"], k - len(out)) if len(out) < k else out


def _learned_spans(item: dict, model: dict, ctx: BlindContext) -> dict[str, float]:
    lo, hi = float(item["period"]["start_s"]), float(item["period"]["end_s"])
    windows: list[tuple[float, float]] = []
    for o in nearest(item, model, ctx.public, NEIGHBOURS):
        a0, b0 = float(o["period"]["start_s"]), float(o["period"]["end_s"])
        span = max(b0 - a0, 1e-9)
        for a, b in o["answer"].get("spans") or ():
            windows.append((lo + (a - a0) / span * (hi - lo), lo + (b - a0) / span * (hi - lo)))
    k = max(ctx.settings.ks)
    windows = list(dict.fromkeys(windows))[:k]
    return span_metrics(windows, item["answer"]["spans"], ctx.settings)


def learned_spans() -> Blind:
    return Blind("learned", READS + "; the nearest items' answers at the same place in the "
                 "period", _learned_spans, fit_nearest, public=True)


class SpanRecall(Base):
    """Temporal localisation: Recall@K at tIoU t over the ``eval.ks`` x ``eval.tious`` grid,
    and mIoU (the top-ranked window's tIoU), as the official Ego4D NLQ evaluator prints.
    Blind panel: K random windows inside the queried period with widths of other life logs'
    answers; K windows at the relative positions where other logs' answers sit most often;
    the offsets of other logs' answers to the same question (question memory)."""

    kind = "spans"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        spans = parse_spans(reply)
        return span_metrics(spans, item["answer"]["spans"], s) if spans else None

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {k: 0.0 for k in span_metrics([], [(0, 1)], s)}

    def blind(self) -> Sequence[Blind]:
        def random(item: dict, widths: np.ndarray, ctx: BlindContext) -> dict[str, float]:
            return random_windows(item, widths, max(ctx.settings.ks), ctx)

        def prior(item: dict, model: dict, ctx: BlindContext) -> dict[str, float]:
            s = ctx.settings
            return span_metrics(prior_windows(item, model, max(s.ks)), item["answer"]["spans"],
                                s)
        def memory(item: dict, model: dict, ctx: BlindContext) -> dict[str, float]:
            s = ctx.settings
            return span_metrics(memory_windows(item, model, max(s.ks)),
                                item["answer"]["spans"], s)
        def plan(item: dict, model: dict, ctx: BlindContext) -> dict[str, float]:
            return span_metrics(plan_windows(item, model, max(ctx.settings.ks), ctx.public),
                                item["answer"]["spans"], ctx.settings)
        return (Blind("random_windows", "the period; other logs' answer widths", random,
                      answer_widths),
                Blind("plan_windows", "the question, the period and the life log's plan "
                      "(public): windows inside the plan chunk most like the question; "
                      "other logs' answer widths", plan, fit_plan_positions, public=True),
                Blind("position_prior", "the period; where other logs' answers sit", prior,
                      fit_positions),
                Blind("question_memory", "the question and period; where other logs' "
                      "answers to the same question sat", memory, fit_memory),
                learned_spans())
