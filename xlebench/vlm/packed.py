"""Questions after one shared prefix, decoded in one packed row (greedy).

The earlier way repeated the prefix's key/value cache once per question and decoded the
questions as a batch: at a day's 20k tokens on a 7B model that is 1.15 GB per question copied
once, copied again by every decoding step's cache append, and read again (expanded to every
attention head, since a padded batch's masked attention cannot use grouped-query kernels) by
every step's attention — on a lent H100, 30 questions cost ~0.24 s each after a 1.2 s prefix.

Here the prefix's cache stays one row. Every question's own tokens are appended to that row,
side by side, and an explicit mask lets each token see the prefix and the earlier tokens of its
own question only; positions are the ones a separate request gives each token (the prefix's
length plus its place in the question, through the model's own text-position rule). Each
decoding step then appends one token per unfinished question. Attention reads the prefix once
per step for all questions, and nothing is copied per question. Under greedy decoding every
step's logits are a separate request's (tested against separate requests on tiny LLaVA and
Qwen2-VL models); the backend uses it only where that holds (`packable`), else it repeats.
"""

from __future__ import annotations

import inspect
from typing import Any

#: Generation settings that change greedy logits or stopping, which this loop does not apply:
#: a model whose generation config sets any of them decodes the repeated-prefix way.
_UNSUPPORTED = ("repetition_penalty", "no_repeat_ngram_size", "bad_words_ids",
                "suppress_tokens", "begin_suppress_tokens", "forced_bos_token_id",
                "forced_eos_token_id", "sequence_bias", "min_new_tokens", "min_length",
                "encoder_repetition_penalty", "exponential_decay_length_penalty",
                "renormalize_logits", "stop_strings", "watermarking_config")


def packable(model: Any, temperature: float) -> bool:
    """Whether the packed loop gives exactly what ``generate`` gives: greedy decoding, an
    attention that takes an explicit 4-D mask (SDPA or eager), and no logits processor."""
    from transformers import GenerationConfig

    if temperature > 0:
        return False
    if getattr(model.config, "_attn_implementation", None) not in ("sdpa", "eager"):
        return False
    default, own = GenerationConfig(), model.generation_config
    return all(getattr(own, k, None) == getattr(default, k, None) for k in _UNSUPPORTED)


def cache_argument(model: Any) -> str:
    """The forward's name for the key/value cache (``cache`` from transformers 5.2x on,
    ``past_key_values`` before)."""
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _positions(model: Any, index: Any) -> Any:
    """Position ids of text tokens at sequence indices ``index`` (1-D), as a separate
    request numbers them: the index itself, shifted by M-RoPE's offset (Qwen2-VL family: an
    image's tokens take fewer positions than tokens) and given on each of its 3 sections."""
    inner = getattr(model, "model", None)
    delta = getattr(inner, "rope_deltas", None)
    if delta is None:
        return index[None]
    return (index + delta.reshape(-1)[0]).view(1, 1, -1).expand(3, 1, -1)


class _Row:
    """The packed row's bookkeeping: who owns each cache column, where each question's next
    token goes, and the mask of a step's new tokens."""

    def __init__(self, prefix: int, device: Any) -> None:
        import torch

        self.owner = torch.full((prefix,), -1, dtype=torch.long, device=device)
        self.prefix = prefix

    def append(self, owners: Any) -> Any:
        """Add columns for new tokens of these questions; the mask rows of those tokens
        (each sees the prefix and its own question's columns up to itself)."""
        import torch

        start = len(self.owner)
        self.owner = torch.cat([self.owner, owners])
        cols = torch.arange(len(self.owner), device=owners.device)
        mine = (self.owner[None, :] == owners[:, None]) & (
            cols[None, :] <= (start + torch.arange(len(owners), device=owners.device))[:, None])
        return ((self.owner == -1)[None, :] | mine)[None, None]


def packed_greedy(model: Any, cache: Any, tails: list[Any], max_new: int,
                  eos: set[int]) -> list[list[int]]:
    """Greedy tokens of each question (token ids after the shared prefix, which ``cache``
    holds, one row), at most ``max_new`` each, stopping after an end token. Called under
    inference mode."""
    import torch

    device = tails[0].device
    prefix = cache.get_seq_length()
    row = _Row(prefix, device)
    eager = model.config._attn_implementation == "eager"
    name = cache_argument(model)
    out: list[list[int]] = [[] for _ in tails]
    # step 0: every question's own tokens; then one token per unfinished question
    ids = torch.cat(tails)[None]
    owners = torch.cat([torch.full((len(t),), j, device=device) for j, t in enumerate(tails)])
    index = torch.cat([prefix + torch.arange(len(t), device=device) for t in tails])
    keep = torch.cumsum(torch.tensor([len(t) for t in tails], device=device), 0) - 1
    active = list(range(len(tails)))
    length = [len(t) for t in tails]
    while active:
        mask = row.append(owners)
        if eager:
            mask = torch.zeros(mask.shape, dtype=model.dtype, device=device).masked_fill(
                ~mask, torch.finfo(model.dtype).min)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=_positions(model, index),
                       use_cache=True, logits_to_keep=keep, **{name: cache}).logits[0]
        chosen = logits.argmax(-1).tolist()
        still = []
        for j, token in zip(active, chosen, strict=True):
            out[j].append(token)
            length[j] += 1
            if token not in eos and len(out[j]) < max_new:
                still.append(j)
        active = still
        ids = torch.tensor([[out[j][-1] for j in active]], device=device)
        owners = torch.tensor(active, dtype=torch.long, device=device)
        index = torch.tensor([prefix + length[j] - 1 for j in active], device=device)
        keep = len(active)
    return out


def end_tokens(model: Any) -> set[int]:
    """The ids that end a reply (the generation config's end token or tokens)."""
    eos = model.generation_config.eos_token_id
    return set() if eos is None else {eos} if isinstance(eos, int) else set(eos)
