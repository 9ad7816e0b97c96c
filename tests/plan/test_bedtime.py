"""Offline agendas end by the persona's bedtime (``planner.bedtime=fit``), as the release's do."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from xlebench.clock import parse_hhmm
from xlebench.library.taxonomy import load_taxonomy
from xlebench.persona.locations import LOCATIONS
from xlebench.persona.offline import generate_persona
from xlebench.plan.offline import (
    HOME_BASED,
    MIN_FIT_MINUTES,
    Activity,
    PlannerParams,
    _fit,
    night_shift,
    plan_day,
)

MBTIS = ["".join(t) for t in itertools.product("EI", "SN", "TF", "JP")]
VOCAB = sorted(s.name for s in load_taxonomy().scenarios)


def _bed(persona) -> int:
    sleep = parse_hhmm(persona.schedule["sleep"])
    return sleep + (86_400 if sleep <= parse_hhmm(persona.schedule["wake"]) else 0)


def _plans(bedtime: str):
    for loc, mbti in itertools.product(list(LOCATIONS)[:9], MBTIS):
        persona = generate_persona(loc, mbti, 0)
        params = PlannerParams(bedtime=bedtime)
        yield persona, plan_day(persona, VOCAB, params, random.Random(hash((loc, mbti)) % 997))


def test_every_grid_day_ends_by_bedtime_and_keeps_its_meals() -> None:
    checked = 0
    for persona, plan in _plans("fit"):
        if night_shift(persona.schedule):
            continue
        checked += 1
        assert plan.chunks[-1].end_s <= _bed(persona), persona.persona_id
        acts = [c.activity for c in plan.chunks]
        assert "cook dinner" in acts and "have dinner" in acts
        assert len(plan.chunks) >= PlannerParams().min_chunks
        starts = [c.start_s for c in plan.chunks]
        assert starts == sorted(starts)
    assert checked >= 100


def test_ignoring_bedtime_lets_days_run_late() -> None:
    late = sum(plan.chunks[-1].end_s > _bed(persona) for persona, plan in _plans("ignore")
               if not night_shift(persona.schedule))
    assert late > 50  # the planner before the fit: most days ran past bedtime


def test_the_fit_drops_the_most_droppable_then_shortens() -> None:
    s = load_taxonomy().scenarios[0]
    run = [Activity(s, 30, "cook", drop=0), Activity(s, 60, "hobby", drop=1),
           Activity(s, 30, "chore", drop=3), Activity(s, 30, "wind", drop=2)]
    gaps = [600] * 4
    # everything fits: unchanged
    assert _fit(run, gaps, 150 * 60 + 1800) == run
    # room for cook, hobby and wind: the chore (drop 3) goes first
    assert [a.text for a in _fit(run, gaps, 120 * 60 + 1200)] == ["cook", "hobby", "wind"]
    # room for cook alone and less: every droppable goes, then cook is shortened to the floor
    only = _fit(run, gaps, 10 * 60)
    assert [a.text for a in only] == ["cook"] and only[0].minutes == MIN_FIT_MINUTES
    # mandatory activities shrink by one factor
    both = [Activity(s, 40, "a"), Activity(s, 80, "b")]
    fitted = _fit(both, [0, 0], 60 * 60)
    assert [a.minutes for a in fitted] == [20, 40]


@pytest.mark.parametrize("mbti", ["ISTJ", "ENFP"])
def test_home_based_work_stops_at_work_end_and_the_hobby_is_kept(mbti: str) -> None:
    persona = generate_persona("UK", mbti, 3)
    persona = dataclasses.replace(persona, occupation=HOME_BASED[0])
    plan = plan_day(persona, VOCAB, PlannerParams(), random.Random(5))
    work_end = parse_hhmm(persona.schedule["work_end"])
    hobby_texts = set(load_taxonomy().get(persona.hobbies[0]).plan)
    assert any(c.activity in hobby_texts for c in plan.chunks)
    work = set(load_taxonomy().get(persona.schedule["work_scenario"]).plan)
    lunch = parse_hhmm(persona.schedule["lunch"])
    afternoon = [c for c in plan.chunks if c.activity in work and c.start_s > lunch]
    assert afternoon and max(c.end_s for c in afternoon) <= work_end
