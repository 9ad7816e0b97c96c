"""What a recipe's ``build`` receives and returns.

`Context` is one life log with everything a recipe may read: the log's segments on the
virtual clock, the library's videos, the Ego4D annotations of the log's videos, a generator
seeded for this (log, recipe) unit, the summary aggregator, and — for recipes that generate
with a model or compare sentences — the shared cached LLM client and the sentence encoder.
Recipes that draw on the rest of the benchmark (multiple-choice decoys from other days) also
get every life log and ``source_items(recipe, lifelog_id)``: the items the annotate stage
compiles for another recipe on any log, exactly (same parameters, generator and filters), and
``source_params(recipe)``, its parameters (`xlebench.tasks.recipe.derived`).
`Built` is the items plus counts of why candidates were left out (reported in
``stats/tasks.json``, never dropped silently).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xlebench.library.annotations import AnnotationIndex
from xlebench.library.records import LibraryVideo
from xlebench.tasks.language.aggregate import Aggregator
from xlebench.tasks.recipe.items import make_item


@dataclass
class Context:
    name: str  # the recipe (item subtask)
    task: str  # its task family
    log: dict
    videos: dict[str, LibraryVideo]
    ann: AnnotationIndex
    rng: random.Random
    aggregate: Aggregator
    #: xlebench.llm.client.LLMClient, or None under llm=offline.
    llm: Any = None
    #: ``encode(texts) -> float32 [n, d]`` (MiniLM by default), built on first use.
    encode: Callable[[Sequence[str]], Any] | None = None
    #: Every life log of the benchmark by id (this one included).
    logs: Mapping[str, dict] = field(default_factory=dict)
    #: ``source_items(recipe, lifelog_id)``: that recipe's compiled items on that log.
    source_items: Callable[[str, str], list[dict]] | None = None
    #: ``source_params(recipe)``: that recipe's configured parameters (its defaults when it
    #: is not configured), for a derived recipe's oracle to re-derive its source's answers.
    source_params: Callable[[str], Any] | None = None
    #: What a recipe decides once for the whole benchmark (which questions every life log
    #: asks, which records their decoys spend), kept by the stage for this run's units; a
    #: recipe built on its own gets a fresh one.
    shared: dict = field(default_factory=dict)

    def item(self, **fields: Any) -> dict[str, Any]:
        """A task item of this recipe for this log (`xlebench.tasks.recipe.items.make_item`)."""
        return make_item(log=self.log, subtask=self.name, task=self.task, **fields)


@dataclass
class Built:
    items: list[dict] = field(default_factory=list)
    stats: Counter = field(default_factory=Counter)
