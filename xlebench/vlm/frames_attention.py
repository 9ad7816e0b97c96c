"""The vision tower's attention over a day's frames in one call (Qwen2-VL family, SDPA).

Qwen2-VL's vision tower attends within each frame. Under SDPA, transformers runs that as one
attention call per frame per layer (64 frames x 32 layers: 2,048 small calls for one request,
each after a device-to-host read of the frames' lengths); only its flash-attention branch
hands the whole packed sequence to one call. Frames of one size (a life log's frames all are)
are a batch: this attention function takes that packed branch and runs the frames as one
batched SDPA call, falling back to a call per frame when their lengths differ. Registered
under a name with "flash" in it because that is the word transformers dispatches the packed
branch on; the arithmetic is PyTorch's SDPA, the same kernels as before.
"""

from __future__ import annotations

from typing import Any

NAME = "flash_sdpa_frames"


def frames_attention(module: Any, query: Any, key: Any, value: Any, attention_mask: Any,
                     scaling: float | None = None, dropout: float = 0.0,
                     cu_seq_lens_q: Any = None, **kwargs: Any) -> tuple[Any, None]:
    """Non-causal attention within each packed segment: query/key/value (1, heads, total,
    dim), segments from ``cu_seq_lens_q``; returns (1, total, heads, dim)."""
    import torch.nn.functional as F

    _, heads, total, dim = query.shape
    lengths = (cu_seq_lens_q[1:] - cu_seq_lens_q[:-1]).tolist()
    if len(set(lengths)) == 1:
        n, size = len(lengths), lengths[0]

        def frames(x: Any) -> Any:
            return x.reshape(heads, n, size, dim).transpose(0, 1)
        out = F.scaled_dot_product_attention(frames(query), frames(key), frames(value),
                                             scale=scaling)
        return out.permute(0, 2, 1, 3).reshape(1, total, heads, dim), None
    outs = [F.scaled_dot_product_attention(q, k, v, scale=scaling).transpose(1, 2)
            for q, k, v in zip(query.split(lengths, 2), key.split(lengths, 2),
                               value.split(lengths, 2), strict=True)]
    import torch
    return torch.cat(outs, dim=1), None


def enable(model: Any) -> bool:
    """Route a Qwen2-VL-family vision tower running SDPA through `frames_attention`; False
    (nothing changed) for any other model or attention."""
    from transformers import AttentionInterface

    visual = getattr(getattr(model, "model", None), "visual", None)
    config = getattr(visual, "config", None)
    if config is None or getattr(config, "_attn_implementation", None) != "sdpa" \
            or not hasattr(visual, "blocks"):
        return False
    AttentionInterface.register(NAME, frames_attention)
    config._attn_implementation = NAME
    return True
