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
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlebench.library.annotations import clean_narration

FORMAT = "Answer with the number of the correct option (Option k) and nothing else."


def affinity(country: str, other_country: str, seconds: float, other_seconds: float,
             ratio: float = 1.5) -> int:
    """How well a wrong option's source matches the right one's, best first: same country and
    a record length within ``ratio`` (0), the length only (1), the country only (2), neither
    (3). Decoys are drawn best first, so neither the place nor the length of the record an
    option came from tells it apart from the right one (a reader who knows the period's
    length, or the wearer's country, learns nothing from the options)."""
    similar = (min(seconds, other_seconds) * ratio >= max(seconds, other_seconds)
               if min(seconds, other_seconds) > 0 else seconds == other_seconds)
    same = bool(country) and country == other_country
    return 0 if same and similar else 1 if similar else 2 if same else 3


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
    leaving out near-duplicates (cosine >= ``near_duplicate``) and repeated texts. Kept for
    the LLM-free baseline of RECIPES.md R2; it makes the right answer the hub of its options
    (measured: the option-only "centroid" rule finds it), so the recipes use
    `anchored_decoys`."""
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


@dataclass(frozen=True)
class NearDuplicate:
    """Two options say the same thing: sentence cosine at least ``cos``, or content-word
    Jaccard at least ``words`` (a stricter test than cosine alone, which misses paraphrases
    of templated summaries that differ in one detail word)."""

    cos: float = 0.9
    words: float = 0.6

    def __call__(self, sim: float, a: frozenset[str], b: frozenset[str]) -> bool:
        jac = len(a & b) / len(a | b) if a | b else 1.0
        return sim >= self.cos or jac >= self.words


def _greedy(order: Sequence[int], k: int, dup: np.ndarray) -> list[int]:
    """The first ``k`` of ``order`` with no two near-duplicates (``dup``: a boolean matrix)."""
    chosen: list[int] = []
    for j in order:
        if not dup[j, chosen].any():
            chosen.append(j)
            if len(chosen) == k:
                break
    return chosen


def sampled_decoys(answer: str, occurrences: Sequence[str], n: int,
                   encode: Callable[[Sequence[str]], np.ndarray], rng: random.Random,
                   same: NearDuplicate | None = None) -> tuple[list[str], dict]:
    """``n`` wrong options drawn uniformly from ``occurrences`` — the answers other life logs
    have for the same question, one entry per occurrence, so a text that is often someone's
    right answer is as often a wrong one here — skipping paraphrases of the answer and of
    options already drawn. Every option comes from the same process, in the same proportions:
    neither its words nor its popularity tells the right one."""
    from xlebench.eval.scorers.choice import words

    same = same or NearDuplicate()
    distinct = sorted({c for c in occurrences if c.strip()} | {answer})
    vecs = dict(zip(distinct, np.asarray(encode(distinct), dtype=np.float64), strict=True))
    ws = {t: words(t) for t in distinct}
    order = list(occurrences)
    rng.shuffle(order)
    picked: list[str] = []
    skipped = 0
    for c in order:
        if not c.strip() or c == answer:
            continue
        if any(same(float(vecs[c] @ vecs[o]), ws[c], ws[o]) for o in (answer, *picked)):
            skipped += c not in picked
            continue
        picked.append(c)
        if len(picked) == n:
            break
    return picked, {"occurrences": len(order), "near_duplicates_skipped": skipped,
                    "similarity": [round(float(vecs[answer] @ vecs[c]), 4) for c in picked]}


def anchored_decoys(answer: str, candidates: Sequence[str], n: int,
                    encode: Callable[[Sequence[str]], np.ndarray], rng: random.Random,
                    same: NearDuplicate | None = None) -> tuple[list[str], dict]:
    """``n`` wrong options that are confusable with the right one without making it the hub:
    a hidden *anchor* is drawn among the candidates whose ``n + 1`` nearest neighbours (no two
    of them near-duplicates) include the answer, and the wrong options are the other
    neighbours. Every option is then one of the anchor's neighbours, so neither the most
    central nor the most isolated option is the right one more often than chance; options
    that paraphrase the answer (or each other) are never drawn."""
    from xlebench.eval.scorers.choice import words

    same = same or NearDuplicate()
    texts = [answer, *sorted({c for c in candidates if c.strip() and c.strip() != answer.strip()})]
    vecs = np.asarray(encode(texts), dtype=np.float64)
    sims = vecs @ vecs.T
    ws = [words(t) for t in texts]
    keep = [0] + [j for j in range(1, len(texts)) if not same(float(sims[0, j]), ws[0], ws[j])]
    info = {"candidates": len(texts) - 1, "paraphrases_left_out": len(texts) - len(keep)}
    if len(keep) <= n:
        return [texts[j] for j in keep[1:]], {**info, "anchor": None}
    dup = np.array([[i != j and same(float(sims[i, j]), ws[i], ws[j]) for j in range(len(texts))]
                    for i in range(len(texts))])
    anchors = []
    for a in keep[1:]:
        order = sorted((j for j in keep if j != a), key=lambda j: (-sims[a, j], j))
        hood = _greedy(order, n + 1, dup)
        if 0 in hood and len(hood) == n + 1:
            anchors.append((a, hood))
    if anchors:
        a, hood = rng.choice(anchors)
    else:  # no neighbourhood holds the answer: the candidate nearest to it, its neighbours
        a = max(keep[1:], key=lambda j: (sims[0, j], -j))
        hood = [0, *_greedy(sorted((j for j in keep if j not in (0, a)),
                                   key=lambda j: (-sims[a, j], j)), n, dup)]
    wrong = [j for j in hood if j != 0][:n]
    return [texts[j] for j in wrong], {**info, "anchor": texts[a], "anchored": bool(anchors),
                                       "similarity": [round(float(sims[0, j]), 4)
                                                      for j in wrong]}


# -- EgoSchema generations ---------------------------------------------------------------------

def serialize(narrations: list, start: float) -> str:
    """The paper's input: ``<t> - <narration>`` per line, then ``=====``."""
    lines = [f"{int(n.t - start)} - {clean_narration(n.text)}" for n in narrations]
    return "\n".join(lines + ["====="])


