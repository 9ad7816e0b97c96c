"""A multiple-choice item's options read alone: the option-only rules of the blind panel (the
most central, most isolated, longest and shortest option, the one sharing most words with the
question), which the ``option_only`` filter and the stacked reader also read."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xlebench.eval.metrics import rouge_tokens
from xlebench.eval.scorers.base import query_question

#: Words too common to tell options apart.
STOP = frozenset("a an the and or of in on at to for with by from c is was are were be been "
                 "his her their its it this that while".split())


def words(text: str) -> frozenset[str]:
    return frozenset(rouge_tokens(text)) - STOP


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def argmax(values: Sequence[float]) -> list[int]:
    """Every position of the highest value (a rule tied between options picks them all)."""
    top = max(values)
    return [k for k, v in enumerate(values) if v == top]


def centrality(options: Sequence[str]) -> list[float]:
    """Each option's mean word overlap with the other options."""
    ws = [words(o) for o in options]
    return [sum(_overlap(ws[k], ws[j]) for j in range(len(ws)) if j != k) / max(1, len(ws) - 1)
            for k in range(len(ws))]


#: Option-only rules: (name, what it does, options and question -> the options it picks, tied).
OPTION_RULES: tuple[tuple[str, str, Callable[[Sequence[str], str], list[int]]], ...] = (
    ("centroid", "the option sharing most words with the others",
     lambda opts, q: argmax(centrality(opts))),
    ("outlier", "the option sharing fewest words with the others",
     lambda opts, q: argmax([-c for c in centrality(opts)])),
    ("longest", "the longest option", lambda opts, q: argmax([len(o.split()) for o in opts])),
    ("shortest", "the shortest option",
     lambda opts, q: argmax([-len(o.split()) for o in opts])),
    ("question_overlap", "the option sharing most words with the question",
     lambda opts, q: argmax([len(words(o) & words(q)) for o in opts])),
)


def rule_picks(item: dict) -> dict[str, list[int]]:
    """What every option-only rule picks for an item (ties kept)."""
    opts, q = item["answer"]["options"], query_question(item)
    return {name: rule(opts, q) for name, _, rule in OPTION_RULES}
