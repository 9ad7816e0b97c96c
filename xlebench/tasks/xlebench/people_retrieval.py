"""People retrieval: Ego4D NLQ queries with ``People:*`` templates (rare in real data)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.eval.scorers import SpanRecall
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.xlebench.nlq import SPAN_FORMAT, RetrievalParams, nlq_items, nlq_oracle


@dataclass
class PeopleRetrievalParams(RetrievalParams):
    templates: list[str] = field(default_factory=lambda: ["People:"])


RECIPE = Recipe(
    name="people_retrieval", task="temporal_localisation", schema=PeopleRetrievalParams,
    build=nlq_items, scorer=SpanRecall(), primary="R@5,0.3", answer_format=SPAN_FORMAT,
    answer_source="Ego4D NLQ", needs=("nlq",), group="temporal localisation",
    oracle=nlq_oracle, check="R@1,0.5",
    description="Who C met and when: the Ego4D NLQ query, answered with clock spans.")
