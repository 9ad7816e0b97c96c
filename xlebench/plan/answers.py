"""Schemas of the LLM planner's answers, with the rules a valid answer must meet.

Every check raises ``ValueError`` with a sentence written for the model: it is fed back
verbatim when the answer is retried (see `xlebench.llm.structured`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from xlebench.clock import fmt_hhmm, parse_clock
from xlebench.library.taxonomy import normalize_scenario

Scene = Literal["indoor", "outdoor", "mixed"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class RoutineAnswer(_Strict):
    time: str
    activity: str = Field(min_length=1)

    @field_validator("time")
    @classmethod
    def _time(cls, v: str) -> str:
        return fmt_hhmm(parse_clock(v))


class PersonaAnswer(_Strict):
    name: str = Field(min_length=1, max_length=60)
    age: int = Field(ge=14, le=100)
    occupation: str = Field(min_length=1)
    traits: list[str] = Field(min_length=2, max_length=8)
    lifestyle: str = Field(min_length=1)
    hobbies: list[str] = Field(min_length=1, max_length=8)
    daily_routine: list[RoutineAnswer] = Field(min_length=3, max_length=24)


class Span(_Strict):
    start: str
    end: str
    activity: str = Field(min_length=1)

    def seconds(self) -> tuple[int, int]:
        return parse_clock(self.start), parse_clock(self.end)


def check_sequence(spans: Sequence[Span], what: str, gap: tuple[int, int] | None = None) -> None:
    """Chronological, non-empty, non-overlapping; gaps within `gap` (seconds) when given."""
    prev_end = None
    for i, sp in enumerate(spans):
        start, end = sp.seconds()
        if end <= start:
            raise ValueError(f"{what}[{i}] ({sp.activity!r}) ends at {sp.end}, not after its "
                             f"start {sp.start}")
        if prev_end is not None:
            if start < prev_end:
                raise ValueError(f"{what}[{i}] starts at {sp.start}, before {what}[{i - 1}] "
                                 "ends; entries must be chronological and must not overlap")
            if gap and not gap[0] <= start - prev_end <= gap[1]:
                raise ValueError(
                    f"the gap before {what}[{i}] ({sp.start}) is {(start - prev_end) // 60} "
                    f"minutes; every gap must be {gap[0] // 60} to {gap[1] // 60} minutes")
        prev_end = end


class AgendaAnswer(_Strict):
    agenda: list[Span] = Field(min_length=3)


class ChunkAnswer(Span):
    description: str = Field(min_length=1)


class ChunkingAnswer(_Strict):
    chunks: list[ChunkAnswer]


class InfoAnswer(_Strict):
    chunk_id: str
    scenarios: list[str] = Field(min_length=1, max_length=3)
    scene: Scene


class ChunkInfoAnswer(_Strict):
    chunks: list[InfoAnswer]


class RevisedChunkAnswer(ChunkAnswer):
    chunk_id: str
    scenarios: list[str] = Field(min_length=1, max_length=3)
    scene: Scene


class ReflectionAnswer(_Strict):
    chunks: list[RevisedChunkAnswer]


class Vocabulary:
    """The library's scenario names; answers are mapped onto their exact spelling."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = sorted(names)
        self._by_key = {normalize_scenario(n): n for n in names}

    def canonical(self, names: Sequence[str], where: str) -> tuple[str, ...]:
        out = []
        for n in names:
            hit = self._by_key.get(normalize_scenario(n))
            if hit is None:
                raise ValueError(f"{where}: scenario {n!r} is not in the scenario vocabulary; "
                                 "copy names exactly from the vocabulary list")
            out.append(hit)
        return tuple(dict.fromkeys(out))


def check_ids(got: Sequence[str], want: Sequence[str]) -> None:
    if list(got) != list(want):
        raise ValueError(f"expected exactly these chunk ids in this order: {list(want)}; "
                         f"got {list(got)}")
