"""Blind members that remember other logs' answers by what a query prints about its period:
its length (a period the length of one library video names that video wherever another log
asked about it) and its clock time (a day's habits put the same activities at the same
hours: the reference of another log's period nearest in time of day), and by the wearer and
the clock together (a persona's routine: `routine_answer`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xlebench.eval.panel.public import clock_gap, clock_of, wearer
from xlebench.eval.scorers.base import BlindContext
from xlebench.eval.scorers.text_shapes import GENERIC_SUMMARY, query_shape, reference


def period_length(item: dict) -> float:
    return float(item["period"]["end_s"]) - float(item["period"]["start_s"])


def fit_durations(train: Sequence[dict]) -> list[tuple[float, str, str]]:
    """(period length, query shape, reference) of every training item, sorted: what a reader
    who remembers other logs' answers by how long their records were knows."""
    return sorted((period_length(it), query_shape(it), reference(it)) for it in train)


def duration_answer(item: dict, model: list[tuple[float, str, str]], ctx: BlindContext
                    ) -> str:
    """The reference of the training item of the same query shape whose period is nearest in
    length (any shape when none shares it): a period the length of one library video names
    that video wherever another log asked about it."""
    if not model:
        return GENERIC_SUMMARY
    shape, length = query_shape(item), period_length(item)
    pool = [m for m in model if m[1] == shape] or model
    return min(pool, key=lambda m: (abs(m[0] - length), m[2]))[2]


#: The period's middle as seconds of the day.
clock_middle = clock_of


def fit_clock(train: Sequence[dict]) -> list[tuple[float, str, str]]:
    """(the period's middle in the day, query shape, reference) of every training item."""
    return sorted((clock_middle(it), query_shape(it), reference(it)) for it in train)


def clock_answer(item: dict, model: list[tuple[float, str, str]], ctx: BlindContext) -> str:
    """The reference of the training item of the same query shape whose period's middle is
    nearest in time of day (any shape when none shares it)."""
    if not model:
        return GENERIC_SUMMARY
    shape, middle = query_shape(item), clock_middle(item)
    pool = [m for m in model if m[1] == shape] or model

    return min(pool, key=lambda m: (clock_gap(m[0], middle), m[2]))[2]


#: The log's own questions within this many seconds of the period's time of day are read.
ROUTINE_NEAR_S = 3600.0


def fit_routine(train: Sequence[dict], public: Any = None
                ) -> list[tuple[tuple[str, str], float, str, str]]:
    """(the wearer, the period's middle in the day, query shape, reference) of every training
    item: what a reader who knows whose day it is and when remembers."""
    return sorted((wearer(it), clock_middle(it), query_shape(it), reference(it))
                  for it in train)


def routine_answer(item: dict, model: list[tuple[tuple[str, str], float, str, str]],
                   ctx: BlindContext) -> str:
    """The reference of another log's item of the same wearer (location and type: the same
    persona's routine; else the location; else anyone) and query shape nearest in time of
    day, followed by what the log's own questions near that time ask (`Public.phrases_near`):
    a persona's day repeats its activities at its hours, and the references follow them."""
    if not model:
        return GENERIC_SUMMARY
    who, shape, middle = wearer(item), query_shape(item), clock_middle(item)
    pool = ([m for m in model if m[0] == who and who[0]]
            or [m for m in model if m[0][0] == who[0] and who[0]] or model)
    pool = [m for m in pool if m[2] == shape] or pool
    head = min(pool, key=lambda m: (clock_gap(m[1], middle), m[3]))[3]
    near = ctx.public.phrases_near(item, ROUTINE_NEAR_S) if ctx.public is not None else []
    return " ".join([head, *(f"C {p}." for p in near)])
