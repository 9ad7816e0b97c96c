"""Compiled blocks for the transformers backend (``vlm.compile=blocks``): what ``torch.compile``
can fuse without touching the key/value cache.

A day's prompt is prefill-bound (20k tokens for 64 frames), and eager PyTorch runs the norms,
rotary embeddings and activations around each matrix product as separate kernels: the 7B
prefill ran at 46% of an H200's bf16 peak eager, 57% with whole decoder layers compiled
(`benchmarks/gpu_limits.py`). Whole decoder layers cannot be compiled in the backend: they
write the cache, and every life log's prefix has its own length, which recompiles a
shape-specialised graph each time. So the vision tower's blocks (no cache) are compiled
whole, and in each decoder layer the MLP and the two norms — the cache-free parts, most of
its FLOPs — with ``dynamic=True``, one graph for every length. The attention, with its cache,
stays eager. Greedy answers equal the eager model's (float32; tested on the tiny Qwen2-VL).
"""

from __future__ import annotations

from typing import Any

#: The decoder layer's parts that never see the cache.
LAYER_PARTS = ("mlp", "input_layernorm", "post_attention_layernorm")


def compile_blocks(model: Any) -> int:
    """Compile a Qwen2-VL-family model's cache-free blocks in place; the number compiled (0
    for a model of another layout, left as it is)."""
    inner = getattr(model, "model", None)
    visual = getattr(inner, "visual", None)
    language = getattr(inner, "language_model", None)
    if visual is None or language is None or not hasattr(language, "layers"):
        return 0
    import torch._dynamo

    # one graph per module kind and dynamic length; a guard failure must not stop a run
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)
    modules = [*getattr(visual, "blocks", [])]
    modules += [getattr(layer, part) for layer in language.layers for part in LAYER_PARTS
                if hasattr(layer, part)]
    for module in modules:
        module.compile(dynamic=True)
    return len(modules)
