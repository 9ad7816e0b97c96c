"""Free text against a reference (summaries): ROUGE-L, with the model metrics on BERTScore F1
and Sent.Sim; and its blind panel — replies written without seeing the video."""

from __future__ import annotations

import hashlib
import heapq
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from xlebench.eval.metrics import (
    encoder,
    porter_stem,
    rouge_l,
    rouge_l_content,
    rouge_masks,
)
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings
from xlebench.eval.scorers.learned import nearest_reference
from xlebench.eval.scorers.memory import (
    clock_answer,
    duration_answer,
    fit_clock,
    fit_durations,
    fit_routine,
    routine_answer,
)
from xlebench.eval.scorers.script import script_members
from xlebench.eval.scorers.text_constant import best_constant
from xlebench.eval.scorers.text_constant import tokens as _tokens
from xlebench.eval.scorers.text_shapes import (
    GENERIC_SUMMARY,
    query_shape,
    reference,
    strip_tokens,
)
from xlebench.eval.scorers.text_window import rivals, window_ids

#: A query shape needs this many training items to get a constant of its own.
MIN_PER_SHAPE = 20

#: The skeleton: words tried at each step, references it is fitted on, longest length.
SKELETON_VOCAB, SKELETON_TARGETS, SKELETON_MAX = 24, 96, 40


@lru_cache(maxsize=1 << 16)
def _token_set(text: str) -> frozenset[str]:
    return frozenset(_tokens(text))


def fit_constants(train: Sequence[dict]) -> dict[str, str]:
    """The best constant reference per query shape with enough items, and overall (``*``)."""
    shapes: dict[str, list[str]] = {}
    for it in train:
        shapes.setdefault(query_shape(it), []).append(reference(it))
    out = {"*": best_constant([reference(it) for it in train])}
    out.update({q: best_constant(refs) for q, refs in shapes.items() if len(refs) >= MIN_PER_SHAPE})
    return out


def _seeded(items: Sequence[dict], salt: str) -> list[dict]:
    """``items`` in an order fixed by their ids and ``salt`` (no generator, no item order)."""
    return sorted(items, key=lambda it: _seed_key(salt, it["item_id"]))


@lru_cache(maxsize=1 << 17)
def _seed_key(salt: str, item_id: str) -> bytes:  # asked of each training item at every fit
    return hashlib.sha256(f"{salt}|{item_id}".encode()).digest()


def fit_skeleton(train: Sequence[dict]) -> str:
    """`skeleton_of` the references of ``train``'s first `SKELETON_TARGETS` items in a seeded
    order (items fitted apart often share them: computed once per set)."""
    return skeleton_of(tuple(reference(it) for it in
                             _seeded(train, "skeleton")[:SKELETON_TARGETS]))


@lru_cache(maxsize=1 << 12)
def skeleton_of(refs: tuple[str, ...]) -> str:
    """The string of frequent words with the highest mean ROUGE-L against other logs'
    references, built by greedy appends ("C in the and the the and the"): what ROUGE-L gives
    a reply that says nothing about any record. Each step tries the `SKELETON_VOCAB` words
    found in most references and keeps the one that raises the mean most; the LCS of every
    target is carried forward bit-parallel (`_Packed`: all targets in one integer), so a step
    costs a few integer operations per word."""
    kept = [r for r in refs if _tokens(r)]
    if not kept:
        return GENERIC_SUMMARY
    df: Counter[str] = Counter()
    for r in kept:
        df.update(_token_set(r))
    vocab = [w for w, _ in heapq.nsmallest(SKELETON_VOCAB, df.items(),
                                           key=lambda kv: (-kv[1], kv[0]))]
    packed = _Packed(kept, vocab)
    state, words, best = packed.full, [], 0.0
    while len(words) < SKELETON_MAX:
        new = [packed.step(state, w) for w in vocab]
        scores, reach = packed.scores(new, len(words) + 1), {}
        step = None
        for k in range(len(vocab)):
            score = float(scores[k])
            if score <= best - 1e-12:
                continue  # neither better nor tied
            if score <= best + 1e-12:  # a tie: kept where it needs less of the targets
                if step is None:
                    continue
                for i in (k, step):  # of the tied states only (row by row: the same means)
                    if i not in reach:
                        reach[i] = packed.reaches([new[i]])[0]
                if reach[k] >= reach[step]:
                    continue
            best, step = max(score, best), k
        if step is None:
            break
        words.append(vocab[step])
        state = new[step]
    return " ".join(_spelled(refs, words))


