"""Ask for JSON, validate it, and feed validation errors back until it is right (bounded).

The parser receives the decoded JSON and either returns the domain object or raises
``ValueError`` / pydantic ``ValidationError`` with a message meant for the model: it is sent
back verbatim ("Your answer was not accepted: ...") together with the model's own answer, so
the model can correct itself. After ``max_retries`` corrections the call fails with
`LLMResponseError`, carrying every raw answer for inspection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from xlebench.errors import LLMResponseError
from xlebench.llm.client import Completion, LLMClient, Usage

T = TypeVar("T")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)

RETRY_MESSAGE = (
    "Your answer was not accepted: {error}\n"
    "Reply again with the corrected JSON only, no commentary."
)


def extract_json(text: str) -> Any:
    """The JSON value in a reply: the whole text, a fenced block, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    for open_, close in (("{", "}"), ("[", "]")):
        i, j = text.find(open_), text.rfind(close)
        if 0 <= i < j:
            candidates.append(text[i:j + 1])
    for c in candidates:
        try:
            return json.loads(c)
        except json.JSONDecodeError:
            continue
    raise ValueError("the reply is not valid JSON (expected one JSON object)")


def _explain(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors()[:8]:
            where = ".".join(str(p) for p in e["loc"]) or "(top level)"
            parts.append(f"{where}: {e['msg']}")
        return "; ".join(parts)
    return str(exc)


def ask_json(
    client: LLMClient,
    messages: list[dict[str, str]],
    parse: Callable[[Any], T],
    *,
    max_retries: int,
    usage: Usage,
    sample: int = 0,
    what: str = "answer",
) -> T:
    """`ask_text` for a JSON answer: ``parse`` receives the decoded JSON value."""
    return ask_text(client, messages, lambda text: parse(extract_json(text)),
                    max_retries=max_retries, usage=usage, sample=sample, what=what,
                    retry_message=RETRY_MESSAGE)


TEXT_RETRY_MESSAGE = (
    "Your answer was not accepted: {error}\n"
    "Reply again in the requested format only, no commentary."
)


def ask_text(
    client: LLMClient,
    messages: list[dict[str, str]],
    parse: Callable[[str], T],
    *,
    max_retries: int,
    usage: Usage,
    sample: int = 0,
    what: str = "answer",
    retry_message: str = TEXT_RETRY_MESSAGE,
) -> T:
    """Parsed answer; each attempt (and its correction) is a separate request.

    Only a conversation that ends in a valid answer is cached — every turn of it, so a replay
    walks the same corrections — and a failed one leaves nothing behind: a rerun (against a
    healthy server, say) asks afresh instead of replaying the invalid answers.
    """
    return ask_completion(client, messages, lambda c: parse(c.text), max_retries=max_retries,
                          usage=usage, sample=sample, what=what, retry_message=retry_message)


def ask_completion(
    client: LLMClient,
    messages: list[dict[str, str]],
    parse: Callable[[Completion], T],
    *,
    max_retries: int,
    usage: Usage,
    sample: int = 0,
    what: str = "answer",
    retry_message: str = TEXT_RETRY_MESSAGE,
    logprobs: int = 0,
) -> T:
    """`ask_text` for a parser of the whole completion (its text and, with ``logprobs=k``,
    each generated token's ``k`` most likely alternatives)."""
    convo = list(messages)
    raws: list[str] = []
    errors: list[str] = []
    turns: list[tuple[list[dict[str, str]], Completion]] = []
    for _attempt in range(max_retries + 1):
        reply: Completion = client.complete(convo, sample=sample, remember=False,
                                            logprobs=logprobs)
        usage.add(reply)
        raws.append(reply.text)
        turns.append((convo, reply))
        try:
            value = parse(reply)
        except (ValueError, ValidationError, TypeError, KeyError) as exc:
            error = _explain(exc)
            errors.append(error)
            convo = convo + [{"role": "assistant", "content": reply.text},
                             {"role": "user", "content": retry_message.format(error=error)}]
            continue
        for asked, answer in turns:
            client.remember(asked, answer, sample=sample, logprobs=logprobs)
        return value
    artifacts = {f"response_{i}.txt": raw for i, raw in enumerate(raws)}
    artifacts["errors.txt"] = "\n".join(f"attempt {i}: {e}" for i, e in enumerate(errors))
    raise LLMResponseError(
        f"{what}: the model's answer was still invalid after {max_retries} retries "
        f"(last problem: {errors[-1]}). Nothing of this exchange was cached: rerun to ask "
        "again, or raise llm.max_retries, or change llm.model or the prompt version",
        artifacts)
