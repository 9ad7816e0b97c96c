"""`best_constant` with its kept ranks, overlaps and rows against the plain definition."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from xlebench.eval.metrics import rouge_l, rouge_tokens
from xlebench.eval.scorers import text_constant as tc

WORDS = ("C the a and then in of walks cooks room kitchen table door opens washes dishes "
         "sink reads book garden paints fence sweeps leaves bike repairs garage").split()


def _plain(texts: list[str], seed: int) -> str:
    """The definition, written out: the distinct texts in sorted order, the `TARGETS`
    (text, occurrence) pairs first by the seeded digest, a shortlist of `CANDIDATES` by mean
    unigram F over those targets, then the best mean ROUGE-L (ties: shorter, then first)."""
    distinct = sorted({t for t in texts if t.strip()})
    if not distinct:
        return tc.GENERIC_SUMMARY
    seen: dict[str, int] = {}
    keyed = []
    for t in texts:
        if t.strip():
            keyed.append((tc._sample_rank(seed, t, seen.get(t, 0)), t))
            seen[t] = seen.get(t, 0) + 1
    targets = [t for _, t in sorted(keyed)[:tc.TARGETS]]
    words = {t: set(rouge_tokens(t)) for t in {*distinct, *targets}}
    overlap = np.array([[len(words[c] & words[t]) for t in targets] for c in distinct],
                       dtype=np.float32)
    sizes = (np.array([len(words[c]) for c in distinct], dtype=np.float32)[:, None]
             + np.array([len(words[t]) for t in targets], dtype=np.float32)[None, :])
    unigram = (2 * overlap / np.maximum(sizes, 1)).mean(1)
    short = [distinct[i] for i in np.argsort(-unigram, kind="stable")[:tc.CANDIDATES]]
    score = {c: float(np.mean([rouge_l(c, t) for t in targets])) for c in short}
    return max(short, key=lambda c: (score[c], -len(c), c))


def _universe(rng: random.Random, n: int, tag: str) -> list[str]:
    """``n`` references, some repeated, some blank, of 1 to 30 words."""
    out = []
    for k in range(n):
        if k and rng.random() < 0.15:
            out.append(rng.choice(out))  # the same reference again
        elif rng.random() < 0.05:
            out.append(rng.choice(["", "  "]))
        else:
            out.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30)))
                       + f" {tag}{k % 7}")
    return out


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept ranks, overlaps and rows of this test only."""
    monkeypatch.setattr(tc, "_RANKED", {})
    monkeypatch.setattr(tc, "_UNIGRAMS", tc._Unigrams(tc.UNIGRAM_BYTES))
    monkeypatch.setattr(tc, "_ROWS", {})


@pytest.mark.usefixtures("fresh")
@pytest.mark.parametrize("targets", [tc.TARGETS, 8])
def test_fits_over_nearly_the_same_sets_equal_the_plain_definition(
        monkeypatch: pytest.MonkeyPatch, targets: int) -> None:
    """Per-item fits (a universe less a few of its texts, in any order), two universes
    interleaved and two seeds: each answer is the plain definition's; with 8 targets the
    sample is a strict choice among the texts, and a removed text's place is taken."""
    monkeypatch.setattr(tc, "TARGETS", targets)
    rng = random.Random(3)
    universes = [_universe(rng, 150, "a"), _universe(rng, 60, "b")]
    for trial in range(40):
        texts = list(universes[trial % 2])
        for _ in range(rng.randint(0, 6)):
            texts.pop(rng.randrange(len(texts)))
        rng.shuffle(texts)
        seed = int(trial % 3 == 0)
        assert tc.best_constant(texts, seed=seed) == _plain(texts, seed), trial


@pytest.mark.usefixtures("fresh")
def test_evicted_overlaps_and_equal_ranks_give_the_same_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Share columns dropped for room after every fit are counted again, and sample ranks
    that collide (one byte) fall back to ordering by the text: the plain answers."""
    monkeypatch.setattr(tc, "_UNIGRAMS", tc._Unigrams(1))
    monkeypatch.setattr(tc, "TARGETS", 12)
    rng = random.Random(8)
    universe = _universe(rng, 90, "c")
    for trial in range(10):
        texts = [t for t in universe if rng.random() > 0.1]
        assert tc.best_constant(texts, seed=1) == _plain(texts, 1), trial
    monkeypatch.setattr(tc, "_sample_rank", lambda seed, text, occ: hashlib.blake2b(
        f"{seed}|{occ}|{text}".encode(), digest_size=1).digest())
    monkeypatch.setattr(tc, "_RANKED", {})
    for trial in range(10):
        texts = [t for t in universe if rng.random() > 0.1]
        assert tc.best_constant(texts, seed=2) == _plain(texts, 2), trial
    assert tc._RANKED[2].tied


@pytest.mark.usefixtures("fresh")
def test_no_text_or_only_blanks_give_the_generic_summary() -> None:
    assert tc.best_constant([]) == tc.best_constant(["", " \n"]) == tc.GENERIC_SUMMARY
    assert tc.best_constant(["", "C cooks rice."]) == "C cooks rice."


@pytest.mark.usefixtures("fresh")
def test_fits_from_several_threads_equal_the_plain_definition() -> None:
    """Units of a network-bound stage run in threads: fits over different universes at once
    give each its plain answer."""
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(13)
    sets = [_universe(rng, rng.randint(20, 160), f"t{k}") for k in range(12)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda texts: tc.best_constant(texts, seed=4), sets))
    assert got == [_plain(texts, 4) for texts in sets]
