"""BERTScore equals the bert-score package (0.3.13, the dev extra) on the same model and layer.

Expected values come from that package, run here beside ours. Each pair is scored by it on
its own: in a padded batch bert-score lets a padding position's 0 beat a token's negative
cosines, so its value for a pair moves with the other pairs of the batch (by up to 1e-4 on
real summaries); alone it has no padding, and that value is the one a score can equal."""

from __future__ import annotations

import json

import pytest
import torch

from xlebench.eval.metrics.bert_tokens import slow_tokenizer
from xlebench.eval.metrics.bertscore import BERTScorer, default_model_path

bert_score = pytest.importorskip("bert_score")

LONG = " ".join(f"C {verb} the {thing} in the {room}." for verb, thing, room in
                zip(["washes", "moves", "opens", "cuts", "dries"] * 12,
                    ["cup", "box", "drawer", "bread", "towel", "chair"] * 10,
                    ["kitchen", "garage", "hall", "studio"] * 15, strict=False))
PAIRS = [
    ("C cooks pasta in the kitchen.", "C cooks pasta in the kitchen."),
    ("C is cooking pasta at home.", "C cooks pasta in the kitchen."),
    ("C walks the dog.", "C repairs a bicycle wheel in the garage, then paints a fence."),
    ("", "C sits on a bench."),  # an empty reply
    ("C sits.", "   "),  # a blank reference
    ("  C  reads\ta book. ", "C reads a book on the sofa."),
    ("C smiles 🙂 at the café [SEP] owner", "C orders a coffee at a cafe."),  # [UNK], a literal [SEP]
    ("C washes a cup.", LONG[:1400]),  # over Sent.Sim's 256 tokens, under 512
    (LONG[:600], LONG),  # over 512 tokens: cut at the limit
    (LONG[:1400], "C washes the cup in the kitchen."),  # a long reply
]


def _official(model: str, layer: int, pairs) -> list[float]:
    """bert-score's F1 of each pair alone. A blank side scores 0, as bert-score says it does
    ("Empty candidate sentence detected; setting raw BERTscores to 0"): under transformers 5
    its `sent_encode` of an empty text fails before it gets there."""
    scorer = bert_score.BERTScorer(model_type=model, num_layers=layer, idf=False,
                                   device="cpu", batch_size=1)
    return [float(scorer.score([c], [r])[2][0]) if c.strip() and r.strip() else 0.0
            for c, r in pairs]


def test_minilm_last_layer_equals_bert_score() -> None:
    ours = BERTScorer().f1([c for c, _ in PAIRS], [r for _, r in PAIRS])
    want = _official(default_model_path(), 6, PAIRS)
    assert ours == pytest.approx(want, abs=1e-6)
    assert ours[3] == ours[4] == 0.0 and ours[0] == pytest.approx(1.0, abs=1e-6)


def test_another_layer_of_another_model_equals_bert_score(tmp_path) -> None:
    """A model by path at a layer below its last: the scorer's own pass (no shared one)."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    BertModel(BertConfig(hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                         intermediate_size=64)).save_pretrained(tmp_path)
    slow_tokenizer(default_model_path()).save_pretrained(tmp_path)
    scorer = BERTScorer(str(tmp_path), layer=2)
    assert scorer._shared is None
    ours = scorer.f1([c for c, _ in PAIRS], [r for _, r in PAIRS])
    assert ours == pytest.approx(_official(str(tmp_path), 2, PAIRS), abs=1e-6)


def test_a_byte_level_tokenizer_reads_as_bert_score_reads(tmp_path) -> None:
    """RoBERTa's family (the paper's default model is roberta-large): its <s> and </s>
    weigh 0, and texts are encoded as bert-score encodes them (a prefix space)."""
    from transformers import RobertaConfig, RobertaModel
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    chars = sorted(set(bytes_to_unicode().values()))
    vocab = {t: i for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", *chars, "<mask>"])}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "RobertaTokenizer", "model_max_length": 96}))
    torch.manual_seed(1)
    RobertaModel(RobertaConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                               num_attention_heads=2, intermediate_size=64,
                               max_position_embeddings=98, pad_token_id=1, bos_token_id=0,
                               eos_token_id=2)).save_pretrained(tmp_path)
    pairs = [(c[:150], r[:150]) for c, r in PAIRS]  # a character per token: longer is cut at 96
    ours = BERTScorer(str(tmp_path), layer=2).f1([c for c, _ in pairs], [r for _, r in pairs])
    assert ours == pytest.approx(_official(str(tmp_path), 2, pairs), abs=1e-6)
