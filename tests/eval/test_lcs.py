"""The lockstep LCS (`xlebench.eval.metrics.lcs`) against the one-pair recurrence, and both
against rouge-score's own table (`rouge_scorer._lcs_table`), the LCS its ROUGE-L reads."""

from __future__ import annotations

import random

import pytest

from xlebench.eval.metrics import content_tokens, lcs_length, rouge_l_tokens
from xlebench.eval.metrics import lcs as lcs_module
from xlebench.eval.metrics.lcs import lcs_lengths, lcs_of_pairs
from xlebench.eval.scorers.text_window import window_ids

#: lengths at and around the word boundaries, where the carry and the top word's mask act
EDGES = (0, 1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193, 260)


def _seq(rng: random.Random, vocab: list[str]) -> tuple[str, ...]:
    n = rng.choice(EDGES) if rng.random() < 0.5 else rng.randint(0, 150)
    return tuple(rng.choice(vocab) for _ in range(n))


@pytest.mark.parametrize("seed", range(6))
def test_every_pair_equals_the_one_pair_recurrence(seed: int) -> None:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(rng.choice((1, 2, 5, 40)))]
    firsts = [_seq(rng, vocab) for _ in range(60)]
    seconds = [_seq(rng, vocab) for _ in range(60)]
    expected = [lcs_length(a, b) for a, b in zip(firsts, seconds, strict=True)]
    assert lcs_lengths(firsts, seconds) == expected
    assert lcs_lengths(seconds, firsts) == expected  # symmetric
    assert len(set(expected)) > 3


def test_both_equal_rouge_scores_table() -> None:
    from rouge_score import rouge_scorer

    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(6)]
    firsts = [_seq(rng, vocab)[:90] for _ in range(30)]
    seconds = [_seq(rng, vocab)[:90] for _ in range(30)]
    table = [rouge_scorer._lcs_table(list(a), list(b))[-1][-1]
             for a, b in zip(firsts, seconds, strict=True)]
    assert [lcs_length(a, b) for a, b in zip(firsts, seconds, strict=True)] == table
    assert lcs_lengths(firsts, seconds) == table


def test_a_run_of_ones_carries_across_every_word() -> None:
    """A second sequence of one repeated token is all ones in its mask: adding to it carries
    from the lowest word to the top, where a lost carry would show."""
    long = ("x",) * 200
    for n in (1, 63, 64, 65, 130, 200, 250):
        assert lcs_lengths([("x",) * n, ("y", "x") * n], [long, long]) == \
            [lcs_length(("x",) * n, long), lcs_length(("y", "x") * n, long)]


def test_pairs_by_index_with_tables_split_in_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shared sequences met by many pairs, the look-up tables cut into runs of a few second
    sequences (what ten times the paper grid's vocabulary does), the pairs in chunks of 7,
    in any order of pairs."""
    monkeypatch.setattr(lcs_module, "TABLE_CELLS", 64)
    monkeypatch.setattr(lcs_module, "CHUNK", 7)
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(30)]
    firsts = [_seq(rng, vocab) for _ in range(25)]
    seconds = [_seq(rng, vocab) for _ in range(40)]
    a_of = [rng.randrange(len(firsts)) for _ in range(500)]
    b_of = [rng.randrange(len(seconds)) for _ in range(500)]
    assert lcs_of_pairs(firsts, seconds, a_of, b_of) == \
        [lcs_length(firsts[i], seconds[j]) for i, j in zip(a_of, b_of, strict=True)]
    assert lcs_of_pairs(firsts, seconds, [], []) == []
    with pytest.raises(ValueError, match="2 first sequences, 1 second"):
        lcs_lengths([("a",), ("b",)], [("a",)])


def test_window_ids_on_long_references_equal_each_pair_compared_apart() -> None:
    """Day-long references (more content words than a word holds) and replies repeated
    across items: every value is the one ROUGE-L pair by pair gives."""
    rng = random.Random(11)
    words = ("breakfast kitchen bicycle garden laptop email meeting lunch market cooking "
             "dishes laundry reading walking dog park train office coffee phone").split()

    def text(n: int) -> str:
        return "C " + " ".join(rng.choice(words) for _ in range(n)) + "."

    refs = [text(rng.choice((5, 60, 70, 140))) for _ in range(12)]
    replies = [rng.choice([None, "", refs[0], text(80), text(3), refs[-1 - k]])
               for k in range(12)]
    riv = [[j for j in range(12) if j != k][: rng.randint(0, 11)] for k in range(12)]

    def apart(reply: str, k: int) -> float:
        near = [rouge_l_tokens(content_tokens(refs[j]), content_tokens(reply))
                for j in (k, *riv[k])]
        return round((sum(near[0] > x for x in near[1:]) + 0.5 * sum(near[0] == x
                                                                      for x in near[1:]))
                     / len(riv[k]), 10)

    expected = [None if r is None or not riv[k] else apart(r, k) for k, r in enumerate(replies)]
    assert window_ids(replies, refs, riv) == expected
    assert len({v for v in expected if v is not None}) > 2
