"""Equals: bert-score 0.3.13's token side of BERTScore (`sent_encode`, `get_bert_embedding`,
`greedy_cos_idf` with the weights `BERTScorer` gives when ``idf=False``): which tokens of a
text are embedded, and which of them count in its mean.

bert-score encodes a text with the model's slow tokenizer as
``tokenizer.encode(text.strip(), add_special_tokens=True, max_length=tokenizer.model_max_length,
truncation=True)`` (byte-level BPE tokenizers with ``add_prefix_space``), runs the model's
first ``num_layers`` layers, and matches *every* token, [CLS] and [SEP] included, in the
greedy cosine match, while the mean that makes precision and recall gives [CLS] and [SEP]
weight 0. So a token's best match may be the other text's [CLS], and a text is read up to the
tokenizer's limit (512 for MiniLM), not to the 256 tokens sentence-transformers reads for
Sent.Sim. A version of this module that left the special tokens out and cut texts at 256
tokens was off by up to 0.033 F1 (74 of 120 real summary pairs differed by more than 1e-6).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Sequence
from functools import cache
from typing import Any, NamedTuple

from xlebench.library.embed import same_length_batches
from xlebench.library.threads import intra_op_threads


class TokenVectors(NamedTuple):
    """One text's unit token vectors as BERTScore matches them: the ``weighted`` tokens first,
    in the text's order, then the weightless ones ([CLS], [SEP]), matched but not averaged."""

    vectors: Any
    weighted: int

    def wide(self) -> TokenVectors:
        return TokenVectors(self.vectors.double(), self.weighted)


def token_vectors(hidden: Any, ids: Any, weightless: Collection[int]) -> TokenVectors:
    """A text's `TokenVectors` from its layer's rows and its token ids (no padding)."""
    import torch

    zero = torch.zeros_like(ids, dtype=torch.bool)
    for token in weightless:
        zero |= ids == token
    order = torch.cat([torch.nonzero(~zero).flatten(), torch.nonzero(zero).flatten()])
    return TokenVectors(torch.nn.functional.normalize(hidden[order], dim=-1),
                        int((~zero).sum()))


@cache
def slow_tokenizer(path: str) -> Any:
    """The tokenizer bert-score loads (``use_fast=False``): its ids are the ones scored."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path, use_fast=False)


def weightless_ids(tokenizer: Any) -> tuple[int, ...]:
    """The tokens bert-score weighs 0 without idf: [CLS] and [SEP] (RoBERTa's <s>, </s>)."""
    return tuple(t for t in (tokenizer.cls_token_id, tokenizer.sep_token_id) if t is not None)


def token_limit(tokenizer: Any, config: Any) -> int:
    """The tokens of a text bert-score reads: the tokenizer's ``model_max_length``, or the
    model's positions where the tokenizer states no limit (transformers' 1e30)."""
    return int(min(tokenizer.model_max_length, config.max_position_embeddings))


def encode_ids(tokenizer: Any, texts: Sequence[str], config: Any) -> list[list[int]]:
    """bert-score's `sent_encode` of each text: stripped, special tokens added, cut at
    `token_limit`; an empty text is its special tokens alone (bert-score builds those with
    ``build_inputs_with_special_tokens([])``, which transformers 5 dropped: ``encode("")``
    gives the same ids)."""
    from transformers import GPT2Tokenizer, RobertaTokenizer

    byte_level = isinstance(tokenizer, GPT2Tokenizer | RobertaTokenizer)  # bert-score's test
    extra = {"add_prefix_space": True} if byte_level else {}
    limit = token_limit(tokenizer, config)
    return [tokenizer.encode(text.strip(), add_special_tokens=True, max_length=limit,
                             truncation=True, **extra) for text in texts]


def texts_vectors(tokenizer: Any, hidden: Sequence[Any], ids: Sequence[list[int]]
                  ) -> list[TokenVectors]:
    """Each text's `TokenVectors` from its layer rows and the ids `encode_ids` gave it."""
    import torch

    weightless = weightless_ids(tokenizer)
    return [token_vectors(h, torch.tensor(x), weightless)
            for h, x in zip(hidden, ids, strict=True)]


def layer_rows(model: Any, ids: Sequence[list[int]], layer: int | None, batch_size: int,
               device: str = "cpu",
               precision: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
               ) -> list[Any]:
    """Each text's rows of hidden layer ``layer`` (None: the last), on the host in float32.
    Passes of equal length (`same_length_batches`), so no padding and a text's rows do not
    depend on the texts passed with it."""
    import torch

    out: list[Any] = [None] * len(ids)
    batches = same_length_batches([len(x) for x in ids], batch_size, fixed=device != "cpu")
    with torch.inference_mode(), intra_op_threads(), precision():
        for b in batches:
            x = torch.tensor([ids[i] for i in b.rows], device=device)
            res = model(input_ids=x, attention_mask=torch.ones_like(x),
                        output_hidden_states=layer is not None)
            hidden = res.last_hidden_state if layer is None else res.hidden_states[layer]
            for j, i in enumerate(b.real):
                out[i] = hidden[j].float().cpu()
    return out


def pair_f1(c: TokenVectors, r: TokenVectors) -> float:
    """BERTScore F1 of one pair (float64 vectors), as `greedy_cos_idf` computes it: each
    weighted token's best cosine over all the other side's tokens, averaged; 0 where either
    side has no weighted token (bert-score's empty candidate or reference)."""
    if c.weighted == 0 or r.weighted == 0:
        return 0.0
    sim = c.vectors @ r.vectors.T
    p = float(sim[: c.weighted].max(dim=1).values.mean())
    rec = float(sim[:, : r.weighted].max(dim=0).values.mean())
    return 2 * p * rec / (p + rec) if p + rec != 0 else 0.0
