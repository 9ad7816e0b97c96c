"""Blind members that remember other logs' answers by what the query prints of its period:
the clock member answers with the reference of the period nearest in time of day."""

from __future__ import annotations

import numpy as np

from xlebench.eval.scorers.base import BlindContext, ScoreSettings
from xlebench.eval.scorers.memory import clock_answer, clock_middle, fit_clock
from xlebench.tasks.recipe.registry import load_recipe


def _item(start_h: float, text: str, query: str = "Summarize 00:00 - 00:00.") -> dict:
    return {"item_id": f"{start_h}", "query": query, "answer": {"text": text},
            "period": {"start_s": start_h * 3600, "end_s": start_h * 3600 + 1800}}


CTX = BlindContext(ScoreSettings(bertscore=False), np.random.default_rng(0), 1)


def test_the_clock_member_answers_with_the_nearest_time_of_days_reference() -> None:
    train = [_item(8, "C cooks breakfast."), _item(13, "C eats lunch."),
             _item(23.5, "C brushes teeth.")]
    model = fit_clock(train)
    assert clock_answer(_item(8.5, "?"), model, CTX) == "C cooks breakfast."
    assert clock_answer(_item(12, "?"), model, CTX) == "C eats lunch."
    # the day wraps: 00:30 is nearer 23:30 than 08:00
    assert clock_answer(_item(0.5, "?"), model, CTX) == "C brushes teeth."
    # another query shape is used only where none shares the item's
    other = [_item(8, "C cooks breakfast.", query="Order these.")]
    assert clock_answer(_item(8, "?"), fit_clock(train + other), CTX) == "C cooks breakfast."
    assert clock_middle(_item(23.75, "?")) == (23.75 * 3600 + 900) % 86_400


def test_every_summary_recipe_has_the_clock_member() -> None:
    for name in ("single_summary", "multi_summary", "holistic_summary"):
        members = {b.name for b in load_recipe(name).scorer.blind()}
        assert {"clock_memory", "duration_memory"} <= members, name
