"""The LLM planner end to end through litellm, against the scripted loopback model."""

from __future__ import annotations

from functools import partial

import pytest

from tests.conftest import make_client
from xlebench.clock import parse_clock, time_class
from xlebench.errors import LLMResponseError
from xlebench.llm.client import Usage
from xlebench.plan.answers import Vocabulary
from xlebench.plan.llm import LLMPlanner
from xlebench.plan.offline import PlannerParams
from xlebench.plan.reflect import violations
from xlebench.testing.scripted_llm import Fault

VOCAB = ["Cooking", "Cleaning / laundry", "Car - commuting, road trip", "Eating",
         "Working at desk", "Playing a musical instrument", "Reading books", "Grocery shopping"]
TC = partial(time_class, daytime=(21600, 61200), twilight=(61200, 68400))


def _planner(server, tmp_path, retries: int = 2) -> LLMPlanner:
    return LLMPlanner(make_client(server, tmp_path), PlannerParams(), max_retries=retries)


def test_persona_and_day_plan(server, tmp_path) -> None:
    planner, usage = _planner(server, tmp_path), Usage()
    persona = planner.persona("Japan", "ENFP", 3, usage)
    assert persona.location == "Japan" and persona.mbti == "ENFP"
    assert persona.persona_id.startswith("japan-enfp-") and persona.source == "llm:openai/scripted"
    plan = planner.day_plan(persona, VOCAB, 3, usage)
    assert len(plan.chunks) >= 16 and plan.source == "llm:openai/scripted"
    for a, b in zip(plan.chunks, plan.chunks[1:], strict=False):
        assert 300 <= b.start_s - a.end_s <= 1200
    assert all(set(c.scenarios) <= set(VOCAB) and c.scene in ("indoor", "outdoor", "mixed")
               for c in plan.chunks)
    assert {c.time_class for c in plan.chunks} >= {"daytime", "twilight"}
    assert usage.requests == 4 and usage.prompt_tokens > 0


def test_malformed_answer_is_retried_with_the_error_fed_back(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("daily_plan", "malformed"))
    planner = _planner(server, tmp_path)
    persona = planner.persona("UK", "ISTJ", 0, Usage())
    planner.day_plan(persona, VOCAB, 0, Usage())
    assert scripted.by_task["daily_plan"] == 2
    retry = next(r for r in server.requests if len(r["messages"]) == 4)
    assert retry["messages"][2]["role"] == "assistant"
    assert "not valid JSON" in retry["messages"][3]["content"]


def test_wrong_shape_forever_fails_with_raw_answers(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("chunk_info", "wrong_shape", times=100))
    planner = _planner(server, tmp_path, retries=2)
    persona = planner.persona("UK", "ISTJ", 0, Usage())
    with pytest.raises(LLMResponseError, match="chunk reference info .* after 2 retries") as err:
        planner.day_plan(persona, VOCAB, 0, Usage())
    assert scripted.by_task["chunk_info"] == 3
    art = err.value.artifacts
    assert sorted(art) == ["errors.txt", "response_0.txt", "response_1.txt", "response_2.txt"]
    assert '"items"' in art["response_0.txt"] and "chunks" in art["errors.txt"]


def _reflect(planner):
    usage = Usage()
    persona = planner.persona("USA", "INTP", 0, usage)
    plan = planner.day_plan(persona, VOCAB, 0, usage)
    segment_end = plan.chunks[0].start_s + 5000
    remaining = list(plan.chunks[1:5])
    rev = planner.reflect(persona=persona, memory=[{"recorded": "C cooks."}], index=0,
                          remaining=remaining, segment_end=segment_end, min_gap_s=150,
                          vocabulary=Vocabulary(VOCAB), tclass=TC, seed=0, usage=usage)
    return rev, segment_end


def test_reflection_breaking_the_gap_rule_is_corrected(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("reflection", "gap_break", times=1))
    rev, end = _reflect(_planner(server, tmp_path))
    assert scripted.by_task["reflection"] == 2
    assert not rev.repaired and not violations(rev.before, rev.after, end, 150)
    assert rev.after[0].start_s >= end + 150 and rev.changes


def test_reflection_that_never_obeys_is_repaired_and_recorded(server, scripted,
                                                              tmp_path) -> None:
    scripted.faults.append(Fault("reflection", "gap_break", times=100))
    rev, end = _reflect(_planner(server, tmp_path, retries=1))
    assert scripted.by_task["reflection"] == 2, "bounded: 1 answer + 1 correction"
    assert rev.repaired and "less than 150s after" in rev.violations[0]
    assert not violations(rev.before, rev.after, end, 150)
    assert [c.chunk_id for c in rev.after] == [c.chunk_id for c in rev.before]


@pytest.mark.parametrize("text, seconds", [("07:05", 25500), ("7:05:09", 25509),
                                           ("24:00", 86400), ("+1 00:30", 88200)])
def test_parse_clock(text: str, seconds: int) -> None:
    assert parse_clock(text) == seconds


@pytest.mark.parametrize("text", ["7h05", "25:00", "12:61", "24:01", ""])
def test_parse_clock_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_clock(text)
