"""The best constant reply (`best_constant`): the text of a training set with the highest mean
ROUGE-L against it, what a reply that ignores the record can reach by repeating the most
typical reference.

The text panel fits it per item, over training sets that differ by a few logs (`own_videos`):
at ten times the paper grid about fifteen thousand fits over a few thousand texts each. What a
fit reads does not change between them — a text's words, a (text, occurrence)'s sample rank, a
candidate's word overlap with a target, its ROUGE-L against one — so each is kept, by text
number, and a fit gathers it with numpy where it used to rebuild it per text in Python (half a
fit's time was laying out word bags and sorting the sample again). The answers are the same
bits as the plain definition (`tests/eval/test_text_constant.py`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from xlebench.eval.metrics import rouge_l_kept, rouge_tokens
from xlebench.eval.scorers.text_shapes import GENERIC_SUMMARY

#: Candidates kept for the exact ROUGE-L search of the best constant, and references it is
#: measured on (a seeded sample of each fold's training references).
CANDIDATES, TARGETS = 16, 128

#: Every word met, numbered in the order met (ids of a process).
_WORD_IDS: dict[str, int] = {}
#: Every text met, numbered in the order met, with whether it is blank and its distinct words'
#: count (the denominators of the shortlist's overlap).
_TEXT_IDS: dict[str, int] = {}
_TEXTS: list[str] = []
_BLANK: list[bool] = []
_NWORDS: list[int] = []


@lru_cache(maxsize=1 << 16)
def tokens(text: str) -> tuple[str, ...]:
    """``rouge_tokens`` as a tuple, kept per text."""
    return tuple(rouge_tokens(text))


@lru_cache(maxsize=1 << 16)
def _word_ids(text: str) -> np.ndarray:
    """The distinct words of ``text`` as `_WORD_IDS` numbers, sorted."""
    return np.unique(np.array([_WORD_IDS.setdefault(w, len(_WORD_IDS)) for w in tokens(text)],
                              dtype=np.int64))


def text_id(text: str) -> int:
    """``text``'s number (given on first sight, with its words numbered)."""
    k = _TEXT_IDS.get(text)
    if k is None:
        k = _TEXT_IDS[text] = len(_TEXTS)
        _TEXTS.append(text)
        _BLANK.append(not text.strip())
        _NWORDS.append(len(_word_ids(text)))
    return k


_ARRAYS: list[np.ndarray] = []


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    """`_BLANK` and `_NWORDS` as arrays (float32: the plain form's sizes), made again only
    when texts were met since."""
    if not _ARRAYS or len(_ARRAYS[0]) != len(_TEXTS):
        _ARRAYS[:] = [np.array(_BLANK, dtype=bool), np.array(_NWORDS, dtype=np.float32)]
    return _ARRAYS[0], _ARRAYS[1]


def _ids(texts: Sequence[str]) -> np.ndarray:
    get = _TEXT_IDS.get
    found = [get(t, -1) for t in texts]
    if -1 in found:
        found = [text_id(t) for t in texts]
    return np.array(found, dtype=np.int64)


#: What a fit reads and adds to is shared by the process: one fit at a time (network-bound
#: stages run units in threads), and a forked child starts with the lock free.
_LOCK = threading.Lock()


def _free_lock() -> None:
    global _LOCK
    _LOCK = threading.Lock()


os.register_at_fork(after_in_child=_free_lock)


def best_constant(texts: Sequence[str], seed: int = 0) -> str:
    """The text of ``texts`` with the highest mean ROUGE-L against them: a shortlist by word
    overlap (each distinct text's mean over `_sampled` targets of twice the words it shares
    with a target over both texts' word counts), then exact ROUGE-L against those targets
    (ties: the shorter, then the first in sorted order)."""
    with _LOCK:
        return _best_constant(texts, seed)


