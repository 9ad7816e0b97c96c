"""The one door to language models: litellm behind a cache, a concurrency limit and retries.

``backend=litellm`` calls any provider litellm knows (OpenAI, Gemini, Ollama, vLLM or any
OpenAI-compatible ``api_base``); ``backend=replay`` answers only from the response cache.
Rate limits (429) back off exponentially, honouring ``Retry-After``; timeouts, connection
failures and 5xx answers are retried up to ``max_retries`` times; authentication and bad
request errors stop at once with a message that says what to check. The API key is read from
the environment variable named by ``api_key_env`` at call time and is never cached or logged.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlebench.config.schema import LLMConfig
from xlebench.errors import ConfigError, LLMCallError, UserError
from xlebench.llm.cache import CachedResponse, ResponseCache, cache_key
from xlebench.llm.nonanswer import transport_error

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 60.0


#: The client is configured by the `llm` config group's own schema (one definition of the
#: fields, their defaults and their meaning).
LLMSettings = LLMConfig


def settings_from(cfg: dict[str, Any]) -> LLMConfig:
    """Settings from a plain `llm` config mapping (unknown keys ignored)."""
    return LLMConfig(**{k: v for k, v in cfg.items() if k in LLMConfig.__dataclass_fields__})


def _params(s: LLMConfig, logprobs: int) -> dict[str, Any]:
    """The sampling parameters, with the log-probabilities asked for (when they are)."""
    return {**sampling(s), "top_logprobs": logprobs} if logprobs else sampling(s)


#: Generated tokens whose alternatives are kept (a verdict comes within the first few).
LOGPROB_TOKENS = 16


def _top_logprobs(resp: Any) -> tuple[dict[str, float], ...]:
    """Per generated token (the first `LOGPROB_TOKENS`), ``{token: logprob}`` of its top
    alternatives, from an OpenAI-style ``choices[0].logprobs.content`` (empty if absent)."""
    choices = getattr(resp, "choices", None) or []
    content = getattr(getattr(choices[0], "logprobs", None), "content", None) if choices else None
    out = []
    for tok in (content or [])[:LOGPROB_TOKENS]:
        alts = {a.token: _logprob(a.logprob) for a in (getattr(tok, "top_logprobs", None) or [])}
        alts.setdefault(tok.token, _logprob(tok.logprob))
        out.append(alts)
    return tuple(out)


def _logprob(value: Any) -> float:
    """A server's log-probability as a float; anything that is no number (null, a string)
    as NaN, which the readers refuse like any other non-finite value."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def sampling(s: LLMConfig) -> dict[str, Any]:
    """The parameters that change an answer: part of the cache key."""
    return {"temperature": s.temperature, "max_tokens": s.max_tokens,
            **{k: s.extra[k] for k in sorted(s.extra)}}


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    #: With ``complete(..., logprobs=k)``: per generated token, its ``k`` most likely
    #: alternatives and their log-probabilities (empty when the backend gives none).
    top_logprobs: tuple[dict[str, float], ...] = ()


