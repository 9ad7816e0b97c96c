"""Equals: Google's rouge-score (`rouge_scorer._lcs_table`) for the LCS length that ROUGE-L
reads, through `lcs_length`, which is tested against it.

Longest common subsequences of many pairs at once: `lcs_length`'s bit-parallel recurrence
(Hyyrö 2004) run over every pair in lockstep with numpy.

Why: window identification (`xlebench.eval.scorers.text_window`) compares each reply of every
blind panel member with its own reference and up to thirty rivals, about two hundred
thousand LCSs per member set at the paper grid and ten times that at ten times it; one
Python pass of big-integer operations per token per pair was the largest part of the panel's
scores. The recurrence only changes its state on a token of the first sequence that occurs
in the second (the mask is zero elsewhere, and ``(v + 0) | (v - 0) == v``), so each pair
keeps only those tokens, in order, and all pairs step through them together. Because the
step subtracts a subset of ``v``'s own bits, ``v - u`` is ``v ^ u``: only the addition
carries, word to word, for a second sequence longer than 64 tokens. Integer arithmetic: the
lengths are exactly `lcs_length`'s (tests/eval/test_lcs.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

WORD = 64
#: Entries of one dense (second sequence, token) look-up table (int32: 32 MB).
TABLE_CELLS = 1 << 23
#: Pairs expanded at once (about 60 tokens each at the paper grid: 4 million tokens, some
#: 150 MB of arrays).
CHUNK = 1 << 16
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


class _Interned:
    """Sequences as token numbers: one flat array, each sequence's start and length."""

    def __init__(self, seqs: Sequence[Sequence[str]], vocab: dict[str, int]) -> None:
        self.lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        self.starts = np.concatenate(([0], np.cumsum(self.lens)[:-1])).astype(np.int64)
        self.flat = np.fromiter((vocab.setdefault(t, len(vocab)) for s in seqs for t in s),
                                dtype=np.int32, count=int(self.lens.sum()))

    def tokens(self, of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lengths of sequences ``of`` and their tokens one after another."""
        lens = self.lens[of]
        return lens, self.flat[np.repeat(self.starts[of], lens) + _positions(lens)]


def lcs_lengths(firsts: Sequence[Sequence[str]], seconds: Sequence[Sequence[str]]
                ) -> list[int]:
    """``lcs_length(firsts[p], seconds[p])`` of every pair ``p``."""
    if len(firsts) != len(seconds):
        raise ValueError(f"lcs_lengths: {len(firsts)} first sequences, {len(seconds)} second")
    (a, a_of), (b, b_of) = _distinct(firsts), _distinct(seconds)
    return lcs_of_pairs(a, b, a_of, b_of)


def _distinct(seqs: Sequence[Sequence[str]]) -> tuple[list[tuple[str, ...]], list[int]]:
    index: dict[tuple[str, ...], int] = {}
    of = [index.setdefault(tuple(s), len(index)) for s in seqs]
    return list(index), of


def lcs_of_pairs(firsts: Sequence[Sequence[str]], seconds: Sequence[Sequence[str]],
                 first_of: Sequence[int], second_of: Sequence[int]) -> list[int]:
    """``lcs_length(firsts[first_of[p]], seconds[second_of[p]])`` of every pair ``p``: the
    sequences listed once however many pairs meet them (a reply against thirty references,
    a reference against every member's reply)."""
    vocab: dict[str, int] = {}
    a, b = _Interned(firsts, vocab), _Interned(seconds, vocab)
    a_of = np.asarray(first_of, dtype=np.int64)
    b_of = np.asarray(second_of, dtype=np.int64)
    out = np.zeros(len(a_of), dtype=np.int64)
    words = np.maximum(1, -(-b.lens // WORD))[b_of]
    for w in np.unique(words).tolist():
        pairs = np.flatnonzero(words == w)
        out[pairs] = _lengths(a, b, a_of[pairs], b_of[pairs], w, len(vocab))
    return out.tolist()


def _lengths(a: _Interned, b: _Interned, a_of: np.ndarray, b_of: np.ndarray, w: int,
             n_vocab: int) -> np.ndarray:
    """The LCS lengths of pairs whose second sequences take ``w`` words each, `CHUNK` pairs
    at a time (every token of every pair is expanded: memory stays bounded)."""
    mine, local = np.unique(b_of, return_inverse=True)  # their second sequences, numbered
    masks, per_run, tables = _masks(b, mine, w, n_vocab)
    lens = b.lens[b_of]
    out = np.empty(len(a_of), dtype=np.int64)
    for lo in range(0, len(a_of), CHUNK):
        part = slice(lo, lo + CHUNK)
        hit_pair, hit_row = _hits(a, a_of[part], local[part], per_run, tables)
        v = _steps(masks, hit_pair, hit_row, _full(lens[part], w))
        out[part] = lens[part] - np.bitwise_count(v).sum(axis=1, dtype=np.int64)
    return out


def _masks(b: _Interned, mine: np.ndarray, w: int, n_vocab: int
           ) -> tuple[np.ndarray, int, list[np.ndarray]]:
    """Each (second sequence, token)'s ``w``-word bit mask (bit j: token j of the sequence),
    one row each; and per run of ``per_run`` second sequences, a dense
    table of the row of each (sequence in the run, token), -1 where the token is not in it
    (at most `TABLE_CELLS` entries a table: ten times the paper grid meets tens of
    thousands of replies and words)."""
    lens, tok = b.tokens(mine)
    seq = np.repeat(np.arange(len(mine)), lens)
    pos = _positions(lens)
    keys, row = np.unique(seq * n_vocab + tok, return_inverse=True)
    masks = np.zeros((len(keys), w), dtype=np.uint64)
    np.bitwise_or.at(masks, (row, pos // WORD),
                     np.left_shift(np.uint64(1), (pos % WORD).astype(np.uint64)))
    per_run = max(1, TABLE_CELLS // max(1, n_vocab))
    tables = []
    for lo in range(0, len(mine), per_run):
        sel = np.flatnonzero((keys >= lo * n_vocab) & (keys < (lo + per_run) * n_vocab))
        table = np.full((min(per_run, len(mine) - lo), n_vocab), -1, dtype=np.int32)
        k = keys[sel] - lo * n_vocab
        table[k // n_vocab, k % n_vocab] = sel
        tables.append(table)
    return masks, per_run, tables


def _positions(lens: np.ndarray) -> np.ndarray:
    """0, 1, ..., len - 1 of each length in turn."""
    return np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)


def _hits(a: _Interned, a_of: np.ndarray, local: np.ndarray, per_run: int,
          tables: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair's tokens of its first sequence that occur in its second, in order: the
    pair (its position) and the mask row of each."""
    lens, tok = a.tokens(a_of)
    ends = np.cumsum(lens)
    seq = np.repeat(local.astype(np.int32), lens)
    if len(tables) == 1:
        row = tables[0][seq, tok]
    else:
        row = np.full(len(tok), -1, dtype=np.int32)
        for k, table in enumerate(tables):
            sel = np.flatnonzero(seq // per_run == k)
            row[sel] = table[seq[sel] - k * per_run, tok[sel]]
    found = np.flatnonzero(row >= 0)
    return np.searchsorted(ends, found, side="right"), row[found]


def _full(lens: np.ndarray, w: int) -> np.ndarray:
    """Per pair, ``w`` words with the low ``len`` bits set (the recurrence's start and mask)."""
    full = np.zeros((len(lens), w), dtype=np.uint64)
    for k in range(w):
        bits = np.clip(lens - k * WORD, 0, WORD)
        some = bits > 0
        full[some, k] = _ONES >> (WORD - bits[some]).astype(np.uint64)
    return full


def _steps(masks: np.ndarray, hit_pair: np.ndarray, hit_row: np.ndarray, full: np.ndarray
           ) -> np.ndarray:
    """The recurrence over each pair's hits in order, pairs with more hits first, so that
    the pairs still stepping at step j are the first ``live[j]``: step j's masks are one
    contiguous run of ``rows``, in the pairs' order."""
    n = len(full)
    per_pair = np.bincount(hit_pair, minlength=n)
    order = np.argsort(-per_pair, kind="stable")
    at = np.empty(n, dtype=np.int64)
    at[order] = np.arange(n)
    count = per_pair[order]
    live = np.searchsorted(-count, -np.arange(int(count[0]) if n else 0), side="left")
    start = np.concatenate(([0], np.cumsum(live)))
    rows = np.empty(len(hit_row), dtype=np.int64)
    # hits come pair by pair, each pair's in order: a pair's k-th is step k's
    rows[start[_positions(per_pair)] + at[hit_pair]] = hit_row
    full = full[order]
    v = full.copy()
    for j, m in enumerate(live.tolist()):
        now = v[:m]
        u = now & masks[rows[start[j]:start[j] + m]]
        v[:m] = (_add(now, u) | (now ^ u)) & full[:m]
    back = np.empty_like(v)
    back[order] = v
    return back


def _add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x + y`` of numbers written in words (low word first), the carry passed up."""
    if x.shape[1] == 1:
        return x + y
    out = np.empty_like(x)
    carry = np.zeros(len(x), dtype=np.uint64)
    for k in range(x.shape[1]):
        t = x[:, k] + y[:, k]
        s = t + carry
        carry = ((t < x[:, k]) | (s < t)).astype(np.uint64)
        out[:, k] = s
    return out
