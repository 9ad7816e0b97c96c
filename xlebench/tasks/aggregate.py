"""Aggregating single-video summaries into period and whole-day summaries.

``offline`` (default) is deterministic: the summaries in day order, joined into one paragraph
with time connectives. ``llm`` asks any litellm model (prompt ``tasks/aggregate.v1``), answers
validated and cached like every other LLM call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from xlebench.llm.client import LLMClient, Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json

CONNECTIVES = ("First", "Then", "After that", "Later", "Next", "Afterwards")


class Aggregator(Protocol):
    def __call__(self, summaries: Sequence[str], scope: str) -> str: ...


def _clause(summary: str) -> str:
    s = summary.strip().rstrip(".")
    return s if s.startswith("C ") else "C " + s[:1].lower() + s[1:]


def offline_aggregate(summaries: Sequence[str], scope: str) -> str:
    """``In the morning, C ... Then, C ... Finally, C ...`` — every source sentence kept, in
    order; period paragraphs are joined as they are (the holistic summary)."""
    if summaries and all(s.strip() and not s.strip().startswith("C ") for s in summaries):
        # Already period paragraphs ("In the morning, C ..."): the day is their sequence.
        return " ".join(s.strip() for s in summaries)
    parts = [_clause(s) for s in summaries if s.strip()]
    if not parts:
        return ""
    if len(parts) == 1:
        return f"{scope[:1].upper()}{scope[1:]}, {parts[0]}."
    out = [f"{scope[:1].upper()}{scope[1:]}, {parts[0]}."]
    for i, p in enumerate(parts[1:-1], start=1):
        out.append(f"{CONNECTIVES[i % len(CONNECTIVES)]}, {p}.")
    out.append(f"Finally, {parts[-1]}.")
    return " ".join(out)


class _Summary(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    summary: str = Field(min_length=3)


class LLMAggregator:
    def __init__(self, client: LLMClient, prompt: str = "tasks/aggregate.v1",
                 max_retries: int = 2) -> None:
        self.client, self.prompt, self.max_retries = client, prompt, max_retries
        self.usage = Usage()

    def __call__(self, summaries: Sequence[str], scope: str) -> str:
        messages = load_prompt(self.prompt).render(
            scope=scope, input={"scope": scope, "summaries_in_order": list(summaries)})
        return ask_json(self.client, messages, lambda v: _Summary.model_validate(v).summary,
                        max_retries=self.max_retries, usage=self.usage,
                        what=f"{self.prompt} ({scope})")
