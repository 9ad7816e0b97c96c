"""Multiple choice: accuracy and the position histogram, and the blind panel — options chosen
from the options and the question alone, or from what other life logs' answers look like."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from xlebench.eval.metrics import rouge_tokens
from xlebench.eval.panel.public import content_words, wearer, word_share
from xlebench.eval.parse import parse_choice
from xlebench.eval.scorers.base import (
    Base,
    Blind,
    BlindContext,
    ScoreSettings,
    most_common,
    picked,
    query_question,
)
from xlebench.eval.scorers.learned import learned_choice
from xlebench.eval.scorers.option_rules import (
    OPTION_RULES,
    STOP,
    argmax,
    centrality,
    rule_picks,
    words,
)
from xlebench.eval.scorers.sentences import sentence_centroid
from xlebench.eval.scorers.stacked import learned_inverse, stacked_choice

__all__ = ["OPTION_RULES", "STOP", "ChoiceAccuracy", "centrality", "position_histograms",
           "rule_picks", "words"]

#: Accuracy of picking uniformly among tied options, and the options picked.
expected = picked


def _eliminate(item: dict, _model: None, ctx: BlindContext) -> dict[str, float]:
    """Avoid every option an option-only rule picks: what a filter that drops the items those
    rules solve teaches a text-only reader."""
    picked = {k for tied in rule_picks(item).values() for k in tied}
    rest = [k for k in range(len(item["answer"]["options"])) if k not in picked]
    return expected(item, rest or list(range(len(item["answer"]["options"]))))


def _rule(rule: Callable[[Sequence[str], str], list[int]]):
    return lambda it, _m, _c: expected(it, rule(it["answer"]["options"], query_question(it)))


def _by_plan(item: dict, _model: None, ctx: BlindContext) -> dict[str, Any]:
    """The option sharing the most words with the plan chunk the period overlaps (Jaccard;
    ties shared, every option without a script): the plan is public, and the right option
    describes what the matcher chose to fit it."""
    options = item["answer"]["options"]
    plan = ctx.public.script_words(item) if ctx.public else frozenset()
    shares = [word_share(plan, set(content_words(str(o)))) for o in options]
    return picked(item, [k for k, v in enumerate(shares) if v >= max(shares) - 1e-12])


def fit_positions(train: Sequence[dict]) -> int:
    return most_common([it["answer"]["label"] for it in train], 0)


def fit_word_odds(train: Sequence[dict]) -> dict[str, float]:
    """Log-odds, per word, of appearing in a right option rather than a wrong one on other
    life logs (add-one smoothed, base rates removed)."""
    right: dict[str, int] = {}
    wrong: dict[str, int] = {}
    n_right = n_wrong = 0
    for it in train:
        for k, opt in enumerate(it["answer"]["options"]):
            side = right if k == it["answer"]["label"] else wrong
            for w in words(opt):
                side[w] = side.get(w, 0) + 1
            n_right += k == it["answer"]["label"]
            n_wrong += k != it["answer"]["label"]
    return {w: math.log((right.get(w, 0) + 1) / (n_right + 2))
            - math.log((wrong.get(w, 0) + 1) / (n_wrong + 2)) for w in {*right, *wrong}}


def _by_odds(item: dict, odds: dict[str, float], ctx: BlindContext) -> dict[str, float]:
    scores = []
    for opt in item["answer"]["options"]:
        ws = sorted(words(opt))  # sorted: a float sum in set order varies between runs
        scores.append(sum(odds.get(w, 0.0) for w in ws) / max(1, len(ws)))
    return expected(item, argmax(scores))


def wearer_place(item: dict) -> str:
    """The wearer's location (`xlebench.eval.panel.public.wearer`), or ""."""
    return wearer(item)[0]


#: Items a location's own word odds count as against the pooled ones (a location seen on a
#: handful of items mostly reads the pooled odds).
PLACE_SHRINK = 20


def fit_place_odds(train: Sequence[dict]) -> dict[str, dict[str, float]]:
    """`fit_word_odds` per wearer location, shrunk toward the pooled odds by how many items
    the location has (``""``: every training item)."""
    by: dict[str, list[dict]] = {}
    for it in train:
        by.setdefault(wearer_place(it), []).append(it)
    pooled = fit_word_odds(train)
    out = {"": pooled}
    for place, its in by.items():
        if place:
            own, w = fit_word_odds(its), len(its) / (len(its) + PLACE_SHRINK)
            out[place] = {k: w * own.get(k, 0.0) + (1 - w) * v for k, v in pooled.items()}
    return out


