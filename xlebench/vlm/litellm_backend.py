"""A VLM behind any OpenAI-compatible API (vLLM, SGLang, GPT-4o, Gemini) through litellm.

It is the text client (`xlebench.llm.client.LLMClient`) with image parts: the same retries,
rate-limit handling, concurrency limit, key rules and cache, the frames sent as base64 JPEG
``image_url`` parts and keyed by their content hash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from xlebench.config.backends import VLMBackend
from xlebench.config.schema import EndpointConfig, LLMConfig, VLMConfig
from xlebench.llm.client import Completion, LLMClient
from xlebench.vlm.messages import key_messages, openai_messages

#: The endpoint settings a VLM shares with a text client (declared once, `EndpointConfig`).
_SHARED = tuple(f.name for f in fields(EndpointConfig))


#: This backend's declaration (read by `xlebench.config.backends` without importing it).
BACKEND = VLMBackend("litellm", "xlebench.vlm.litellm_backend:LitellmVLM", remote=True)


class LitellmVLM:
    def __init__(self, settings: VLMConfig, cache_dir: Path) -> None:
        self.settings = settings
        llm = LLMConfig(backend="litellm", **{k: getattr(settings, k) for k in _SHARED})
        self.client = LLMClient(llm, cache_dir, section="vlm")
        #: ``report(counter, n)``: the respond stage binds its live counters here.
        self.report: Callable[[str, int], None] = lambda counter, n: None

    @property
    def max_images(self) -> int:
        return self.settings.max_images

    @property
    def live_calls(self) -> int:
        return self.client.live_calls

    def fingerprint(self) -> dict[str, Any]:
        s = self.settings
        return {"backend": "litellm", "model": s.model, "temperature": s.temperature,
                "max_tokens": s.max_tokens, "max_images": s.max_images,
                "frames_strategy": s.frames_strategy, "extra": dict(s.extra)}

    def answer(self, messages: list[dict], *, sample: int = 0) -> Completion:
        got = self.client.complete(openai_messages(messages), sample=sample,
                                   key_messages=key_messages(messages))
        self.report("cached replies" if got.cached else "model calls", 1)
        return got
