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


#: The most question tokens one step-0 pass appends: its mask is (tokens x row length), and
#: SDPA widens it to the query's dtype, so 30 questions of 80 tokens over a 20k-token day take
#: one pass while hundreds of long questions take several.
STEP0_TOKENS = 4096


def packed_greedy(model: Any, cache: Any, tails: list[Any], max_new: int,
                  eos: set[int]) -> list[list[int]]:
    """Greedy tokens of each question (token ids after the shared prefix, which ``cache``
    holds, one row), at most ``max_new`` each, stopping after an end token. Called under
    inference mode."""
    import torch

    device = tails[0].device
    prefix = cache.get_seq_length()
    step = _Step(model, cache, _Row(prefix, device))
    # step 0: every question's own tokens, in passes of at most STEP0_TOKENS (a question
    # whole in one pass; the mask keeps each pass's questions apart from the others')
    first: list[int] = []
    for group in _groups([len(t) for t in tails], STEP0_TOKENS):
        owners = torch.cat([torch.full((len(tails[j]),), j, device=device) for j in group])
        index = torch.cat([prefix + torch.arange(len(tails[j]), device=device)
                           for j in group])
        keep = torch.cumsum(torch.tensor([len(tails[j]) for j in group], device=device),
                            0) - 1
        first += step(torch.cat([tails[j] for j in group])[None], owners, index, keep)
    out: list[list[int]] = [[] for _ in tails]
    active, length, chosen = list(range(len(tails))), [len(t) for t in tails], first
    while True:
        still = []
        for j, token in zip(active, chosen, strict=True):
            out[j].append(token)
            length[j] += 1
            if token not in eos and len(out[j]) < max_new:
                still.append(j)
        active = still
        if not active:
            return out
        chosen = step(torch.tensor([[out[j][-1] for j in active]], device=device),
                      torch.tensor(active, dtype=torch.long, device=device),
                      torch.tensor([prefix + length[j] - 1 for j in active], device=device),
                      len(active))


class _Step:
    """One forward over new tokens appended to the packed row: their greedy next tokens."""

    def __init__(self, model: Any, cache: Any, row: _Row) -> None:
        self.model, self.cache, self.row = model, cache, row
        self.eager = model.config._attn_implementation == "eager"
        self.name = cache_argument(model)

    def __call__(self, ids: Any, owners: Any, index: Any, keep: Any) -> list[int]:
        import torch

        mask = self.row.append(owners)
        if self.eager:
            dtype = self.model.dtype
            mask = torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
                ~mask, torch.finfo(dtype).min)
        logits = self.model(input_ids=ids, attention_mask=mask,
                            position_ids=_positions(self.model, index), use_cache=True,
                            logits_to_keep=keep, **{self.name: self.cache}).logits[0]
        return logits.argmax(-1).tolist()


def _groups(sizes: list[int], budget: int) -> list[list[int]]:
    """Consecutive indices whose sizes add up to at most ``budget`` (one alone if larger)."""
    out: list[list[int]] = [[]]
    total = 0
    for k, n in enumerate(sizes):
        if out[-1] and total + n > budget:
            out.append([])
            total = 0
        out[-1].append(k)
        total += n
    return out


def end_tokens(model: Any) -> set[int]:
    """The ids that end a reply (the generation config's end token or tokens)."""
    eos = model.generation_config.eos_token_id
    return set() if eos is None else {eos} if isinstance(eos, int) else set(eos)