def _by_place(item: dict, odds: dict[str, dict[str, float]], ctx: BlindContext
              ) -> dict[str, float]:
    return _by_odds(item, odds.get(wearer_place(item)) or odds[""], ctx)


def fit_option_memory(train: Sequence[dict]) -> dict[str, int]:
    """Per option text: times it was the right option on other logs, less times it was a
    wrong one (an option seen as an answer elsewhere is remembered)."""
    tally: dict[str, int] = {}
    for it in train:
        for k, opt in enumerate(it["answer"]["options"]):
            key = " ".join(rouge_tokens(opt))
            tally[key] = tally.get(key, 0) + (1 if k == it["answer"]["label"] else -1)
    return tally


def _remembered(item: dict, tally: dict[str, int], ctx: BlindContext) -> dict[str, float]:
    return expected(item, argmax([tally.get(" ".join(rouge_tokens(o)), 0)
                                   for o in item["answer"]["options"]]))


class ChoiceAccuracy(Base):
    """Multiple choice: 1 when the reply picks the right option (`parse_choice`: index,
    letter or option text; naming several options is unparseable). ``details`` keep the picked
    and the right position for the position-bias histogram of the results table. Blind panel:
    a uniform guess; option-only rules (the most central, the most isolated, the longest, the
    shortest option, the one sharing most words with the question) and their complement (an
    option none of them picks: what filtering on those rules would teach); the position most
    often right on other logs; the option whose words were right most often on other logs;
    the option seen most often as a right answer on other logs (option memory); the learned
    member, an option it does not pick, and a stacked reader of every member's pick
    (`xlebench.eval.scorers.stacked`)."""

    kind = "choice"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        picked = parse_choice(reply, item["answer"]["options"])
        return None if picked is None else {"acc": float(picked == item["answer"]["label"])}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"acc": 0.0}

    def blind(self) -> Sequence[Blind]:
        rules = tuple(Blind(name, f"the options and question: {what}", _rule(rule))
                      for name, what, rule in OPTION_RULES)
        return (Blind("uniform", "nothing",
                      lambda it, _m, _c: {"acc": 1.0 / len(it["answer"]["options"])}),
                *rules,
                Blind("rule_elimination", "the options and question: an option no rule picks",
                      _eliminate),
                Blind("sentence_centroid", "the options: the one nearest its siblings' mean "
                      "MiniLM vector", sentence_centroid, public=True),
                Blind("position_prior", "other logs' right positions",
                      lambda it, pos, _c: expected(it, [pos]), fit_positions, positional=True),
                Blind("word_odds", "the options; the words of other logs' right options",
                      _by_odds, fit_word_odds),
                Blind("location_affinity", "the options and the wearer's location; the words "
                      "of right options on other logs of that location", _by_place,
                      fit_place_odds),
                Blind("option_memory", "the options; other logs' right and wrong options",
                      _remembered, fit_option_memory),
                Blind("plan_choice", "the options and the life log's plan (public): the "
                      "option most like the plan chunk of the period", _by_plan, public=True,
                      screens=False),
                learned_choice(), learned_inverse(), stacked_choice())

    def details(self, item: dict, reply: str | None) -> dict[str, Any]:
        picked = parse_choice(reply, item["answer"]["options"]) if reply else None
        return {"picked": picked, "label": item["answer"]["label"],
                "n_options": len(item["answer"]["options"])}


def position_histograms(rows: Sequence[dict]) -> dict[str, dict[str, list[int]]]:
    """Per multiple-choice subtask: how often each position was picked and how often it was
    right (a model that always answers 0 shows as a spike, whatever its accuracy)."""
    out: dict[str, dict[str, list[int]]] = {}
    for r in rows:
        d = r.get("details") or {}
        if "n_options" not in d:
            continue
        h = out.setdefault(r["subtask"], {"picked": [0] * d["n_options"],
                                          "label": [0] * d["n_options"]})
        h["label"][d["label"]] += 1
        if d["picked"] is not None:
            h["picked"][d["picked"]] += 1
    return out
