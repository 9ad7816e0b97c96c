"""The persona record and its deterministic id."""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

MBTI_TYPES = tuple(
    a + b + c + d for a in "EI" for b in "SN" for c in "TF" for d in "JP"
)


def persona_id(location: str, mbti: str, seed: int, member: int = 0) -> str:
    """Readable and stable: ``japan-intj-3fa2c1`` from (location, mbti, seed) alone; the
    ``member``-th further persona of that grid cell (``persona.per_cell``) has its own
    digest, the first keeps the cell's.

    Six hex digits collide within a large cell (seed 10, Rwanda x ENTJ: members 1 and 19),
    so the ids are collision-free by construction: a member whose digest an earlier member
    of its cell holds re-draws (``\\x00redraw<k>`` added to the key) until it is free. Ids
    that never collided are unchanged, and each still depends on its inputs alone."""
    return _cell_ids(location, mbti, seed, member + 1)[member]


def _draw(location: str, mbti: str, seed: int, member: int, redraw: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", location.casefold()).strip("_") or "somewhere"
    key = f"{location}\x00{mbti}\x00{seed}" + (f"\x00{member}" if member else "") \
        + (f"\x00redraw{redraw}" if redraw else "")
    digest = hashlib.sha256(key.encode()).hexdigest()[:6]
    return f"{slug}-{mbti.lower()}-{digest}"


_CELLS: dict[tuple[str, str, int], list[str]] = {}
_LOCK = threading.Lock()


def _cell_ids(location: str, mbti: str, seed: int, n: int) -> list[str]:
    """The first ``n`` ids of a grid cell, each distinct from the ones before it (kept per
    cell, so a cell of ``per_cell`` members costs ``per_cell`` digests, not its square)."""
    with _LOCK:
        return _grow(_CELLS.setdefault((location, mbti, seed), []), location, mbti, seed, n)


def _grow(ids: list[str], location: str, mbti: str, seed: int, n: int) -> list[str]:
    while len(ids) < n:
        member, redraw = len(ids), 0
        candidate = _draw(location, mbti, seed, member, 0)
        while candidate in ids:
            redraw += 1
            candidate = _draw(location, mbti, seed, member, redraw)
        ids.append(candidate)
    return ids


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
