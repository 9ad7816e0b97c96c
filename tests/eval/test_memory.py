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


def test_the_routine_member_reads_the_wearer_and_the_logs_own_questions_at_that_hour() -> None:
    """A persona's day repeats: the reference of another log of the same wearer (location and
    type) nearest in time of day wins over a nearer time of another wearer, a wearer's
    location alone over nobody; the log's own questions within the hour follow it."""
    from dataclasses import replace

    from xlebench.eval.panel.public import Public
    from xlebench.eval.scorers.memory import fit_routine, routine_answer

    def item(log: str, start_h: float, text: str, query: str = "Summarize 00:00 - 00:00."
             ) -> dict:
        return {**_item(start_h, text, query), "item_id": f"{log}-{start_h}",
                "lifelog_id": log}

    train = [item("peru-intj-aaaaaa-short", 9, "C reads a book."),
             item("peru-esfp-bbbbbb-short", 8.1, "C dances."),
             item("chile-intj-cccccc-short", 8, "C swims.")]
    model = fit_routine(train)
    asked = item("peru-intj-dddddd-short", 8, "?")
    same_log = [asked, item(asked["lifelog_id"], 8.5, "", "When did I (open the fridge) in "
                            "the record provided for the 08:30 - 09:00 time period?"),
                item(asked["lifelog_id"], 15, "", "When did I (wash the car) in the record "
                     "provided for the 15:00 - 15:30 time period?")]
    ctx = replace(CTX, public=Public(train + same_log))
    assert routine_answer(asked, model, ctx) == "C reads a book. C open the fridge."
    stranger = item("peru-enfp-eeeeee-short", 8, "?")
    assert routine_answer(stranger, model, ctx).startswith("C dances.")
    assert routine_answer(item("fiji-enfp-ffffff-short", 8, "?"), model, ctx) == "C swims."
