"""The transformers backend's tensor helpers: the shared prompt prefix of a batch (computed once,
its padding moved after it), log-probabilities of reply tokens, and the seed a generation is
drawn with. torch is imported inside each, as the backend itself loads it only when chosen."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from typing import Any


def last_logits_only(model: Any) -> dict:
    """``logits_to_keep=1`` where the model takes it: a prefix pass needs its cache and its
    last position's logits, not a vocabulary row per token (by arithmetic, not measured: on
    a 7B model and a day's 20k tokens, a 20k x 152k bf16 logit matrix of 6 GB and its
    22-TFLOP product)."""
    import inspect

    takes = "logits_to_keep" in inspect.signature(model.forward).parameters
    return {"logits_to_keep": 1} if takes else {}


def seed_generation(texts: list[str]) -> None:
    """Sampling seeded by the requests' prompts: the same requests, the same answers."""
    import torch

    torch.manual_seed(int(hashlib.sha256("".join(texts).encode()).hexdigest()[:8], 16))


def mean_logprob(logits: Any, target: Any) -> float:
    """Mean log-probability of ``target`` under ``logits`` (one row per target token);
    -inf for an empty target."""
    import torch

    if not len(target):
        return float("-inf")
    logp = torch.log_softmax(logits.float(), dim=-1).gather(1, target[:, None])
    return round(float(logp.mean()), 6)


def prefix_holds_images(texts: list[str], marker: str | None) -> bool:
    """Whether the prompts' common text ends after their last image (checked on the text, so
    requests whose question comes before the frames never pay for tokenising twice)."""
    if not marker:
        return True  # unknown placeholder: the token-level check decides
    common = os.path.commonprefix(texts)
    return all(t.rfind(marker) + len(marker) <= len(common) for t in texts)


def after_prefix(ids: list, common: int, pad: int) -> tuple[Any, Any]:
    """One batch of every question after their shared prefix: each row is the prefix, then
    padding, then the question's own tokens, so the questions end together and decode as one
    batch; the mask hides the padding, and positions follow the mask (generation counts them
    from it), so each row's tokens sit where a separate request puts them."""
    import torch

    width = max(len(x) for x in ids)
    rows, masks = [], []
    for x in ids:
        gap = width - len(x)
        rows.append(torch.cat([x[:common], x.new_full((gap,), pad), x[common:]]))
        masks.append(torch.cat([x.new_ones(common), x.new_zeros(gap),
                                x.new_ones(len(x) - common)]))
    return torch.stack(rows), torch.stack(masks)


def common_prefix(ids: list) -> int:
    """Length of the token prefix every sequence shares."""
    n = min(len(x) for x in ids)
    first = ids[0][:n]
    common = n
    for x in ids[1:]:
        differ = (x[:n] != first).nonzero()
        if len(differ):
            common = min(common, int(differ[0]))
    return common


@contextlib.contextmanager
def shape_free_attention(device: str) -> Iterator[None]:
    """SDPA without its cuDNN backend on CUDA. PyTorch 2.11 prefers cuDNN's attention on an
    H100, and cuDNN builds an execution plan for every new shape: a day's prefix has its own
    length in every life log, and packed decoding grows the key length at every step, so
    nearly every call is a new shape. Measured on a lent H100 (`benchmarks/gpu_limits.py`,
    7B, 64 frames, 30 questions): decoding took 4.5-6.3 s with plans built and 0.77 s with them
    cached; flash and memory-efficient kernels need no plan."""
    if not device.startswith("cuda"):
        yield
        return
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                      SDPBackend.MATH]):
        yield
