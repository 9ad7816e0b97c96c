"""A multiple-choice option as the learned choice member reads it (`learned.fit_choice`): its
words, its sentence compared with its siblings', its attestation in the rest of the benchmark
and what the query prints of the period and the wearer — computed once per public view
(`option_features`)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from xlebench.eval.metrics import rouge_tokens
from xlebench.eval.panel.public import Public, bigrams, content_words, context_tokens
from xlebench.eval.scorers.base import query_question
from xlebench.eval.scorers.sentences import option_vectors, sibling_cosines, warm_options

_STEPS = re.compile(r",\s*then\s+|;\s*|,\s*|\s+then\s+")


def steps(option: str) -> list[str]:
    """An option's steps, each as its content words: an order is compared step by step."""
    return [" ".join(content_words(p)) for p in _STEPS.split(option) if content_words(p)]


def _dice(a: set[str], b: set[str]) -> float:
    return 2 * len(a & b) / max(1, len(a) + len(b))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items())
    norm = math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))
    return dot / norm if norm else 0.0


def sibling_features(options: Sequence[str]) -> list[dict[str, float]]:
    """Each option compared with the other options of its item: the share of steps it holds
    at the same place as each sibling (mean and most), whether its set of steps or of words
    is another's, how many siblings hold the same set, its word overlap with them and its
    cosine to their word centroid. A construction that makes the right option stand out
    among its siblings — the one odd set, the order agreeing with the odd one in two places —
    is then a feature the learner weighs, not a route a reviewer has to list."""
    seqs = [steps(o) for o in options]
    sets = [set(content_words(o)) for o in options]
    bags = [Counter(content_words(o)) for o in options]
    rows = []
    for k, seq in enumerate(seqs):
        others = [j for j in range(len(options)) if j != k] or [k]
        placed = [sum(a == b for a, b in zip(seq, seqs[j], strict=False))
                  / max(1, len(seq), len(seqs[j])) for j in others]
        same_steps = sum(frozenset(seqs[j]) == frozenset(seq) for j in others)
        same_words = sum(sets[j] == sets[k] for j in others)
        centroid = sum((bags[j] for j in others), Counter())
        rows.append({"steps_placed": sum(placed) / len(placed), "steps_placed_max": max(placed),
                     "steps_placed_most": float(sum(p >= 0.5 for p in placed)) / len(others),
                     "same_steps": same_steps / len(others), "odd_steps": float(same_steps == 0),
                     "same_words": same_words / len(others), "odd_words": float(same_words == 0),
                     "central": sum(_dice(sets[k], sets[j]) for j in others) / len(others),
                     "centroid_cosine": _cosine(bags[k], centroid)})
    return rows


#: Features also read relative to the option's siblings (`_relative`).
RELATIVE = ("length", "question", "about", "attested_words", "attested_pairs", "central",
            "centroid_cosine", "steps_placed", "same_words", "sentence_centroid")


def _relative(rows: list[dict[str, float]]) -> None:
    """Each `RELATIVE` feature as its distance from the siblings' mean, its rank among them
    (the share of siblings below), and whether it is the item's highest or lowest alone."""
    n = len(rows)
    for name in RELATIVE:
        values = [r[name] for r in rows]
        top, low = max(values), min(values)
        for k, r in enumerate(rows):
            rest = values[:k] + values[k + 1:] or [values[k]]
            r[f"{name}_vs"] = values[k] - sum(rest) / len(rest)
            r[f"{name}_rank"] = sum(v < values[k] for v in rest) / max(1, n - 1)
            r[f"{name}_top"] = float(values[k] == top and values.count(top) == 1)
            r[f"{name}_low"] = float(values[k] == low and values.count(low) == 1)


def option_features(item: dict, public: Public, vocab: frozenset[str] = frozenset()
                    ) -> list[dict[str, float]]:
    """One feature dict per option of a multiple-choice item: its words and word pairs where
    ``vocab`` holds them (`_vocabulary`); its words and its text crossed with what the query
    prints of the period and the wearer (`context_tokens`: the hour, the part of the day, the length,
    the location and type); its length, overlaps and attestation; and how it compares with
    its siblings (`sibling_features`, its MiniLM cosine to theirs: `sentences`, `_relative`).

    Everything but the vocabulary's filter depends on the item and the public view alone, so
    it is computed once per view (`_option_base`): a filter fits the learner once per fold,
    seed and round, and reading every item's options again for each fit made the fits grow
    with the square of the items."""
    base, candidates, crossed, context = _option_base(item, public)
    rows = []
    for k, numbers in enumerate(base):
        row = {f"{'b' if '_' in w else 'w'}={w}": 1.0 for w in candidates[k] if w in vocab}
        row |= {f"{x}|{c}": 1.0 for x in crossed[k] if x in vocab for c in context}
        row.update(numbers)
        rows.append(row)
    return rows


def _option_base(item: dict, public: Public) -> tuple[list[dict[str, float]], list[list[str]],
                                                       list[list[str]], list[str]]:
    """An item's options as `option_features` reads them before a vocabulary is chosen: the
    numeric features (relative ones included), each option's candidate word and pair features,
    its candidate crossed features, and the context they cross with; once per public view."""
    options = [str(o) for o in item["answer"]["options"]]
    key = (item["item_id"], tuple(options), item.get("query"))
    memo = public.memo("option-features", dict)
    if key not in memo:
        memo[key] = _option_base_now(item, options, public)
    return memo[key]


def warm_features(items: Sequence[dict], public: Public) -> None:
    """Every choice item's option features in the public view, and its options' vectors,
    computed now: a step spreading its fits over forked processes would otherwise have each
    child compute them again for every training set it reads, at every call."""
    choice = [it for it in items if (it.get("answer") or {}).get("options")]
    if choice:
        warm_options(public)
        for it in choice:
            _option_base(it, public)


def _option_base_now(item: dict, options: list[str], public: Public) -> tuple:
    words = [content_words(o) for o in options]
    question = set(content_words(query_question(item)))
    about = set(content_words(public.about(item)))
    context = context_tokens(item)
    rows, sentence = [], sibling_cosines(option_vectors(item, public))
    candidates, crossed = [], []
    for k, (ws, sib) in enumerate(zip(words, sibling_features(options), strict=True)):
        s = set(ws)
        uni, bi = public.attested(item, options[k])
        n = max(1, len(s))
        candidates.append(sorted(s | bigrams(ws)))
        crossed.append([*(f"x:{w}" for w in sorted(s)), f"x:={option_key(options[k])}"])
        rows.append({"length": len(options[k].split()) / 10, "question": len(s & question) / n,
                     "about": len(s & about) / n, "attested_words": uni,
                     "attested_pairs": bi, **sib, "sentence_centroid": sentence[k],
                     "unattested_pairs": float(bool(bigrams(ws)) and bi == 0.0)})
    _relative(rows)
    return rows, candidates, crossed, list(context)


def option_key(text: str) -> str:
    """An option's text as its words (numbers kept: "3" is not "4")."""
    return " ".join(rouge_tokens(text))