def _best_constant(texts: Sequence[str], seed: int) -> str:
    ids = _ids(texts)
    blank, _ = _arrays()
    ids = ids[~blank[ids]]
    if not len(ids):
        return GENERIC_SUMMARY
    counts = np.bincount(ids, minlength=len(_TEXTS))
    distinct = sorted(np.flatnonzero(counts).tolist(), key=_TEXTS.__getitem__)
    at = _ranked(seed).first(counts, TARGETS)
    if at is None:  # two sample ranks alike: their order falls to the texts
        at = np.array([_TEXT_IDS[t] for t in _sampled(texts, seed)], dtype=np.int64)
    rows = np.array(distinct, dtype=np.int64)
    unigram = _UNIGRAMS.gather(rows, at).mean(1)
    short = [_TEXTS[distinct[i]] for i in np.argsort(-unigram, kind="stable")[:CANDIDATES]]
    targets = [_TEXTS[k] for k in at.tolist()]
    numbers = np.array([target_number(t) for t in targets], dtype=np.int64)
    score = {c: float(np.mean(_rouge_row(c, targets, numbers))) for c in short}
    return max(short, key=lambda c: (score[c], -len(c), c))


def _sampled(texts: Sequence[str], seed: int) -> list[str]:
    """`TARGETS` of ``texts`` (a repeated text once per time it occurs), chosen by a seeded
    digest of the text and its occurrence: the same sample whatever order the texts come in,
    and nearly the same for nearly the same texts, so that fits per item over training sets
    differing by a few items ask `rouge_l_kept` the pairs it has already computed. The plain
    form of `_Ranked.first`."""
    seen: dict[str, int] = {}
    keyed = []
    for t in texts:
        if t.strip():
            keyed.append((_sample_rank(seed, t, seen.get(t, 0)), t))
            seen[t] = seen.get(t, 0) + 1
    return [t for _, t in sorted(keyed)[:TARGETS]]


@lru_cache(maxsize=1 << 18)
def _sample_rank(seed: int, text: str, occurrence: int) -> bytes:
    return hashlib.blake2b(f"{seed}|{occurrence}|{text}".encode(), digest_size=8).digest()


class _Ranked:
    """Every (text, occurrence) met under one seed, in `_sample_rank` order (its 8 bytes read
    as a big-endian number: the same order): a fit's sample is the first `TARGETS` whose
    occurrence its training set reaches, one vectorised pass."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.known = np.zeros(0, dtype=np.int64)  # occurrences ranked, per text id
        self.rank = np.zeros(0, dtype=np.uint64)
        self.tid = np.zeros(0, dtype=np.int64)
        self.occ = np.zeros(0, dtype=np.int64)
        self.tied = False

    def first(self, counts: np.ndarray, n: int) -> np.ndarray | None:
        """The text ids of the first ``n`` (text, occurrence) pairs with occurrence below
        ``counts[text]``, in rank order; None where two ranks are equal."""
        self._add(counts)
        if self.tied:
            return None
        return self.tid[np.flatnonzero(self.occ < counts[self.tid])[:n]]

    def _add(self, counts: np.ndarray) -> None:
        known = np.zeros(len(counts), dtype=np.int64)
        known[:len(self.known)] = self.known
        more = np.flatnonzero(counts > known)
        if not len(more):
            self.known = known
            return
        tid, occ, rank = [], [], []
        for k in more.tolist():
            for j in range(int(known[k]), int(counts[k])):
                tid.append(k)
                occ.append(j)
                rank.append(int.from_bytes(_sample_rank(self.seed, _TEXTS[k], j), "big"))
        self.rank = np.concatenate([self.rank, np.array(rank, dtype=np.uint64)])
        self.tid = np.concatenate([self.tid, np.array(tid, dtype=np.int64)])
        self.occ = np.concatenate([self.occ, np.array(occ, dtype=np.int64)])
        order = np.argsort(self.rank, kind="stable")
        self.rank, self.tid, self.occ = self.rank[order], self.tid[order], self.occ[order]
        self.tied = bool(np.any(self.rank[1:] == self.rank[:-1]))
        known[more] = counts[more]
        self.known = known


_RANKED: dict[int, _Ranked] = {}


def _ranked(seed: int) -> _Ranked:
    if seed not in _RANKED:
        _RANKED[seed] = _Ranked(seed)
    return _RANKED[seed]


class _Unigrams:
    """Per target text, each candidate text's share of words with it (by text id; NaN: not
    yet computed): twice the distinct words they share over both texts' word counts, in
    float32 as the plain form computes them, the most recently used kept up to
    `UNIGRAM_BYTES`. A fit computes only the pairs no earlier fit did (one product of 0/1
    word bags) and gathers the rest."""

    def __init__(self, budget: int) -> None:
        self.budget, self.used = budget, 0
        self.columns: OrderedDict[int, np.ndarray] = OrderedDict()

    def gather(self, rows: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The (rows x at) shares, C-ordered as the plain form's matrix is (its mean sums
        in the same order)."""
        targets = np.unique(at)
        columns = [self._column(t) for t in targets.tolist()]
        block = np.stack([c[rows] for c in columns], axis=1)
        missing = np.isnan(block).any(axis=1)
        if missing.any():
            need = rows[missing]
            fresh = _shares(need, targets)
            for k, c in enumerate(columns):
                c[need] = fresh[:, k]
            block[missing] = fresh
        return np.ascontiguousarray(block[:, np.searchsorted(targets, at)])

    def _column(self, target: int) -> np.ndarray:
        size = len(_TEXTS)
        column = self.columns.pop(target, None)
        if column is None or len(column) < size:
            grown = np.full(size, np.nan, dtype=np.float32)
            if column is not None:
                grown[:len(column)] = column
                self.used -= column.nbytes
            column = grown
            self.used += column.nbytes
        self.columns[target] = column
        while self.used > self.budget and len(self.columns) > 1:
            self.used -= self.columns.popitem(last=False)[1].nbytes
        return column


