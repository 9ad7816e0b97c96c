"""Aggregating single-video summaries into period and whole-day summaries.

A reference says what C did, never the query's own scaffold: the paper's aggregated summaries
opened with the period ("In the morning (before 12:00), C ...") and chained "Then ... Finally",
words an answer that never saw the video copies from the query for free (measured on the demo:
echoing the query back scored 38 ROUGE-L on multi-video summaries, a constant sentence 52).

``offline`` (default) is deterministic: the summaries in day order, each kept as written.
``llm`` asks any litellm model (prompt ``tasks/aggregate.v2``, which is not told the period),
answers validated and cached like every other LLM call. The ``scope`` argument names the
period for logs and errors only; it is never written into the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from xlebench.llm.client import LLMClient, Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json


class Aggregator(Protocol):
    def __call__(self, summaries: Sequence[str], scope: str) -> str: ...


def _sentence(summary: str) -> str:
    s = " ".join(summary.split())
    return s if not s or s.endswith((".", "!", "?")) else s + "."


def offline_aggregate(summaries: Sequence[str], scope: str) -> str:
    """The summaries in order, each as written (period paragraphs of a holistic summary
    likewise): what the day held, with no period phrase or connective a query gives away."""
    return " ".join(t for t in map(_sentence, summaries) if t)


def aggregator_of(aggregate: Aggregator) -> dict[str, str]:
    """What wrote an aggregated summary, for the item's provenance: ``{kind: offline}``, or
    the model and the prompt id of an LLM aggregator (a reference written by a model is only
    as good as that model: its name travels with the item)."""
    if isinstance(aggregate, LLMAggregator):
        return {"kind": "llm", "model": str(aggregate.client.settings.model),
                "prompt": aggregate.prompt}
    return {"kind": "offline"}


class _Summary(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    summary: str = Field(min_length=3)


class LLMAggregator:
    def __init__(self, client: LLMClient, prompt: str = "tasks/aggregate.v2",
                 max_retries: int = 2) -> None:
        self.client, self.prompt, self.max_retries = client, prompt, max_retries
        self.usage = Usage()

    def __call__(self, summaries: Sequence[str], scope: str) -> str:
        prompt = load_prompt(self.prompt)
        values = {"input": {"summaries_in_order": list(summaries)}}
        if "scope" in prompt.slots:  # v1 named the period; later versions are not told it
            values = {"scope": scope, "input": {"scope": scope, **values["input"]}}
        messages = prompt.render(**values)
        return ask_json(self.client, messages, lambda v: _Summary.model_validate(v).summary,
                        max_retries=self.max_retries, usage=self.usage,
                        what=f"{self.prompt} ({scope})")
