"""Plan chunk and day plan records (DESIGN.md section 5)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xlebench.clock import DAY


@dataclass(frozen=True)
class PlanChunk:
    chunk_id: str
    start_s: int
    end_s: int
    activity: str
    description: str
    scenarios: tuple[str, ...]
    scene: str
    time_class: str
    slot: str = ""
    day: int = 0  # 0-based day of a multi-day log
    #: The scenarios of every activity the chunk's text names, where they differ from
    #: ``scenarios`` (planner.chunk_scenarios=own): ladder levels may read them.
    window_scenarios: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        d = {"chunk_id": self.chunk_id, "start_s": self.start_s, "end_s": self.end_s,
             "activity": self.activity, "description": self.description,
             "scenarios": list(self.scenarios), "scene": self.scene,
             "time_class": self.time_class, "slot": self.slot}
        if self.day:  # single-day records keep their shape
            d["day"] = self.day
        if self.window_scenarios:
            d["window_scenarios"] = list(self.window_scenarios)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PlanChunk:
        return cls(**{**d, "scenarios": tuple(d["scenarios"]),
                      "window_scenarios": tuple(d.get("window_scenarios", ()))})

    def shifted(self, start_s: int, time_class: str) -> PlanChunk:
        return replace(self, start_s=start_s, end_s=start_s + (self.end_s - self.start_s),
                       time_class=time_class)


@dataclass(frozen=True)
class DayPlan:
    persona_id: str
    agenda: tuple[dict, ...]
    chunks: tuple[PlanChunk, ...]
    source: str = "offline"
    notes: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"persona_id": self.persona_id, "agenda": list(self.agenda),
                "chunks": [c.to_dict() for c in self.chunks], "source": self.source,
                "notes": self.notes}

    @classmethod
    def join(cls, days: list[DayPlan]) -> DayPlan:
        """Several days' plans as one plan on one clock: day d's chunks start d * 86400 s
        later and carry ``day``; agenda entries carry their day."""
        if len(days) == 1:
            return days[0]
        chunks, agenda = [], []
        for d, plan in enumerate(days):
            chunks += [replace(c, chunk_id=f"{c.chunk_id}-d{d + 1}", start_s=c.start_s + d * DAY,
                               end_s=c.end_s + d * DAY, day=d) for c in plan.chunks]
            agenda += [{**a, "day": d + 1} for a in plan.agenda]
        notes = {**days[0].notes, "days": len(days)}
        return cls(days[0].persona_id, tuple(agenda), tuple(chunks), days[0].source, notes)

    @classmethod
    def from_dict(cls, d: dict) -> DayPlan:
        return cls(d["persona_id"], tuple(d["agenda"]),
                   tuple(PlanChunk.from_dict(c) for c in d["chunks"]), d.get("source", ""),
                   d.get("notes", {}))
