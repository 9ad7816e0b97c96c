"""BERTScore (default model and layer) and Sent.Sim share one MiniLM forward pass, and the
shared pass gives exactly the bits of separate passes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from xlebench.eval.metrics import encoder
from xlebench.eval.metrics.bertscore import BERTScorer
from xlebench.eval.scorers import TextSimilarity
from xlebench.library.embed import MiniLMEmbedder

TEXTS = [
    "",
    "C cooks.",
    "C cooks pasta in the kitchen.",
    "C walks the dog in the park, then C buys bread at the corner bakery.",
    "In the morning C made coffee; later C repaired a bicycle wheel in the garage.",
    "C read.  Double  spaces\tand a tab.",
    "C " + "washed the dishes and " * 80 + "stopped.",  # over 256 tokens: a pass of its own
    *(f"C sorted {k} boxes of screws in the workshop." for k in range(40)),
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_sentence_vectors_of_the_shared_pass_are_encode_s(embedder) -> None:
    vectors, tokens = embedder.encode_with_tokens(TEXTS)
    assert np.array_equal(vectors, embedder.encode(TEXTS))
    assert len(tokens) == len(TEXTS)
    assert all(t["token_embeddings"].shape[1] == embedder.dim for t in tokens)


def test_bertscore_token_vectors_are_those_of_its_own_model(monkeypatch, embedder) -> None:
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: encoder.SharedEncoder(embedder))
    shared, alone = BERTScorer(), BERTScorer()
    alone.__dict__["_shared"] = None  # its own AutoModel, as before the shared pass
    assert shared._shared is not None
    got, want = shared._embed(TEXTS), alone._embed(TEXTS)
    assert all(torch.equal(a.vectors, b.vectors) and a.weighted == b.weighted
               for a, b in zip(got, want, strict=True))
    assert (got[0].vectors.shape[0], got[0].weighted) == (2, 0), "[CLS] and [SEP], weight 0"
    assert got[6].vectors.shape[0] > 256, "read to the tokenizer's 512, past Sent.Sim's 256"
    cands, refs = TEXTS[1:20], TEXTS[20:39]
    assert shared.f1(cands, refs) == alone.f1(cands, refs)


def test_one_pass_serves_both_metrics(monkeypatch, embedder) -> None:
    calls: list[str] = []

    class Counting(MiniLMEmbedder):
        def encode(self, texts):
            calls.extend(texts)
            return super().encode(texts)

        def encode_with_tokens(self, texts):
            calls.extend(texts)
            return super().encode_with_tokens(texts)

    counting = Counting()
    counting._model = embedder._load()
    shared = encoder.SharedEncoder(counting)
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: shared)
    refs = ["C cooks pasta in the kitchen.", "C walks the dog in the park."]
    rows = [{"status": "ok", "response": r, "scores": {}} for r in ("C cooks.", "C walks.")]
    items = [{"answer": {"text": t}} for t in refs]
    settings = type("S", (), {"bertscore": True})()
    TextSimilarity().model_metrics(rows, items, settings, BERTScorer())
    assert sorted(calls) == sorted(["C cooks.", "C walks.", *refs]), "each text embedded once"
    direct = embedder.encode(["C cooks.", refs[0]]).astype(np.float64)
    assert rows[0]["scores"]["sent_sim"] == round(float(direct[0] @ direct[1]), 10)


def test_other_layers_and_models_keep_their_own_pass() -> None:
    assert BERTScorer(layer=3)._shared is None
    with pytest.raises(ValueError, match="layers"):
        BERTScorer(layer=7).describe()


class _Counting(MiniLMEmbedder):
    """MiniLM that records what runs through the model."""

    def __init__(self, loaded: MiniLMEmbedder) -> None:
        super().__init__()
        self._model = loaded._load()
        self.calls: list[str] = []

    def encode(self, texts):
        self.calls.extend(texts)
        return super().encode(texts)

    def encode_with_tokens(self, texts):
        self.calls.extend(texts)
        return super().encode_with_tokens(texts)


def test_stored_reference_vectors_are_the_computed_bits(tmp_path, embedder) -> None:
    first = encoder.SharedEncoder(_Counting(embedder))
    computed = first.tokens(TEXTS[:12], store=tmp_path)
    later = encoder.SharedEncoder(_Counting(embedder))
    read = later.tokens(TEXTS[:12], store=tmp_path)
    assert later.embedder.calls == [], "every vector came from the store"
    assert all(torch.equal(a.vectors, b.vectors) and a.weighted == b.weighted
               for a, b in zip(computed, read, strict=True))
    assert np.array_equal(later.encode(TEXTS[:12]), first.encode(TEXTS[:12]))
    assert later.embedder.calls == [], "the stored sentence vectors serve Sent.Sim"
    [db] = tmp_path.glob("text-metrics-all-MiniLM-L6-v2-*.sqlite")
    assert torch.__version__.split("+")[0] in db.name


def test_a_later_evaluation_embeds_only_new_replies(monkeypatch, tmp_path, embedder) -> None:
    counting = _Counting(embedder)
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: encoder.SharedEncoder(counting))
    cands, refs = TEXTS[1:6], TEXTS[6:11]
    plain = BERTScorer().f1(cands, refs)
    counting.calls.clear()
    assert BERTScorer(store=tmp_path).f1(cands, refs) == plain
    new = ["C fixed a chair.", "C ate lunch."]
    want = BERTScorer().f1(new, refs[:2])
    counting.calls.clear()
    assert BERTScorer(store=tmp_path).f1(new, refs[:2]) == want
    assert counting.calls == new, "the references came from the store"


def test_a_reply_that_is_a_stored_reference_runs_no_pass(monkeypatch, tmp_path, embedder
                                                          ) -> None:
    """The blind panel's echo members reply with other items' references: those come from
    the store the references fill, read before the replies, not from the model."""
    counting = _Counting(embedder)
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: encoder.SharedEncoder(counting))
    refs = TEXTS[6:11]
    echoes = refs[1:] + refs[:1]  # each item answered with the next one's reference
    want = BERTScorer().f1(echoes, refs)
    BERTScorer(store=tmp_path).f1(["C ate lunch."] * len(refs), refs)  # the store filled
    counting.calls.clear()
    assert BERTScorer(store=tmp_path).f1(echoes, refs) == want
    assert counting.calls == [], "every reply was a stored reference"


def test_a_later_evaluation_reads_the_pairs_it_scored_before(monkeypatch, tmp_path, embedder
                                                              ) -> None:
    """A benchmark is evaluated many times and its panel's members reply alike each time:
    the second time their BERTScore and Sent.Sim are read from the store (the values a fresh
    pass gives), with no pass and no model; a new pair passes only its reply."""
    from xlebench.eval.scorers.text import pair_metrics

    counting = _Counting(embedder)
    monkeypatch.setattr(encoder, "sentence_encoder", lambda: encoder.SharedEncoder(counting))
    pairs = list(zip([*TEXTS[1:6], "C ate lunch."], TEXTS[6:12], strict=True))
    fresh = pair_metrics(BERTScorer(), pairs)
    scorer = BERTScorer(store=tmp_path)
    assert pair_metrics(scorer, pairs[:3]) == fresh[:3]
    assert pair_metrics(scorer, pairs[3:]) == fresh[3:]  # kept alike after its first pass
    counting.calls.clear()
    assert pair_metrics(BERTScorer(store=tmp_path), [*pairs, pairs[0]]) == [*fresh, fresh[0]]
    assert counting.calls == [], "every pair came from the store"
    new = [("C fixed a chair.", TEXTS[6])]
    assert pair_metrics(BERTScorer(store=tmp_path), new) == pair_metrics(BERTScorer(), new)
    assert counting.calls[0] == "C fixed a chair.", "its reference came from the store"
    assert BERTScorer(layer=3).pair_key != BERTScorer().pair_key  # another layer: its own
