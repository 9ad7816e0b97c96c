"""The VLM interface every system uses: building the configured backend, and answering many
requests at once. ``answer(messages)`` returns a `Completion`; ``answer_batch`` answers several
requests, each cached on its own (`xlebench.vlm.cached`, shared by the in-process backends;
the litellm backend caches through the text client)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from xlebench.config.backends import vlm_backend
from xlebench.config.schema import VLMConfig
from xlebench.llm.client import Completion


def answer_all(vlm: Any, batch: Sequence[list[dict]], sample: int = 0) -> list[Completion]:
    """``vlm.answer_batch`` when it has one (in-process batching), else the requests in
    threads, as many at once as the backend allows; ``sample`` k > 0 asks for the k-th
    sampled answer of each (cached apart)."""
    more = {"sample": sample} if sample else {}
    if hasattr(vlm, "answer_batch"):
        return vlm.answer_batch(list(batch), **more)
    with ThreadPoolExecutor(max_workers=max(1, vlm.settings.max_concurrency)) as pool:
        return list(pool.map(partial(vlm.answer, **more), batch))


def make_vlm(settings: VLMConfig, cache_dir: Path) -> Any:
    """The configured backend, from its declaration (`xlebench.config.backends`; imported
    only when chosen: transformers only for vlm=transformers)."""
    import importlib

    module, _, cls = vlm_backend(settings.backend).factory.partition(":")
    return getattr(importlib.import_module(module), cls)(settings, cache_dir)
