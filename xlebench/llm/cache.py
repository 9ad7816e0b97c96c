"""On-disk LLM response cache, shared by every stage and every run.

One JSON file per response under ``<cache>/llm/<key[:2]>/<key>.json``. The key is the hash of
the model, the sampling parameters, the rendered messages and a sample index, so a rerun, a
resumed run or a sweep job asking the same question reads the stored answer instead of calling
the model again, and ``llm=replay`` can answer from it with no network at all. Files hold the
request (without credentials), the answer text and its token usage; writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlebench.runner.atomic import dumps, write_text

CACHE_FORMAT = 1


@dataclass(frozen=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    #: Per generated token (the first few), its most likely alternatives and their log-
    #: probabilities, when the request asked for them (``logprobs``).
    top_logprobs: tuple[dict[str, float], ...] = ()


def cache_key(model: str, params: dict[str, Any], messages: list[dict], sample: int) -> str:
    payload = json.dumps(
        {"format": CACHE_FORMAT, "model": model, "params": params, "messages": messages,
         "sample": sample},
        sort_keys=True, ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """Content-addressed store of LLM answers (safe for concurrent readers and writers)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedResponse | None:
        try:
            d = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        usage = d.get("usage", {})
        return CachedResponse(d["text"], int(usage.get("prompt_tokens", 0)),
                              int(usage.get("completion_tokens", 0)),
                              float(usage.get("cost_usd", 0.0)),
                              tuple(d.get("top_logprobs") or ()))

    def put(self, key: str, request: dict[str, Any], response: CachedResponse) -> None:
        write_text(self.path(key), dumps({
            "format": CACHE_FORMAT, "key": key, "request": request, "text": response.text,
            "usage": {"prompt_tokens": response.prompt_tokens,
                      "completion_tokens": response.completion_tokens,
                      "cost_usd": response.cost_usd},
            **({"top_logprobs": _json_logprobs(response.top_logprobs)}
               if response.top_logprobs else {}),
        }), durable=False)  # a stage's runner syncs once at its end; a lost answer is asked again


def _json_logprobs(top: tuple[dict[str, float], ...]) -> list[dict[str, float | None]]:
    """The alternatives as JSON can hold them: a server's NaN or +-inf is no log-probability
    and JSON has no such number, so it is stored as null (the P(TRUE) reader falls back to
    the reply's text for it, on the first run and on every rerun alike)."""
    return [{token: lp if isinstance(lp, int | float) and math.isfinite(lp) else None
             for token, lp in alts.items()} for alts in top]
