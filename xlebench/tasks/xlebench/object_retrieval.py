"""Object retrieval: Ego4D NLQ queries with ``Objects:*`` and ``Place:*`` templates."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.eval.scorers import SpanRecall
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.xlebench.nlq import SPAN_FORMAT, RetrievalParams, nlq_items, nlq_oracle


@dataclass
class ObjectRetrievalParams(RetrievalParams):
    templates: list[str] = field(default_factory=lambda: ["Objects:", "Place:"])


RECIPE = Recipe(
    name="object_retrieval", task="temporal_localisation", schema=ObjectRetrievalParams,
    build=nlq_items, scorer=SpanRecall(), primary="R@5,0.3", answer_format=SPAN_FORMAT,
    answer_source="Ego4D NLQ", needs=("nlq",), group="temporal localisation",
    oracle=nlq_oracle, check="R@1,0.5",
    description="Where an object was: the Ego4D NLQ query, answered with clock spans.")
