"""A judge must pass a labelled dev set before its scores are printed (Neptune, appendix D.2).

Neptune chose its answer-equivalence metric on a dev set of question / reference / candidate
triples that people marked equivalent or not, reporting each metric's F1 on the "equivalent"
class (Gemini-1.5-pro 72.5, BEM 61.5, rule-based metrics lower). xlebench ships a small set of
its own, in the life-log domain (`xlebench/data/judge_dev.v1.jsonl`: counts, places, next
actions, orders, summaries, reasons; half equivalent, half near misses). Before the evaluate
stage prints a judge's column, the judge answers every pair (through the same cached client);
a judge whose F1 is below ``eval.judging.min_dev_f1`` is withheld and the table says why. The
rule metrics are measured on the same pairs, so the table can show what the judge adds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from xlebench.eval.judges.llm import BY_TEXT, METRICS, Judges
from xlebench.llm.client import Usage

DEV_SET = "judge_dev.v2.jsonl"


@cache
def dev_pairs() -> tuple[dict, ...]:
    text = resources.files("xlebench.data").joinpath(DEV_SET).read_text("utf-8")
    return tuple(json.loads(line) for line in text.splitlines() if line.strip())


def f1_accuracy(pred: Sequence[bool], gold: Sequence[bool]) -> dict[str, float]:
    """F1 of the "equivalent" class and accuracy."""
    tp = sum(p and g for p, g in zip(pred, gold, strict=True))
    fp = sum(p and not g for p, g in zip(pred, gold, strict=True))
    fn = sum(g and not p for p, g in zip(pred, gold, strict=True))
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    acc = sum(p == g for p, g in zip(pred, gold, strict=True)) / max(1, len(gold))
    return {"f1": round(f1, 4), "accuracy": round(acc, 4)}


def rules_on_dev() -> dict[str, dict[str, float]]:
    """The offline metrics as equivalence classifiers on the dev set: the short-answer rule
    (shape from the reference: a bare number is a count) and ROUGE-L >= 0.5."""
    from xlebench.eval.metrics import rouge_l
    from xlebench.eval.scorers.short import equivalent, parse_number

    pairs = dev_pairs()
    gold = [bool(p["equivalent"]) for p in pairs]

    def rule(p: dict) -> bool:
        ref = p["reference"].strip().rstrip(".")
        shape = {"shape": "count", "value": int(ref)} if ref.isdigit() else {"shape": "text"}
        if shape["shape"] == "count" and parse_number(p["candidate"]) is None:
            return False
        return bool(equivalent({**shape, "text": p["reference"]}, p["candidate"]))
    return {"answer_acc rule": {**f1_accuracy([rule(p) for p in pairs], gold), "n": len(pairs)},
            "rougeL >= 0.5": {**f1_accuracy([rouge_l(p["candidate"], p["reference"]) >= 0.5
                                             for p in pairs], gold), "n": len(pairs)}}


def fit_threshold(values: Sequence[float], gold: Sequence[bool]) -> float:
    """The cut (a value at or above which a pair is equivalent) with the best F1 on the
    labelled pairs; the lowest such cut among equals."""
    cuts = sorted(set(values))
    return max(cuts, key=lambda c: (f1_accuracy([v >= c for v in values], gold)["f1"], -c))


def _fold(pair: dict) -> int:
    """Pairs of one source item share a fold (its two pairs are not independent)."""
    return int(hashlib.sha256(pair.get("source", pair["question"]).encode()).hexdigest(), 16) % 2


def cross_fitted(values: Sequence[float], gold: Sequence[bool], folds: Sequence[int]
                 ) -> list[bool]:
    """Each pair classified at the threshold fitted on the other fold."""
    cut = {f: fit_threshold([v for v, g in zip(values, folds, strict=True) if g != f],
                            [x for x, g in zip(gold, folds, strict=True) if g != f])
           for f in set(folds)}
    return [v >= cut[f] for v, f in zip(values, folds, strict=True)]


def check_judges(judges: Judges, min_f1: float, usage: Usage) -> dict[str, Any]:
    """Per judge: its dev-set F1 and accuracy, how its verdict is read, the threshold a reply
    is equivalent at, and whether its scores may be printed."""
    pairs = dev_pairs()
    gold = [bool(p["equivalent"]) for p in pairs]
    out: dict[str, Any] = {"dev_set": DEV_SET, "n": len(pairs), "min_f1": min_f1,
                           "judges": {}, "rules": rules_on_dev()}
    for name in judges.names:
        values = [judges.score(name, p["question"], p["candidate"], p["reference"], usage)
                  for p in pairs]
        mode = judges.mode(name)
        fitted = mode == "P(TRUE)"
        threshold = fit_threshold(values, gold) if fitted else 0.5
        pred = cross_fitted(values, gold, [_fold(p) for p in pairs]) if fitted else \
            [v >= threshold for v in values]
        stats = f1_accuracy(pred, gold)
        out["judges"][name] = {**stats, "metric": METRICS[name], "mode": mode,
                               "threshold": round(threshold, 6),
                               "passed": stats["f1"] >= min_f1}
    return out


def check_lines(check: dict[str, Any] | None) -> list[str]:
    """Notes under a results table: each judge's dev-set result, beside the rules'."""
    if not check:
        return []
    rules = ", ".join(f"{k} F1 {100 * v['f1']:.1f}" for k, v in check["rules"].items())
    lines = []
    for name, j in check["judges"].items():
        verdict = "printed" if j["passed"] else "WITHHELD (below the threshold)"
        read = (f"read by P(TRUE) >= {j['threshold']:.3f}, fitted on the dev set, F1 "
                 "cross-fitted" if j.get("mode") == "P(TRUE)" else
                 f"read by its {j.get('mode', 'text')} verdict")
        lines.append(f"Judge {name} ({j['metric']}; {read}): dev-set F1 {100 * j['f1']:.1f}, "
                     f"accuracy {100 * j['accuracy']:.1f} on {check['n']} labelled pairs "
                     f"({check['dev_set']}; threshold F1 {100 * check['min_f1']:.0f}): "
                     f"{verdict}. Offline rules on the same pairs: {rules}.")
    read = check.get("read") or {}
    if read.get(BY_TEXT):
        lines.append(f"P(TRUE) verdicts read from their text: {read[BY_TEXT]} of "
                     f"{sum(read.values())} (the reply had no usable log-probabilities).")
    return lines
