"""Counts per listed action: accuracy pooled over queried actions (the paper), and its blind
panel — counts guessed from other life logs' answers."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from xlebench.eval.metrics import counting_accuracy
from xlebench.eval.panel.public import content_words
from xlebench.eval.parse import parse_counts
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings, most_common
from xlebench.eval.scorers.learned import learned_counts


def _counts(train: Sequence[dict]) -> list[tuple[str, int]]:
    return [(a, n) for it in train for a, n in it["answer"]["counts"].items()]


def fit_mode(train: Sequence[dict]) -> int:
    """The most common count of other logs' answers."""
    return most_common([n for _, n in _counts(train)], 1)


def fit_action_prior(train: Sequence[dict]) -> dict:
    """The most common count per action, per verb (its first word), and overall."""
    pairs = _counts(train)
    by_action: dict[str, list[int]] = {}
    by_verb: dict[str, list[int]] = {}
    for a, n in pairs:
        by_action.setdefault(a, []).append(n)
        by_verb.setdefault(a.split()[0] if a.split() else a, []).append(n)
    return {"action": {a: most_common(v, 1) for a, v in by_action.items()},
            "verb": {a: most_common(v, 1) for a, v in by_verb.items()},
            "all": most_common([n for _, n in pairs], 1)}


def _named(action: str, plan: AbstractSet[str]) -> bool:
    """Whether the plan chunk's words (`Public.script_words`) hold the action's verb or
    object."""
    return bool(set(content_words(action)) & plan)


def fit_plan_counts(train: Sequence[dict], public: Any) -> dict:
    """The most common count of each action (and overall) on other logs, apart for actions
    their period's plan chunk names and those it does not."""
    by: dict[tuple[str, bool], list[int]] = {}
    for it in train:
        plan = public.script_words(it)
        for a, n in it["answer"]["counts"].items():
            named = _named(a, plan)
            by.setdefault((a, named), []).append(n)
            by.setdefault(("", named), []).append(n)
    return {k: most_common(v, 1) for k, v in sorted(by.items())}


def _by_plan(item: dict, model: dict, ctx: BlindContext) -> str:
    plan = ctx.public.script_words(item) if ctx.public is not None else frozenset()

    def count(a: str) -> int:
        named = _named(a, plan)
        return model.get((a, named), model.get(("", named), 1))
    return _reply(item, count)


def _reply(item: dict, count) -> str:
    return "; ".join(f"{a}: {count(a)}" for a in item["answer"]["counts"])


def _prior(item: dict, model: dict, ctx: BlindContext) -> str:
    def count(a: str) -> int:
        verb = a.split()[0] if a.split() else a
        return model["action"].get(a, model["verb"].get(verb, model["all"]))
    return _reply(item, count)


class CountAccuracy(Base):
    """Counts per listed action: accuracy pooled over queried actions (the paper), the item
    mean as a secondary. Blind panel: other logs' most common count everywhere; the most
    common count of the same action (else of its verb) on other logs."""

    kind = "counts"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        counts = parse_counts(reply, list(item["answer"]["counts"]))
        if not counts:
            return None
        acc = counting_accuracy(counts, item["answer"]["counts"])
        return {"count_acc": acc, "count_acc_item": acc}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"count_acc": 0.0, "count_acc_item": 0.0}

    def weights(self, item: dict) -> dict[str, float]:
        return {"count_acc": float(len(item["answer"]["counts"]))}

    def blind(self) -> Sequence[Blind]:
        # The actions asked about are in the query: a blind reply may name them.
        return (Blind("mode_count", "the listed actions; other logs' counts",
                      lambda it, mode, _c: _reply(it, lambda a: mode), fit_mode),
                Blind("action_prior", "the listed actions; other logs' counts of each action",
                      _prior, fit_action_prior),
                Blind("plan_counts", "the listed actions and the life log's plan (public): "
                      "other logs' counts of each action by whether their plan chunk names it",
                      _by_plan, fit_plan_counts, public=True),
                learned_counts())
