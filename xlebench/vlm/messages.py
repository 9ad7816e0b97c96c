"""Multimodal messages: text and JPEG frames, in the order a model should see them.

A message's content is a list of parts: plain strings and `Frame`s. Each backend turns them
into what its model takes (OpenAI-style ``image_url`` parts with base64 data for APIs, PIL
images for transformers); the response cache sees each frame as the sha256 of its bytes, so a
frame is part of the key by content, and no image data is ever stored in the cache.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

Part = Any  # str | Frame


@dataclass(frozen=True)
class Frame:
    """One JPEG frame and where it is on the life log's clock."""

    path: Path
    clock: str = ""  # "07:12:05": printed before the frame so the model can cite times
    virtual_s: float = 0.0

    @property
    def sha256(self) -> str:
        return _digest(str(self.path))

    def data_url(self) -> str:
        return "data:image/jpeg;base64," + base64.b64encode(self.path.read_bytes()).decode()


@lru_cache(maxsize=1 << 16)
def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def message(role: str, *parts: Part) -> dict[str, Any]:
    return {"role": role, "content": list(parts)}


def frames_of(messages: list[dict]) -> list[Frame]:
    return [p for m in messages for p in m["content"] if isinstance(p, Frame)]


def key_messages(messages: list[dict]) -> list[dict]:
    """The messages as the cache sees them: frames as content hashes and clock labels."""
    return [{"role": m["role"], "content": [
        {"type": "image", "sha256": p.sha256, "clock": p.clock} if isinstance(p, Frame)
        else {"type": "text", "text": p} for p in m["content"]]} for m in messages]


def openai_messages(messages: list[dict]) -> list[dict]:
    """OpenAI-compatible chat messages (what vLLM, SGLang, GPT-4o and litellm take)."""
    out = []
    for m in messages:
        if all(isinstance(p, str) for p in m["content"]):
            out.append({"role": m["role"], "content": "".join(m["content"])})
            continue
        out.append({"role": m["role"], "content": [
            {"type": "image_url", "image_url": {"url": p.data_url()}} if isinstance(p, Frame)
            else {"type": "text", "text": p} for p in m["content"]]})
    return out
