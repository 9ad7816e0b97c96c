"""The persona record and its deterministic id."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Any

MBTI_TYPES = tuple(
    a + b + c + d for a in "EI" for b in "SN" for c in "TF" for d in "JP"
)


def persona_id(location: str, mbti: str, seed: int, member: int = 0) -> str:
    """Readable and stable: ``japan-intj-3fa2c1`` from (location, mbti, seed) alone; the
    ``member``-th further persona of that grid cell (``persona.per_cell``) has its own
    digest, the first keeps the cell's."""
    slug = re.sub(r"[^a-z0-9]+", "_", location.casefold()).strip("_") or "somewhere"
    key = f"{location}\x00{mbti}\x00{seed}" + (f"\x00{member}" if member else "")
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    return f"{slug}-{mbti.lower()}-{digest}"


@dataclass(frozen=True)
class RoutineItem:
    time: str  # "HH:MM"
    activity: str


@dataclass(frozen=True)
class Persona:
    persona_id: str
    location: str
    mbti: str
    name: str
    age: int
    occupation: str
    traits: tuple[str, ...]
    lifestyle: str
    daily_routine: tuple[RoutineItem, ...]
    hobbies: tuple[str, ...]
    source: str
    #: Structured schedule the offline planner follows (times as "HH:MM", scenario names).
    schedule: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Persona:
        d = dict(d)
        d["traits"] = tuple(d["traits"])
        d["hobbies"] = tuple(d["hobbies"])
        d["daily_routine"] = tuple(RoutineItem(**r) for r in d["daily_routine"])
        return cls(**d)

    def describe(self) -> str:
        """One paragraph used in prompts and summaries."""
        return (
            f"{self.name} ({self.age}, {self.mbti}) lives in {self.location} and works as "
            f"{self.occupation}. Traits: {', '.join(self.traits)}. {self.lifestyle} "
            f"Hobbies: {', '.join(self.hobbies)}."
        )