@dataclass
class Usage:
    """Token use and cost of a set of answers (cached answers count what they cost once)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, c: Completion) -> None:
        self.requests += 1
        self.prompt_tokens += c.prompt_tokens
        self.completion_tokens += c.completion_tokens
        self.cost_usd += c.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6)}

    @staticmethod
    def total(records: list[dict]) -> dict[str, Any]:
        out = Usage()
        for r in records:
            out.requests += int(r.get("requests", 0))
            out.prompt_tokens += int(r.get("prompt_tokens", 0))
            out.completion_tokens += int(r.get("completion_tokens", 0))
            out.cost_usd += float(r.get("cost_usd", 0.0))
        return out.to_dict()


def _litellm():
    # The cost map is bundled with litellm; without this it tries the network on import.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LLMClient:
    """Thread-safe: one client serves every thread of a stage; at most `max_concurrency`
    requests are in flight at once."""

    def __init__(self, settings: LLMConfig, cache_dir: Path, section: str = "llm") -> None:
        if settings.backend not in ("litellm", "replay"):
            raise ConfigError(f"{section}.backend={settings.backend!r}: an LLM client needs "
                              f"{section}=litellm or {section}=replay")
        self.settings = settings
        #: The config group these settings come from (llm, vlm, answerer, judge): errors name it.
        self.section = section
        self.cache = ResponseCache(cache_dir)
        self._gate = threading.BoundedSemaphore(max(1, settings.max_concurrency))
        self._lock = threading.Lock()
        self.live_calls = 0
        self.cache_hits = 0
        self._priced = True
        self._warm = False
        self._warm_lock = threading.Lock()

    def complete(self, messages: list[dict[str, Any]], *, sample: int = 0,
                 remember: bool = True, key_messages: list[dict] | None = None,
                 logprobs: int = 0) -> Completion:
        """The model's answer, from the cache or from one live request (with retries).

        With ``remember=False`` a live answer is returned but not cached: the caller validates
        it first and stores it with `remember` only if it is usable, so a malformed answer
        never outlives the run that received it. ``key_messages`` stands for ``messages`` in
        the cache key and the stored request (images as content hashes, not base64 data).
        ``logprobs=k`` asks for each generated token's ``k`` most likely alternatives (OpenAI's
        ``top_logprobs``; part of the cache key).
        """
        s = self.settings
        key = cache_key(s.model, _params(s, logprobs), key_messages or messages, sample)
        hit = self.cache.get(key)
        if hit is not None:
            with self._lock:
                self.cache_hits += 1
            return Completion(hit.text, hit.prompt_tokens, hit.completion_tokens,
                              hit.cost_usd, True, hit.top_logprobs)
        if s.backend == "replay":
            raise UserError(
                f"{self.section}=replay: no cached answer for this request (model {s.model}, "
                f"cache key {key[:12]}); run once with {self.section}=litellm and the same "
                f"{self.section}.model and sampling parameters to fill the cache"
            )
        self._warm_up()
        with self._gate:
            response = self._call_with_retries(messages, logprobs)
        with self._lock:
            self.live_calls += 1
        done = Completion(response.text, response.prompt_tokens, response.completion_tokens,
                          response.cost_usd, False, response.top_logprobs)
        if remember:
            self.remember(key_messages or messages, done, sample=sample, logprobs=logprobs)
        return done

    def remember(self, messages: list[dict[str, Any]], answer: Completion, *,
                 sample: int = 0, logprobs: int = 0) -> None:
        """Cache a validated live answer (cache hits are already stored)."""
        if answer.cached:
            return
        s = self.settings
        params = _params(s, logprobs)
        self.cache.put(cache_key(s.model, params, messages, sample),
                       {"model": s.model, "params": params, "messages": messages,
                        "sample": sample},
                       CachedResponse(answer.text, answer.prompt_tokens,
                                      answer.completion_tokens, answer.cost_usd,
                                      answer.top_logprobs))

    def _warm_up(self) -> None:
        """Before the first live request, in one thread while the others wait: import litellm
        and what it imports lazily on a first call (the OpenAI SDK's resources, ~0.5 s), and
        run its request and response code once on a mock answer (no network). Otherwise
        every thread of the first wave pays those one-off costs under the GIL after its
        answer arrives, and the second wave starts late."""
        if self._warm:
            return
        with self._warm_lock:
            if self._warm:
                return
            lm = _litellm()
            try:
                import openai.resources  # noqa: F401 - the lazy import of a first call
                from openai.types.chat import ChatCompletion

                ChatCompletion.model_validate(_MOCK_COMPLETION)
                lm.completion(model=self.settings.model, messages=[{"role": "user",
                              "content": "warm-up"}], mock_response="ok")
            except Exception as exc:  # noqa: BLE001 - only a head start; the real call reports
                log.debug("llm warm-up skipped: %s", exc)
            self._warm = True

    # -- one request, with the retry policy ------------------------------------------------

    def _call_with_retries(self, messages: list[dict[str, str]], logprobs: int = 0
                           ) -> CachedResponse:
        lm = _litellm()
        s = self.settings
        transient = rate_limited = 0
        while True:
            try:
                return self._call(lm, messages, logprobs)
            except lm.RateLimitError as exc:
                rate_limited += 1
                if rate_limited > s.max_retries_on_rate_limit:
                    raise LLMCallError(self._say(f"still rate limited after {rate_limited} "
                                                 f"attempts: {exc}")) from None
                delay = _retry_after(exc)
                if delay is None:
                    delay = s.backoff_s * 2 ** (rate_limited - 1)
                log.warning("llm %s: rate limited, retrying in %.2fs", s.model, delay)
                time.sleep(min(delay, MAX_BACKOFF_S))
            except (lm.AuthenticationError, lm.PermissionDeniedError) as exc:
                raise ConfigError(self._say(
                    f"the provider refused the credentials ({type(exc).__name__}); check "
                    f"${s.api_key_env} and {self.section}.model")) from None
            except (lm.NotFoundError, lm.BadRequestError) as exc:
                raise ConfigError(self._say(
                    f"the provider rejected the request: {exc}; check {self.section}.model "
                    f"and {self.section}.api_base")) from None
            except (lm.Timeout, lm.APIConnectionError, lm.InternalServerError,
                    lm.ServiceUnavailableError, lm.BadGatewayError, lm.APIError,
                    InvalidBody) as exc:
                transient += 1
                if transient > s.max_retries:
                    raise LLMCallError(self._say(
                        f"no usable answer after {transient} attempts "
                        f"({type(exc).__name__}: {_short(exc)})")) from None
                log.warning("llm %s: %s, retry %d/%d", s.model, type(exc).__name__,
                            transient, s.max_retries)
                time.sleep(min(s.backoff_s * 2 ** (transient - 1), MAX_BACKOFF_S))

    def _call(self, lm, messages: list[dict[str, str]], logprobs: int = 0) -> CachedResponse:
        s = self.settings
        kwargs: dict[str, Any] = dict(s.extra)
        if logprobs:
            kwargs.update(logprobs=True, top_logprobs=logprobs)
        if s.api_base:
            kwargs["api_base"] = s.api_base
        key = self._api_key()
        if key:
            kwargs["api_key"] = key
        resp = lm.completion(model=s.model, messages=messages, temperature=s.temperature,
                             max_tokens=s.max_tokens, timeout=s.timeout_s, max_retries=0,
                             **kwargs)
        text = _content(resp)
        usage = getattr(resp, "usage", None)
        cost = 0.0
        if self._priced:
            try:
                cost = float(lm.completion_cost(completion_response=resp))
            except Exception:  # noqa: BLE001 - unknown models (local servers) have no price
                # litellm's price lookup costs a few ms of CPU per call under the GIL; a model
                # it cannot price is not asked again (the answers of one client share a model)
                self._priced = False
        return CachedResponse(text, int(getattr(usage, "prompt_tokens", 0) or 0),
                              int(getattr(usage, "completion_tokens", 0) or 0), cost,
                              _top_logprobs(resp) if logprobs else ())

    def _api_key(self) -> str | None:
        s = self.settings
        key = os.environ.get(s.api_key_env) if s.api_key_env else None
        if key:
            return key
        if s.api_base:
            return "no-key"  # local OpenAI-compatible servers accept any key
        if s.api_key_env:
            raise ConfigError(missing_key(self.section, s.model, s.api_key_env))
        return None

    def _say(self, text: str) -> str:
        msg = f"{self.section} {self.settings.model}: {text}"
        key = os.environ.get(self.settings.api_key_env or "")
        return msg.replace(key, "***") if key else msg


#: A minimal OpenAI chat completion: parsing it once loads the SDK's response models.
_MOCK_COMPLETION = {"id": "warm-up", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "ok"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def missing_key(section: str, model: str, env: str) -> str:
    return (f"{section}.api_key_env={env}: the environment variable {env} is not set "
            f"({section}.model={model}); export it, or set {section}.api_base to a local "
            f"server, or {section}.api_key_env to the variable that holds the key")


class InvalidBody(Exception):
    """A 200 answer without a usable message (no choices, null or empty content): retried
    like a transport fault, never cached."""


def _content(resp: Any) -> str:
    choices = getattr(resp, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    text = getattr(message, "content", None)
    if not isinstance(text, str) or not text.strip():
        raise InvalidBody("the server answered 200 without message content "
                          f"({'no choices' if not choices else repr(text)})")
    why = transport_error(text)
    if why:
        raise InvalidBody(f"the server answered 200 with {why}, not a model's reply")
    return text


def _retry_after(exc: Exception) -> float | None:
    """Seconds the server asked us to wait. litellm keeps the HTTP headers in
    ``litellm_response_headers`` (its ``response`` is a stand-in without them)."""
    response = getattr(exc, "response", None)
    for headers in (getattr(exc, "litellm_response_headers", None),
                    getattr(exc, "headers", None), getattr(response, "headers", None)):
        try:
            value = float((headers or {}).get("retry-after"))
        except (TypeError, ValueError):
            continue
        if value >= 0:
            return value
    return None


def _short(exc: Exception, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."
