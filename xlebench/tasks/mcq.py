"""Shared by multiple-choice recipes: option shuffling, the query and answer shape, similar
distractors, and the parser of EgoSchema-style generations.

An item's ``answer`` is ``{text: the right option, options: [5], label: 0..4}``; the options
are shuffled by the unit's generator, so labels are uniform over positions (tested).
``provenance.question`` keeps the bare question for text-only filters.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

import numpy as np

FORMAT = "Answer with the number of the correct option (Option k) and nothing else."


def mcq_query(question: str, options: Sequence[str]) -> str:
    return question + " " + " ".join(f"Option {k}: {o}" for k, o in enumerate(options))


def shuffled(correct: str, wrong: Sequence[str], rng: random.Random) -> tuple[list[str], int]:
    """Options in a random order and the right one's position."""
    options = [correct, *wrong]
    order = list(range(len(options)))
    rng.shuffle(order)
    return [options[i] for i in order], order.index(0)


def mcq_answer(options: Sequence[str], label: int) -> dict:
    return {"text": options[label], "options": list(options), "label": label}


def similar_distractors(correct: str, pool: Sequence[str], n: int,
                        encode: Callable[[Sequence[str]], np.ndarray],
                        near_duplicate: float = 0.95) -> tuple[list[str], list[float]]:
    """The ``n`` texts of ``pool`` most similar to ``correct`` (cosine of sentence vectors),
    leaving out near-duplicates (cosine >= ``near_duplicate``) and repeated texts: wrong options
    that are confusable for the right reason (Neptune's confusing similarity)."""
    pool = sorted({p for p in pool if p.strip() and p.strip() != correct.strip()})
    if not pool:
        return [], []
    vecs = np.asarray(encode([correct, *pool]), dtype=np.float64)
    sims = vecs[1:] @ vecs[0]
    picked: list[str] = []
    scores: list[float] = []
    for i in np.argsort(-sims, kind="stable"):
        if sims[i] >= near_duplicate:
            continue
        if any(pool[i].lower() == p.lower() for p in picked):
            continue
        picked.append(pool[i])
        scores.append(round(float(sims[i]), 6))
        if len(picked) == n:
            break
    return picked, scores


# -- EgoSchema generations ---------------------------------------------------------------------

_LABEL = r"\s*(?:\*\*)?\s*[:.)\-]\s*(?:\*\*)?\s*"
_QUESTION = re.compile(rf"^\W*question\s*(\d+){_LABEL}(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_CORRECT = re.compile(rf"^\W*correct\s+answer{_LABEL}(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_WRONG = re.compile(rf"^\W*wrong\s+answer\s*(?:\d+|[a-z])?{_LABEL}(.+?)\s*$",
                    re.IGNORECASE | re.MULTILINE)


def parse_questions(text: str, n: int) -> list[str]:
    """``Question 1: ...`` lines (any case, ``**`` or ``.`` allowed), at most ``n``."""
    found = [q.strip() for _, q in _QUESTION.findall(text)]
    if not found:
        raise ValueError('expected lines "Question 1: ...", "Question 2: ...", ...')
    return found[:n]


def parse_answers(text: str, n_questions: int, n_wrong: int) -> list[tuple[str, list[str]]]:
    """Per question, the correct answer and the wrong ones: each block starts at a
    ``Correct answer:`` line and holds ``Wrong answer 1..M:`` (or ``Wrong Answer A :``) lines."""
    starts = [m.start() for m in _CORRECT.finditer(text)]
    if len(starts) < n_questions:
        raise ValueError(f"expected {n_questions} blocks, each a 'Correct answer:' line and "
                         f"{n_wrong} 'Wrong answer k:' lines; found {len(starts)}")
    out = []
    for i, a in enumerate(starts[:n_questions]):
        block = text[a: starts[i + 1] if i + 1 < len(starts) else len(text)]
        correct = _CORRECT.search(block).group(1).strip()
        wrong = [w.strip() for w in _WRONG.findall(block)]
        if len(wrong) < n_wrong:
            raise ValueError(f"question {i + 1}: expected {n_wrong} 'Wrong answer k:' lines, "
                             f"found {len(wrong)}")
        out.append((correct, wrong[:n_wrong]))
    return out
