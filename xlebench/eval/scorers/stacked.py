"""Multiple-choice readers of the panel's own picks: what a submitter who runs the open-source
panel reads off it.

A filter that drops the items the panel answers leaves the panel's pick wrong more often than
chance on what it keeps, so "not the panel's pick" becomes a reader (issue 77's reviewer: 31.8
on `egoschema_mcq` against a floor of 22.3). Two members read the panel that way, both fitted
on the items they are scored beside (the published ones, cross-fitted by source video like
every learned member), so that the printed floor is measured by readers the filter never met:

* ``learned_inverse``: a uniform pick among the options the learned member
  (`xlebench.eval.scorers.learned.learned_choice`) does not pick; it shares that member's fits;
* ``stacked``: a logistic regression over each option's standing with the members — the
  learned member's probability, rank and pick, the sentence centroid's pick, each option-only
  rule's pick, the option agreeing most with its siblings word by word, the option agreeing
  most with the odd one of the orders — fitted on half the training items' videos' standings
  while the learned member is fitted on the other half (a stacker fitted on the learned
  member's own training items would read its fitted, not its held-out, picks). A weight
  below zero is an inverse: the stacker avoids whichever member the filter taught to be wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xlebench.eval.panel.public import Public
from xlebench.eval.provenance import source_videos
from xlebench.eval.scorers.base import Blind, BlindContext, picked
from xlebench.eval.scorers.learned import READS, choice_scores, fit_choice, top_options
from xlebench.eval.scorers.option_features import steps
from xlebench.eval.scorers.sentences import option_vectors, sibling_cosines
from xlebench.runner.rng import derive_seed


def _uniform(item: dict) -> dict[str, float]:
    return {"acc": 1.0 / len(item["answer"]["options"])}


def _inverse(item: dict, model: Any, ctx: BlindContext) -> dict[str, Any]:
    """A uniform pick among the options the learned member does not pick."""
    if model is None:
        return _uniform(item)
    top = top_options(choice_scores(item, model, ctx.public))
    rest = [k for k in range(len(item["answer"]["options"])) if k not in top]
    return picked(item, rest) if rest else _uniform(item)


def learned_inverse() -> Blind:
    return Blind("learned_inverse", READS + "; an option the learned member does not pick (a "
                 "filter that dropped the items it answers would make this a reader)",
                 _inverse, fit_choice, public=True)


def _best(values: Sequence[float]) -> set[int]:
    top = max(values)
    return {k for k, v in enumerate(values) if v >= top - 1e-9}


def _agreement(item: dict) -> set[int]:
    """The option sharing most words, position by position, with its siblings."""
    words = [str(o).lower().split() for o in item["answer"]["options"]]
    return _best([sum(sum(a == b for a, b in zip(w, v, strict=False))
                      for j, v in enumerate(words) if j != i) for i, w in enumerate(words)])


def _odd_one(item: dict) -> set[int]:
    """The option agreeing step by step with the one whose set of steps no sibling shares
    (none where no option is that odd one)."""
    seqs = [steps(str(o)) for o in item["answer"]["options"]]
    odd = [k for k, s in enumerate(seqs)
           if all(frozenset(s) != frozenset(t) for j, t in enumerate(seqs) if j != k)]
    if len(odd) != 1:
        return set()
    rest = [k for k in range(len(seqs)) if k != odd[0]]
    agree = [sum(a == b for a, b in zip(seqs[k], seqs[odd[0]], strict=False)) for k in rest]
    return {rest[j] for j in _best(agree)}


def standing(item: dict, learned: Any, public: Public) -> list[dict[str, float]]:
    """Each option's standing with the members (the stacked reader's features)."""
    from xlebench.eval.scorers.option_rules import rule_picks

    n = len(item["answer"]["options"])
    scores = choice_scores(item, learned, public) if learned is not None else [1.0 / n] * n
    order = sorted(range(n), key=lambda k: (-scores[k], k))
    picks = {"sentence": _best(sibling_cosines(option_vectors(item, public))),
             "siblings": _agreement(item), "odd_one": _odd_one(item),
             **{rule: set(ks) for rule, ks in rule_picks(item).items()}}
    return [{"learned_score": scores[k], "learned_rank": order.index(k) / max(1, n - 1),
             "learned_pick": float(order[0] == k),
             **{f"{name}_pick": float(k in chosen) for name, chosen in picks.items()},
             **{f"{name}_tied": float(k in chosen) / max(1, len(chosen))
                for name, chosen in picks.items()}}
            for k in range(n)]


def _half(item: dict) -> int:
    return derive_seed(0, "stacked-half", *sorted(source_videos(item))) % 2


def fit_stacked(train: Sequence[dict], public: Public) -> Any:
    """The learned member on one half of the training items' videos, the stacker on the
    other half's standings."""
    first = [it for it in train if _half(it) == 0]
    second = sorted((it for it in train if _half(it) == 1), key=lambda it: it["item_id"])
    learned = fit_choice(first, public) if first else None
    rows, labels = [], []
    for it in second:
        for k, row in enumerate(standing(it, learned, public)):
            rows.append(row)
            labels.append(int(k == it["answer"]["label"]))
    if len(set(labels)) < 2:
        return None
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer(sparse=False, sort=True)
    model = LogisticRegression(C=1.0, solver="liblinear", max_iter=500, random_state=0)
    model.fit(vec.fit_transform(rows), labels)
    return learned, vec, model


def _stacked(item: dict, model: Any, ctx: BlindContext) -> dict[str, Any]:
    if model is None:
        return _uniform(item)
    learned, vec, stacker = model
    probs = stacker.predict_proba(vec.transform(standing(item, learned, ctx.public)))[:, 1]
    return picked(item, top_options(list(probs)))


def stacked_choice() -> Blind:
    return Blind("stacked", READS + "; logistic regression over each option's standing with "
                 "the members (learned, sentence centroid, option-only rules, sibling and "
                 "odd-one agreement), weights of either sign", _stacked, fit_stacked,
                 public=True)
