"""Blind members that remember other logs' answers by what a query prints about its period:
its length (a period the length of one library video names that video wherever another log
asked about it) and its clock time (a day's habits put the same activities at the same
hours: the reference of another log's period nearest in time of day)."""

from __future__ import annotations

from collections.abc import Sequence

from xlebench.eval.scorers.base import BlindContext
from xlebench.eval.scorers.text_shapes import GENERIC_SUMMARY, query_shape, reference

DAY_S = 86_400.0


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


def clock_middle(item: dict) -> float:
    """The period's middle as seconds of the day."""
    return (float(item["period"]["start_s"]) + float(item["period"]["end_s"])) / 2 % DAY_S


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

    def gap(m: tuple[float, str, str]) -> float:
        d = abs(m[0] - middle)
        return min(d, DAY_S - d)
    return min(pool, key=lambda m: (gap(m), m[2]))[2]
