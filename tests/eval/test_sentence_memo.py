"""Sent.Sim embeds each distinct sentence once per process, with the vectors it would get alone."""

from __future__ import annotations

import numpy as np

from xlebench.eval.metrics import encoder
from xlebench.library.embed import HashingEmbedder


class Counting(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(16)
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen += list(texts)
        return super().encode(texts)


def test_each_distinct_sentence_is_embedded_once(monkeypatch) -> None:
    inner = Counting()
    memo = encoder.SharedEncoder(inner)
    texts = ["I cook.", "I read.", "I cook.", "I walk.", "I read."]
    first = memo.encode(texts)
    again = memo.encode(["I walk.", "I swim.", "I cook."])
    assert inner.seen == ["I cook.", "I read.", "I walk.", "I swim."]
    direct = HashingEmbedder(16).encode(texts)
    assert np.array_equal(first, direct)
    assert np.array_equal(again, HashingEmbedder(16).encode(["I walk.", "I swim.", "I cook."]))
    assert memo.encode([]).shape == (0, 16)


def test_the_memo_stays_bounded(monkeypatch) -> None:
    monkeypatch.setattr(encoder, "SENTENCE_MEMO", 3)
    inner = Counting()
    memo = encoder.SharedEncoder(inner)
    memo.encode([f"sentence {i}" for i in range(5)])
    assert len(memo.memo) == 3 and list(memo.memo) == ["sentence 2", "sentence 3", "sentence 4"]
    memo.encode(["sentence 0"])  # evicted, so embedded again
    assert inner.seen.count("sentence 0") == 2