def clip_narrations(ann: Any, item: dict) -> str:
    """The narrations (first pass) of the item's whole clip, serialized as the generator reads
    a window (`serialize`): what EgoSchema's No-Q baseline is shown — the clip the question
    was written from (``provenance.window_s``), else the stretch its evidence spans, per
    video; never only the seconds the answer needs, which would tell it which acts matter."""
    spans: dict[str, list[float]] = {}
    for ev in item.get("evidence", []):
        a, b = float(ev["source_start_s"]), float(ev["source_end_s"])
        lo, hi = spans.get(ev["video_uid"], [a, b])
        spans[ev["video_uid"]] = [min(lo, a), max(hi, b)]
    window = item.get("provenance", {}).get("window_s")
    if window and len(spans) == 1:
        spans = {uid: [float(window[0]), float(window[1])] for uid in spans}
    blocks = []
    for uid, (a, b) in spans.items():
        passes = ann.narrations.get(uid) or [[]]
        blocks.append(serialize([n for n in passes[0] if a <= n.t < b], a))
    return "\n".join(blocks) or "(no narrations)"


_LABEL = r"\s*(?:\*\*)?\s*[:.)\-]\s*(?:\*\*)?\s*"
_QUESTION = re.compile(rf"^\W*question\s*(\d+){_LABEL}(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_CORRECT = re.compile(rf"^\W*correct\s+answer{_LABEL}(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_WRONG = re.compile(rf"^\W*wrong\s+answer\s*(?:\d+|[a-z])?{_LABEL}(.+?)\s*$",
                    re.IGNORECASE | re.MULTILINE)
_EVIDENCE = re.compile(r"^\W*evidence\s*:(.*)$", re.IGNORECASE | re.MULTILINE)
_SECONDS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)")


def parse_questions(text: str, n: int) -> list[str]:
    """``Question 1: ...`` lines (any case, ``**`` or ``.`` allowed), at most ``n``."""
    found = [q.strip() for _, q in _QUESTION.findall(text)]
    if not found:
        raise ValueError('expected lines "Question 1: ...", "Question 2: ...", ...')
    return found[:n]


def parse_evidence(block: str, window_s: float) -> list[tuple[float, float]]:
    """``Evidence: [12-40], [95-130]`` -> [(12, 40), (95, 130)]: seconds inside the window."""
    m = _EVIDENCE.search(block)
    spans = [(float(a), float(b)) for a, b in _SECONDS.findall(m.group(1))] if m else []
    if not spans:
        raise ValueError('expected a line "Evidence: [start-end], ..." after each question\'s '
                         "answers (the narration seconds the correct answer rests on)")
    for a, b in spans:
        if not 0 <= a <= b <= window_s:
            raise ValueError(f"evidence [{a:g}-{b:g}] is not inside 0..{window_s:g} seconds")
    return spans


def parse_answers(text: str, n_questions: int, n_wrong: int, window_s: float | None = None
                  ) -> list[tuple[str, list[str], list[tuple[float, float]]]]:
    """Per question, the correct answer, the wrong ones, and (``window_s`` given) the evidence
    seconds: each block starts at a ``Correct answer:`` line and holds ``Wrong answer 1..M:``
    (or ``Wrong Answer A :``) lines, then an ``Evidence:`` line."""
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
        spans = parse_evidence(block, window_s) if window_s is not None else []
        out.append((correct, wrong[:n_wrong], spans))
    return out


def option_reply(options: Sequence[str], text: str) -> str:
    """``Option k`` for the option that is ``text`` (no option: none is chosen)."""
    k = next((k for k, o in enumerate(options) if o.strip() == text.strip()), None)
    return f"Option {k}" if k is not None else "There is no information available."