def _shares(rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """`_Unigrams`' values of ``rows`` x ``targets`` (text ids)."""
    _, nwords = _arrays()
    sizes = nwords[rows][:, None] + nwords[targets][None, :]
    return 2 * _count(rows, targets) / np.maximum(sizes, 1)


def _count(rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Distinct words each of ``rows`` shares with each of ``targets`` (text ids)."""
    words = np.unique(np.concatenate([_word_ids(_TEXTS[t]) for t in targets.tolist()]))
    columns = np.full(len(_WORD_IDS), -1, dtype=np.int64)
    columns[words] = np.arange(len(words))
    return _bags(rows, columns) @ _bags(targets, columns).T  # whole numbers, in float32


def _bags(ids: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Rows of 0/1 over ``columns`` (a word id's column, -1 for words left out): which of
    them each text holds."""
    held = [_word_ids(_TEXTS[k]) for k in ids.tolist()]
    cols = columns[np.concatenate(held or [np.zeros(0, dtype=np.int64)])]
    rows = np.repeat(np.arange(len(held)), [len(x) for x in held])
    out = np.zeros((len(held), int(columns.max(initial=-1)) + 1), dtype=np.float32)
    out[rows[cols >= 0], cols[cols >= 0]] = 1.0
    return out


#: Shares kept (4 bytes per text met, per target: at ten times the paper grid about 20,000
#: texts, so 1,600 targets' columns).
UNIGRAM_BYTES = 128 << 20
_UNIGRAMS = _Unigrams(UNIGRAM_BYTES)

#: Texts met as targets, numbered apart (few: the rows below are as long as they are many).
_TARGET_NUMBERS: dict[str, int] = {}


def target_number(text: str) -> int:
    return _TARGET_NUMBERS.setdefault(text, len(_TARGET_NUMBERS))


#: Per candidate its ROUGE-L F against each numbered target computed so far (NaN: not yet).
#: Fits per item over nearly the same training sets score the same shortlist against nearly
#: the same targets; a row is read with one gather where a memo of pairs cost a lookup per
#: pair (a fifth of a fit).
_ROWS: dict[str, np.ndarray] = {}
#: Candidates whose rows are kept (8 bytes per text met: at ten times the paper grid a day
#: summary's fits meet about 500 texts and shortlist about 140 candidates).
ROWS_KEPT = 4096


def _rouge_row(candidate: str, targets: Sequence[str], at: np.ndarray) -> np.ndarray:
    """ROUGE-L F of ``candidate`` against each of ``targets`` (their `target_number`s:
    ``at``), in their order."""
    row = _ROWS.get(candidate)
    if row is None or len(row) < len(_TARGET_NUMBERS):
        grown = np.full(len(_TARGET_NUMBERS), np.nan)
        if row is not None:
            grown[:len(row)] = row
        if len(_ROWS) >= ROWS_KEPT and candidate not in _ROWS:
            _ROWS.pop(next(iter(_ROWS)))
        _ROWS[candidate] = row = grown
    out = row[at]
    for k in np.flatnonzero(np.isnan(out)).tolist():
        out[k] = row[at[k]] = rouge_l_kept(candidate, targets[k])
    return out