def _spelled(refs: Sequence[str], stems: Sequence[str]) -> list[str]:
    """Each stem as the word the references spell it with most often (ties: the first in
    sorted order; a stem no reference spells stays as it is). Counted for the skeleton's own
    stems only, where summing every (stem, word) pair of every reference cost a sixth of a
    fit."""
    counts: dict[str, dict[str, int]] = {w: {} for w in stems}
    for r in refs:
        surface = _surface(r)
        for stem, c in counts.items():
            words = surface.get(stem)
            for w, n in words.items() if words else ():
                c[w] = c.get(w, 0) + n
    best = {stem: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            for stem, c in counts.items() if c}
    return [best.get(w, w) for w in stems]


@lru_cache(maxsize=1 << 16)
def _surface(ref: str) -> dict[str, Counter]:
    """Per stem of one reference, the words that spell it there, counted: how the skeleton's
    stems are spelled back."""
    from rouge_score import tokenize

    out: dict[str, Counter] = {}
    for w in tokenize.tokenize(ref, None):
        out.setdefault(porter_stem(w) if len(w) > 3 else w, Counter())[w] += 1
    return out


@lru_cache(maxsize=1 << 16)
def _laid_out(ref: str) -> tuple[bytes, dict[str, bytes]]:
    """A target's place in `_Packed`, the same at any offset: its bits set (``full``) and each
    word's `rouge_masks`, as little-endian bytes of whole 64-bit words holding its tokens and
    a guard bit above them (kept per reference: fits share most of their targets)."""
    n = len(_tokens(ref))
    size = -(-(n + 1) // 64) * 8
    return (((1 << n) - 1).to_bytes(size, "little"),
            {w: m.to_bytes(size, "little") for w, m in rouge_masks(ref).items()})


class _Packed:
    """The bit-parallel LCS states (Hyyrö 2004) of many targets in one integer: target ``i``
    holds the bits ``[off_i, off_i + n_i)`` and a zero guard bit above them. With ``x = v & m``
    the update ``((v + x) | (v - x)) & full`` never carries or borrows across targets: ``v -
    x`` is ``v ^ x`` (``x`` is inside ``v``), and ``v + x`` carries out of a target only into
    its guard, which ``full`` clears. Each target starts on a 64-bit word, so a step's
    candidate states are counted per target by numpy's popcount of whole words (unpacking
    every bit and summing them was a third of a fit), where a target-by-target loop cost a
    few Python operations per (word, target, step)."""

    def __init__(self, refs: Sequence[str], vocab: Sequence[str]) -> None:
        laid = [_laid_out(r) for r in refs]
        lengths = [len(_tokens(r)) for r in refs]
        offsets = np.cumsum([0, *(8 * len(full) for full, _ in laid)])
        off = int(offsets[-1])
        offsets = offsets[:-1].tolist()
        # each target's bytes, side by side (whole words: its offset is 8 x the bytes before)
        self.masks = {w: int.from_bytes(b"".join(m.get(w) or bytes(len(full)) for full, m in laid),
                                        "little") for w in vocab}
        self.full = int.from_bytes(b"".join(full for full, _ in laid), "little")
        self.nbytes = off // 8
        self.offsets, self.lengths = np.array(offsets), np.array(lengths)
        self.words = self.offsets // 64
        #: each bit's place within its target, counted from 1 (past its end: never set)
        self.place = (np.arange(off) - np.repeat(self.offsets, np.diff([*offsets, off])) + 1)

    def step(self, state: int, word: str) -> int:
        x = state & self.masks[word]
        return ((state + x) | (state ^ x)) & self.full

    def _raw(self, states: Sequence[int]) -> np.ndarray:
        raw = b"".join(s.to_bytes(self.nbytes, "little") for s in states)
        return np.frombuffer(raw, np.uint8).reshape(len(states), -1)

    def scores(self, states: Sequence[int], words: int) -> np.ndarray:
        """Per state, the mean ROUGE-L F of a ``words``-word reply over the targets:
        2 LCS / (words + n), with LCS = n - the target's set bits."""
        ones = np.bitwise_count(self._raw(states).view("<u8"))
        lcs = self.lengths - np.add.reduceat(ones, self.words, axis=1, dtype=np.int64)
        return (2 * lcs / (words + self.lengths)).mean(axis=1)

    def reaches(self, states: Sequence[int]) -> np.ndarray:
        """Per state, the mean share of each target its best match so far needs: in the
        bit-parallel LCS state a zero bit marks where the LCS grows, so the highest zero is
        the shortest prefix of the target reaching it. Of two words that raise the mean
        alike, the one that uses less of the targets leaves more to match (else a first
        "and" would end the string)."""
        zeros = np.unpackbits(self._raw([~s & self.full for s in states]), axis=1,
                              bitorder="little")
        high = np.maximum.reduceat(zeros * self.place, self.offsets, axis=1)
        return (high / self.lengths).mean(axis=1)


def skeleton_answer(item: dict, model: str, ctx: BlindContext) -> str:
    return model


def constant_answer(item: dict, model: dict[str, str], ctx: BlindContext) -> str:
    return model.get(query_shape(item), model["*"])


class TextSimilarity(Base):
    """Free text against a reference: ROUGE-L, ROUGE-L over content words, window
    identification (`window_id`), and with the model metrics on (``eval.bertscore``)
    BERTScore F1 and Sent.Sim (cosine of MiniLM sentence vectors). Blind panel: the best
    constant reference of other life logs (per query shape), the reference of the other item
    whose period is nearest in length (duration memory) or in time of day (clock memory; for
    the same wearer, followed by the log's own questions at that time: routine memory), the skeleton of frequent words with
    the best ROUGE-L, the query echoed back, and one fixed generic sentence."""

    kind = "text"
    #: Computed over the whole set of replies (each against its rivals' references): the
    #: lmms-eval export recomputes them in its aggregation (`LmmsTask._over_the_set`).
    set_metrics = ("window_id",)

    def __init__(self, generic: str = GENERIC_SUMMARY) -> None:
        self.generic = generic

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        return {"rougeL": rouge_l(reply, item["answer"]["text"]),
                "rougeL_content": rouge_l_content(reply, reference(item)),
                "window_id": 0.0}  # set in finish, against the item's rivals

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"rougeL": 0.0, "rougeL_content": 0.0, "window_id": 0.0,
                **({"bertscore_f1": 0.0, "sent_sim": 0.0} if s.bertscore else {})}

    def blind(self) -> Sequence[Blind]:
        return (Blind("constant", "other logs' references (best constant per query shape)",
                      constant_answer, fit_constants),
                Blind("duration_memory", "the period's length; other logs' references by "
                      "the length of their periods", duration_answer, fit_durations),
                Blind("clock_memory", "the period's time of day; other logs' references by "
                      "the time of day of their periods", clock_answer, fit_clock),
                Blind("routine_memory", "the period's time of day and the wearer; other "
                      "logs' references of the same wearer by time of day, and the log's own "
                      "questions near that time", routine_answer,
                      fit_routine, public=True),
                Blind("skeleton", "other logs' references: the string of frequent words "
                      "with the best ROUGE-L (greedy appends)", skeleton_answer, fit_skeleton),
                Blind("query_echo", "the query", lambda it, _m, _c: it["query"]),
                Blind("generic", "nothing", lambda _it, _m, _c: self.generic),
                nearest_reference(), *script_members())

    def warm(self, items: Sequence[dict]) -> None:
        rivals(items)  # a hash per pair of a subtask's days: spread here, not in each child

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        ids = window_ids([r["response"] if r["status"] == "ok" else None for r in rows],
                         [reference(it) for it in items], rivals(items))
        for r, v in zip(rows, ids, strict=True):
            if r["status"] == "ok":
                r["scores"]["window_id"] = v

    def model_metrics(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
                      bertscorer: Any) -> None:
        """BERTScore and Sent.Sim of the ``ok`` rows (with a scorer): each reply against its
        own reference, so any rows may be passed together (the blind panel's members)."""
        todo = [(r, it) for r, it in zip(rows, items, strict=True) if r["status"] == "ok"]
        if not (s.bertscore and bertscorer is not None and todo):
            return
        pairs = [(r["response"], it["answer"]["text"]) for r, it in todo]
        for (r, _), (v, sim) in zip(todo, pair_metrics(bertscorer, pairs), strict=True):
            r["scores"]["bertscore_f1"] = v
            r["scores"]["sent_sim"] = sim


