"""Corpus metrics as ratios of sums: the same values as the textbook definitions, and a
bootstrap by matrix product that equals resampling and recomputing."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from xlebench.eval.metrics.cider import cider_d
from xlebench.eval.metrics.corpus import (
    cider_by_argument,
    cider_by_verb,
    cider_micro,
    class_averaged_accuracy,
    verb_recall_macro,
)
from xlebench.eval.table import _corpus_estimate

VERBS = ["cut", "wash", "open", "pour", "stir", "take"]
RELATIONS = ["Causes", "Reaction To", "Enables", "NoRelation"]


def _naive_verbs(details: list[dict], k: int = 5) -> float:
    hits: Counter = Counter()
    seen: Counter = Counter()
    for d in details:
        for gt, pred in d["events"]:  # every annotator's verbs: keys named twice or more
            for v in {v for v in gt if gt.count(v) >= 2}:
                seen[v] += 1
                hits[v] += v in pred[:k]
    return sum(hits[v] / seen[v] for v in seen) / len(seen) if seen else float("nan")


def _naive_relations(details: list[dict]) -> float:
    right: Counter = Counter()
    seen: Counter = Counter()
    for d in details:
        for gt, pred in d["relations"]:
            seen[gt] += 1
            right[gt] += gt == pred
    return sum(right[c] / seen[c] for c in seen) / len(seen)


def _rows(n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        # two annotators' verbs each: a verb both name is there twice (a recall key)
        events = [(rng.sample(VERBS, rng.randint(1, 2)) + rng.sample(VERBS, rng.randint(1, 2)),
                   rng.sample(VERBS, 5))
                  for _ in range(5)]
        relations = [(rng.choice(RELATIONS), rng.choice(RELATIONS)) for _ in range(4)]
        rows.append({"lifelog_id": f"log{i % 7}",
                     "details": {"events": events, "relations": relations}})
    return rows


@pytest.mark.parametrize(("metric", "naive"), [(verb_recall_macro, _naive_verbs),
                                               (class_averaged_accuracy, _naive_relations)])
def test_values_and_bootstrap_match_recomputing(metric, naive) -> None:
    rows = _rows(40)
    details = [r["details"] for r in rows]
    assert metric(details) == pytest.approx(naive(details), abs=1e-12)
    est = _corpus_estimate(rows, metric, n_boot=200, seed=11)
    # the naive bootstrap: same resamples of life logs, metric recomputed from scratch
    keys = sorted({r["lifelog_id"] for r in rows})
    picks = np.random.default_rng(11).integers(0, len(keys), size=(200, len(keys)))
    boots = [naive([r["details"] for i in p for r in rows if r["lifelog_id"] == keys[i]])
             for p in picks]
    lo, hi = np.nanpercentile(boots, [2.5, 97.5])
    assert est["ci95"] == (round(float(lo), 4), round(float(hi), 4))
    assert est["mean"] == round(naive(details), 4) and est["n"] == 40


def test_cider_micro_pools_slots_and_per_argument_reruns_cider_within_each_type() -> None:
    """VidSitu's C-Arg reruns CIDEr inside each argument type (document frequencies and N of
    that type's slots), then averages over types."""
    slots = [("Arg0", "the man", "the man"), ("Arg0", "a woman", "the man"),
             ("Arg0", "the man", "a man"), ("Arg1", "a cup", "a knife")]
    details = [{"roles": slots[:2]}, {"roles": slots[2:]}]
    scores = cider_d([p for *_, p in slots], [[g] for _, g, _ in slots])
    assert cider_micro(details) == pytest.approx(np.mean(scores))
    arg0 = cider_d([p for *_, p in slots[:3]], [[g] for _, g, _ in slots[:3]])
    arg1 = cider_d([slots[3][2]], [[slots[3][1]]])
    assert cider_by_argument(details) == pytest.approx(np.mean([np.mean(arg0), arg1[0]]))
    assert np.mean(arg0) != pytest.approx(np.mean(scores[:3]))  # not the corpus IDF
    assert np.isnan(cider_by_argument([]))


def test_cider_per_verb_averages_each_verbs_slots_then_the_verbs() -> None:
    """VidSitu's C-Vb: the slots grouped by their event's verb (slot[3]), CIDEr-D computed
    within each verb and averaged over verbs, whatever their argument types."""
    slots = [("Arg0", "the man", "the man", "cut"), ("Arg1", "a cup", "a knife", "cut"),
             ("Arg0", "the man", "a man", "cut"), ("Arg1", "a door", "a door", "open")]
    details = [{"roles": slots[:2]}, {"roles": slots[2:]}]
    cut = cider_d([s[2] for s in slots[:3]], [[s[1]] for s in slots[:3]])
    opened = cider_d([slots[3][2]], [[slots[3][1]]])
    assert cider_by_verb(details) == pytest.approx(np.mean([np.mean(cut), opened[0]]))
    assert cider_by_verb(details) != pytest.approx(cider_by_argument(details))
