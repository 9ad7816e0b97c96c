"""The cache every in-process VLM backend shares (`CachedVLM`: scripted, transformers).

The cache key is the model's fingerprint, the sampling parameters, the messages with frames as
content hashes, and the sample index; an answer is cached once it is received, so a second run
makes no model call. A batch is a speed-up, never part of the key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from xlebench.config.schema import VLMConfig
from xlebench.llm.cache import CachedResponse, ResponseCache, cache_key
from xlebench.llm.client import Completion
from xlebench.vlm import lockstep
from xlebench.vlm.messages import key_messages


def _ignore(counter: str, n: int) -> None:
    """The default `report`: no live display bound."""


class CachedVLM:
    """Base of the in-process backends (transformers, scripted): cache around `_generate`."""

    def __init__(self, settings: VLMConfig, cache_dir: Path) -> None:
        self.settings = settings
        self.cache = ResponseCache(cache_dir)
        self._lock = threading.Lock()
        self.live_calls = 0
        self.cache_hits = 0
        #: ``report(counter, n)``: the respond stage binds its live counters here.
        self.report: Callable[[str, int], None] = _ignore

    @property
    def max_images(self) -> int:
        return self.settings.max_images

    def fingerprint(self) -> dict[str, Any]:
        s = self.settings
        return {"backend": s.backend, "model": s.model, "temperature": s.temperature,
                "max_tokens": s.max_tokens, "max_images": s.max_images,
                "frames_strategy": s.frames_strategy, "extra": dict(s.extra)}

    def _key(self, messages: list[dict], sample: int) -> str:
        return cache_key(f"vlm:{self.settings.backend}:{self.settings.model}",
                         self.fingerprint(), key_messages(messages), sample)

    def answer(self, messages: list[dict], *, sample: int = 0) -> Completion:
        return self.answer_batch([messages], sample=sample)[0]

    def answer_batch(self, batch: Sequence[list[dict]], *, sample: int = 0) -> list[Completion]:
        """Answers of ``batch``; inside a `lockstep` group, in the group's next round (with the
        other logs' calls), else at once."""
        slot = lockstep.current()
        if slot is not None:
            return slot[0].submit(slot[1], self, batch, sample)
        return self.answer_now(list(batch), sample)

    def answer_now(self, batch: Sequence[list[dict]], sample: int = 0) -> list[Completion]:
        """Cached answers, the others generated ``vlm.batch_size`` at a time."""
        keys = [self._key(m, sample) for m in batch]
        out: list[Completion | None] = []
        for key in keys:
            hit = self.cache.get(key)
            out.append(None if hit is None else Completion(
                hit.text, hit.prompt_tokens, hit.completion_tokens, hit.cost_usd, True))
        # padding-aware: chunks of similar requests (the same frames together, then by length)
        todo = sorted((k for k, c in enumerate(out) if c is None),
                      key=lambda k: request_shape(batch[k]))
        with self._lock:
            self.cache_hits += len(batch) - len(todo)
        self.report("cached replies", len(batch) - len(todo))
        size = max(1, self.settings.batch_size)
        for start in range(0, len(todo), size):
            chunk = todo[start:start + size]
            texts = self._generate([batch[k] for k in chunk])
            with self._lock:
                self.live_calls += len(chunk)
            self.report("model calls", len(chunk))
            for k, text in zip(chunk, texts, strict=True):
                self.cache.put(keys[k], {"model": self.settings.model,
                                         "messages": key_messages(batch[k]), "sample": sample},
                               CachedResponse(text, 0, 0, 0.0))
                out[k] = Completion(text, 0, 0, 0.0, False)
        return [c for c in out if c is not None]

    def _generate(self, batch: list[list[dict]]) -> list[str]:
        raise NotImplementedError


def request_shape(messages: list[dict]) -> tuple[int, tuple[str, ...], int]:
    """How a request batches: its frame count and frames (requests on the same frames share a
    prefix), then its text length (requests of one chunk pad to the longest)."""
    from xlebench.vlm.messages import Frame

    frames = tuple(str(p.path) for m in messages for p in m["content"] if isinstance(p, Frame))
    text = sum(len(p) for m in messages for p in m["content"] if isinstance(p, str))
    return len(frames), frames, text