def pair_metrics(bertscorer: Any, pairs: Sequence[tuple[str, str]]
                 ) -> list[tuple[float, float]]:
    """(BERTScore F1, Sent.Sim) of each (reply, reference): the pairs an earlier evaluation
    scored read from the scorer's store (`encoder.PairScores`), each other distinct pair
    computed once and kept there."""
    kept = None if bertscorer.store is None else encoder.PairScores(
        bertscorer.store, f"{bertscorer.pair_key}-{encoder.sentence_encoder().embedder.key}")
    found = kept.get(pairs) if kept is not None else {}
    todo = list(dict.fromkeys(p for p in pairs if p not in found))
    if todo:
        preds, refs = [p for p, _ in todo], [r for _, r in todo]
        fresh = dict(zip(todo, zip(bertscorer.f1(preds, refs), similarity(preds, refs),
                                   strict=True), strict=True))
        if kept is not None:
            kept.put(fresh)
        found.update(fresh)
    return [found[p] for p in pairs]


def similarity(preds: Sequence[str], refs: Sequence[str]) -> list[float]:
    """Cosine of MiniLM sentence vectors (tokens stripped), rounded to 10 places."""
    enc = encoder.sentence_encoder()
    a = enc.encode([strip_tokens(p) for p in preds]).astype(np.float64)
    b = enc.encode([strip_tokens(r) for r in refs]).astype(np.float64)
    return [round(float(x @ y), 10) for x, y in zip(a, b, strict=True)]
