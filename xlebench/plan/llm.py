"""The LLM planner: persona, day agenda, chunks, chunk reference info and reflection, each a
versioned prompt whose JSON answer is validated (and corrected by the model) before use.

Same interfaces as the offline planner: it returns `Persona`, `DayPlan` and `Revision`
records, so the simulator cannot tell the two apart. Reflection is the one place where a
model that never gets it right does not fail the unit: as DESIGN.md section 2 asks, the
remaining chunks are then repaired deterministically and the repair is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from xlebench.clock import fmt_hhmmss, time_class
from xlebench.errors import LLMResponseError
from xlebench.library.records import LibraryVideo
from xlebench.llm.client import LLMClient, Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json
from xlebench.persona.profile import Persona, RoutineItem, persona_id
from xlebench.plan.answers import (
    AgendaAnswer,
    ChunkInfoAnswer,
    ChunkingAnswer,
    PersonaAnswer,
    ReflectionAnswer,
    Vocabulary,
    check_ids,
    check_sequence,
    parse_clock,
)
from xlebench.plan.chunks import DayPlan, PlanChunk
from xlebench.plan.offline import PlannerParams
from xlebench.plan.reflect import Revision, TimeClass, repair, violations


@dataclass(frozen=True)
class PlannerPrompts:
    """Prompt ids (``<group>/<name>.v<N>``); a new wording is a new version, never an edit."""

    persona: str = "planner/persona.v1"
    daily_plan: str = "planner/daily_plan.v1"
    chunking: str = "planner/chunking.v1"
    chunk_info: str = "planner/chunk_info.v1"
    reflection: str = "planner/reflection.v1"

    def names(self) -> list[str]:
        return [self.persona, self.daily_plan, self.chunking, self.chunk_info, self.reflection]


def persona_brief(p: Persona) -> dict[str, Any]:
    """What the prompts are told about a persona."""
    return {"name": p.name, "age": p.age, "occupation": p.occupation, "location": p.location,
            "mbti": p.mbti, "traits": list(p.traits), "lifestyle": p.lifestyle,
            "hobbies": list(p.hobbies),
            "daily_routine": [{"time": r.time, "activity": r.activity} for r in p.daily_routine]}


class LLMPlanner:
    def __init__(self, client: LLMClient, params: PlannerParams, *, max_retries: int,
                 prompts: PlannerPrompts | None = None) -> None:
        self.client = client
        self.params = params
        self.max_retries = max_retries
        self.prompts = prompts or PlannerPrompts()

    def _ask(self, prompt: str, parse, usage: Usage, sample: int, what: str, **values):
        messages = load_prompt(prompt).render(**values)
        return ask_json(self.client, messages, parse, max_retries=self.max_retries,
                        usage=usage, sample=sample, what=what)

    # -- persona ----------------------------------------------------------------------------

    def persona(self, location: str, mbti: str, seed: int, usage: Usage,
                member: int = 0) -> Persona:
        """One persona of a grid cell; a further ``member`` of it (``persona.per_cell``) is
        another sample of the same request, cached apart."""
        extra = {"member": member} if member else {}
        a: PersonaAnswer = self._ask(
            self.prompts.persona, PersonaAnswer.model_validate, usage,
            seed + 1_000_003 * member, f"persona {location}/{mbti}", location=location,
            mbti=mbti, input={"location": location, "mbti": mbti, **extra})
        routine = sorted(a.daily_routine, key=lambda r: parse_clock(r.time))
        return Persona(
            persona_id=persona_id(location, mbti, seed, member), location=location, mbti=mbti,
            name=a.name, age=a.age, occupation=a.occupation, traits=tuple(a.traits),
            lifestyle=a.lifestyle,
            daily_routine=tuple(RoutineItem(r.time, r.activity) for r in routine),
            hobbies=tuple(a.hobbies), source=f"llm:{self.client.settings.model}",
        )

    # -- day plan ---------------------------------------------------------------------------

    def day_plan(self, persona: Persona, vocabulary: Sequence[str], seed: int,
                 usage: Usage) -> DayPlan:
        p = self.params
        brief = persona_brief(persona)
        agenda: AgendaAnswer = self._ask(
            self.prompts.daily_plan, _agenda, usage, seed,
            f"daily plan of {persona.persona_id}", input={"persona": brief})
        chunking: ChunkingAnswer = self._ask(
            self.prompts.chunking, partial(_chunking, p), usage, seed,
            f"chunks of {persona.persona_id}", min_chunks=p.min_chunks,
            gap_min_min=p.gap_min_s // 60, gap_max_min=p.gap_max_s // 60,
            input={"persona": brief, "agenda": [s.model_dump() for s in agenda.agenda]})
        ids = [f"{persona.persona_id}-c{k:02d}" for k in range(len(chunking.chunks))]
        vocab = Vocabulary(vocabulary)
        info: ChunkInfoAnswer = self._ask(
            self.prompts.chunk_info, partial(_info, ids, vocab), usage, seed,
            f"chunk reference info of {persona.persona_id}",
            input={"scenario_vocabulary": vocab.names,
                   "chunks": [{"chunk_id": i, "start": c.start, "end": c.end,
                               "activity": c.activity, "description": c.description}
                              for i, c in zip(ids, chunking.chunks, strict=True)]})
        chunks = []
        for cid, c, meta in zip(ids, chunking.chunks, info.chunks, strict=True):
            start, end = c.seconds()
            chunks.append(PlanChunk(
                chunk_id=cid, start_s=start, end_s=end, activity=c.activity,
                description=c.description, scenarios=vocab.canonical(meta.scenarios, cid),
                scene=meta.scene, time_class=time_class(start, p.daytime_s, p.twilight_s)))
        return DayPlan(persona.persona_id,
                       tuple(s.model_dump() for s in agenda.agenda), tuple(chunks),
                       f"llm:{self.client.settings.model}", {})

    # -- reflection -------------------------------------------------------------------------

    def reflect(self, *, persona: Persona, memory: list[dict], index: int,
                remaining: Sequence[PlanChunk], segment_end: int, min_gap_s: int,
                vocabulary: Vocabulary, tclass: TimeClass, seed: int, usage: Usage
                ) -> Revision:
        rev = Revision(index, segment_end, list(remaining), [])
        parse = partial(_revision, list(remaining), segment_end, min_gap_s, vocabulary, tclass)
        try:
            rev.after = self._ask(
                self.prompts.reflection, parse, usage, seed,
                f"reflection after segment {index}", min_gap_min=-(-min_gap_s // 60),
                segment_end=fmt_hhmmss(segment_end),
                input={"persona": persona_brief(persona), "memory": memory,
                       "segment_end": fmt_hhmmss(segment_end),
                       "min_gap_minutes": -(-min_gap_s // 60),
                       "scenario_vocabulary": vocabulary.names,
                       "remaining_chunks": [_chunk_brief(c) for c in remaining]})
        except LLMResponseError as exc:
            rev.violations = [str(exc)]
            rev.after = repair(remaining, segment_end, min_gap_s, tclass)
            rev.repaired = True
            rev.changes.append("the model's revision was rejected; shifted the remaining "
                               "chunks deterministically instead")
            return rev
        for old, new in zip(remaining, rev.after, strict=True):
            if (old.start_s, old.end_s) != (new.start_s, new.end_s):
                rev.changes.append(f"moved {new.chunk_id} to {fmt_hhmmss(new.start_s)}")
            if old.activity != new.activity:
                rev.changes.append(f"replaced {new.chunk_id} ({old.activity}) with "
                                   f"{new.activity}")
        return rev


def _chunk_brief(c: PlanChunk) -> dict[str, Any]:
    return {"chunk_id": c.chunk_id, "start": fmt_hhmmss(c.start_s), "end": fmt_hhmmss(c.end_s),
            "activity": c.activity, "description": c.description,
            "scenarios": list(c.scenarios), "scene": c.scene}


def memory_entry(segment: dict, video: LibraryVideo) -> dict[str, Any]:
    """What reflection is told about one recorded segment."""
    return {"start": fmt_hhmmss(segment["start_s"]), "end": fmt_hhmmss(segment["end_s"]),
            "planned_activity": segment["chunk"]["activity"], "recorded": video.summary,
            "scenarios": list(video.scenarios)}


# -- parsers: JSON value -> validated answer (ValueError messages go back to the model) ------

def _agenda(value: Any) -> AgendaAnswer:
    a = AgendaAnswer.model_validate(value)
    check_sequence(a.agenda, "agenda")
    return a


def _chunking(p: PlannerParams, value: Any) -> ChunkingAnswer:
    a = ChunkingAnswer.model_validate(value)
    if len(a.chunks) < p.min_chunks:
        raise ValueError(f"there are {len(a.chunks)} chunks; at least {p.min_chunks} are needed")
    check_sequence(a.chunks, "chunks", (p.gap_min_s, p.gap_max_s))
    return a


def _info(ids: list[str], vocab: Vocabulary, value: Any) -> ChunkInfoAnswer:
    a = ChunkInfoAnswer.model_validate(value)
    check_ids([c.chunk_id for c in a.chunks], ids)
    for c in a.chunks:
        vocab.canonical(c.scenarios, c.chunk_id)
    return a


def _revision(before: list[PlanChunk], segment_end: int, min_gap_s: int, vocab: Vocabulary,
              tclass: TimeClass, value: Any) -> list[PlanChunk]:
    a = ReflectionAnswer.model_validate(value)
    check_ids([c.chunk_id for c in a.chunks], [c.chunk_id for c in before])
    after = []
    for c in a.chunks:
        start, end = c.seconds()
        after.append(PlanChunk(
            chunk_id=c.chunk_id, start_s=start, end_s=end, activity=c.activity,
            description=c.description, scenarios=vocab.canonical(c.scenarios, c.chunk_id),
            scene=c.scene, time_class=tclass(start)))
    broken = violations(before, after, segment_end, min_gap_s)
    if broken:
        raise ValueError("; ".join(broken))
    return after

