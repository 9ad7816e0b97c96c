"""Corpus metrics as ratios of sums: the same values as the textbook definitions, and a
bootstrap by matrix product that equals resampling and recomputing."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from xlebench.eval.cider import cider_d
from xlebench.eval.corpus import (
    cider_by_argument,
    cider_by_verb,
    cider_micro,
    class_averaged_accuracy,
    lea_soft_cider,
    verb_recall_macro,
)
from xlebench.eval.table import _corpus_estimate

VERBS = ["cut", "wash", "open", "pour", "stir", "take"]
RELATIONS = ["Causes", "Reaction To", "Enables", "NoRelation"]


def _naive_verbs(details: list[dict], k: int = 5) -> float:
    hits: Counter = Counter()
    seen: Counter = Counter()
    for d in details:
        for gt, pred in d["events"]:
            for v in set(gt):
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
        events = [(rng.sample(VERBS, rng.randint(1, 2)), rng.sample(VERBS, 5))
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


def test_cider_micro_pools_slots_and_per_argument_averages_types() -> None:
    slots = [("Arg0", "the man", "the man"), ("Arg0", "a woman", "the man"),
             ("Arg0", "the man", "a man"), ("Arg1", "a cup", "a knife")]
    details = [{"roles": slots[:2]}, {"roles": slots[2:]}]
    scores = cider_d([p for *_, p in slots], [[g] for _, g, _ in slots])
    assert cider_micro(details) == pytest.approx(np.mean(scores))
    assert cider_by_argument(details) == pytest.approx(np.mean([np.mean(scores[:3]), scores[3]]))
    assert np.isnan(cider_by_argument([]))


def test_cider_per_verb_averages_each_verbs_slots_then_the_verbs() -> None:
    """VidSitu's C-Vb: the slots grouped by their event's verb (slot[3]), CIDEr-D averaged
    within each verb and then over verbs, whatever their argument types."""
    slots = [("Arg0", "the man", "the man", "cut"), ("Arg1", "a cup", "a knife", "cut"),
             ("Arg0", "the man", "a man", "cut"), ("Arg1", "a door", "a door", "open")]
    details = [{"roles": slots[:2]}, {"roles": slots[2:]}]
    scores = cider_d([s[2] for s in slots], [[s[1]] for s in slots])
    assert cider_by_verb(details) == pytest.approx(np.mean([np.mean(scores[:3]), scores[3]]))
    assert cider_by_verb(details) != pytest.approx(cider_by_argument(details))


def test_lea_soft_weighs_each_slot_by_its_corpus_cider() -> None:
    """Lea-S per item with every slot's CIDEr-D from the whole corpus (document frequencies
    over both items), averaged over items."""
    from xlebench.eval.lea import lea_soft

    a = [("Arg0", "the man", "the man", "cut", [], 1), ("Arg0", "the man", "the man", "wash",
                                                         [], 2),
         ("Arg1", "a cup", "a knife", "cut", ["the cup"], 1)]
    b = [("Arg0", "a woman", "the man", "open", [], 1), ("Arg1", "a door", "a door", "open",
                                                         [], 1)]
    slots = a + b
    c = cider_d([s[2] for s in slots], [[s[1], *s[4]] for s in slots])
    want = [lea_soft({(s[5], s[0]): s[1] for s in rows}, {(s[5], s[0]): s[2] for s in rows},
                     {(s[5], s[0]): v for s, v in zip(rows, cs, strict=True)})
            for rows, cs in ((a, c[:3]), (b, c[3:]))]
    assert lea_soft_cider([{"roles": a}, {"roles": b}]) == pytest.approx(np.mean(want))
    assert 0 < want[0] != want[1]


def test_lea_soft_is_averaged_over_the_annotators_keys() -> None:
    """VidSitu computes Lea-S against each annotator's key and averages: a reply that links
    what annotator 1 linked scores 1 against that key and less against annotator 2's."""
    from xlebench.eval.lea import lea_soft
    from xlebench.eval.scorers.events import annotator_keys

    events = [{"roles": {"Arg1": "onion"}, "roles_by_annotator": [{"Arg1": "onion"},
                                                                  {"Arg1": "knife"}]},
              {"roles": {"Arg1": "onion"}}]
    keys = annotator_keys(events)
    assert keys == [[[1, "Arg1", "onion"], [2, "Arg1", "onion"]],
                    [[1, "Arg1", "knife"], [2, "Arg1", "onion"]]]
    assert annotator_keys([{"roles": {"Arg1": "x"}}]) == []
    rows = [("Arg1", "onion", "onion", "cut", ["knife"], 1),
            ("Arg1", "onion", "onion", "cut", [], 2)]
    other = [("Arg1", "bread", "bread", "eat", [], 1), ("Arg0", "man x", "man x", "eat", [], 1)]
    details = [{"roles": rows, "keys": keys}, {"roles": other}]
    c = cider_d([s[2] for s in rows + other], [[s[1], *s[4]] for s in rows + other])
    weights = {(1, "Arg1"): c[0], (2, "Arg1"): c[1]}
    said = {(1, "Arg1"): "onion", (2, "Arg1"): "onion"}
    want = [lea_soft({(k, r): v for k, r, v in key}, said, weights) for key in keys]
    assert want[0] > 0 == want[1]  # annotator 2 linked nothing: its singletons are missed
    alone = lea_soft({(1, "Arg1"): "bread", (1, "Arg0"): "man x"},
                     {(1, "Arg1"): "bread", (1, "Arg0"): "man x"},
                     {(1, "Arg1"): c[2], (1, "Arg0"): c[3]})
    assert lea_soft_cider(details) == pytest.approx((np.mean(want) + alone) / 2)
