"""Hand-written persona files (YAML), validated with pydantic.

Only location and mbti are required; anything left out is filled in by the offline generator
from (location, mbti, seed), so a file can be as short as two lines.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from xlebench.errors import DataError
from xlebench.persona.offline import generate_persona
from xlebench.persona.profile import MBTI_TYPES, Persona, RoutineItem, persona_id


class RoutineModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    time: str
    activity: str

    @field_validator("time")
    @classmethod
    def _hhmm(cls, v: str) -> str:
        h, _, m = v.partition(":")
        if not (h.isdigit() and m.isdigit() and int(h) < 24 and int(m) < 60 and len(m) == 2):
            raise ValueError("expected a 24-hour time HH:MM")
        return f"{int(h):02d}:{m}"


class ScheduleModel(BaseModel):
    """The times the offline planner follows (HH:MM); anything left out comes from the
    ``daily_routine`` (wake, start/finish work or shift, lunch, dinner, bed) or the generator."""

    model_config = ConfigDict(extra="forbid")
    wake: str | None = None
    work_start: str | None = None
    work_end: str | None = None
    lunch: str | None = None
    dinner: str | None = None
    sleep: str | None = None
    #: An Ego4D scenario name for the working hours (e.g. "Working at desk").
    work_scenario: str | None = None
    social_evenings: bool | None = None

    @field_validator("wake", "work_start", "work_end", "lunch", "dinner", "sleep")
    @classmethod
    def _hhmm(cls, v: str | None) -> str | None:
        return None if v is None else RoutineModel._hhmm(v)

    @field_validator("work_scenario")
    @classmethod
    def _scenario(cls, v: str | None) -> str | None:
        from xlebench.library.taxonomy import load_taxonomy

        if v is not None and load_taxonomy().get(v) is None:
            raise ValueError(f"{v!r} is not an Ego4D scenario of the taxonomy")
        return v


#: daily_routine wording -> schedule key (first match wins, in routine order).
ROUTINE_KEYS = (("wake", ("wake", "get up")), ("work_start", ("start work", "start the day's work",
                "start the shift", "start shift", "shift starts", "begin work", "go to work",
                "night shift")), ("work_end", ("finish work", "end of shift", "finish the shift",
                "shift ends", "leave work")), ("lunch", ("lunch",)), ("dinner", ("dinner",)),
                ("sleep", ("go to bed", "sleep", "bedtime")))


def routine_schedule(routine: list[dict]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in routine:
        text = item["activity"].lower()
        for key, words in ROUTINE_KEYS:
            if key not in out and any(w in text for w in words):
                out[key] = item["time"]
                break
    return out


def work_scenario_for(occupation: str) -> str | None:
    """A work-slot scenario whose name shares a word with the occupation (nurse -> the
    scenario naming nurses), if any."""
    from xlebench.library.taxonomy import load_taxonomy

    words = {w for w in occupation.lower().replace("-", " ").split() if len(w) > 3}
    for s in load_taxonomy().with_slot("work"):
        if words & set(s.name.lower().replace("/", " ").replace(",", " ").split()):
            return s.name
    return None


class PersonaFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    location: str
    mbti: str
    name: str | None = None
    age: int | None = Field(default=None, ge=0, le=120)
    occupation: str | None = None
    traits: list[str] | None = None
    lifestyle: str | None = None
    daily_routine: list[RoutineModel] | None = None
    hobbies: list[str] | None = None
    schedule: ScheduleModel | None = None

    @field_validator("location")
    @classmethod
    def _location(cls, v: str) -> str:
        from xlebench.persona.locations import LOCATIONS, unknown_location

        if v not in LOCATIONS:
            raise ValueError(unknown_location(v))
        return v

    @field_validator("mbti")
    @classmethod
    def _mbti(cls, v: str) -> str:
        if v.upper() not in MBTI_TYPES:
            raise ValueError(f"expected one of the 16 MBTI types, got {v!r}")
        return v.upper()


def _json_path(loc: tuple) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def yaml_problem(exc: yaml.YAMLError) -> tuple[str, str]:
    """Where a YAML error is (``line 3, column 7``) and what it is, each on one line (PyYAML
    prints a multi-line excerpt with a caret)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "$"
    parts = [getattr(exc, "context", None), getattr(exc, "problem", None)]
    text = "; ".join(str(x) for x in parts if x) or str(exc)
    return where, " ".join(text.split())


def load_persona_file(path: Path, seed: int) -> Persona:
    """Read one persona file; errors name the file, the field and the expectation."""
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        where, problem = yaml_problem(exc)
        raise DataError(str(path), where, f"expected valid YAML ({problem})") from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), "$", f"expected UTF-8 text ({exc.reason} at byte "
                        f"{exc.start})", hint="save the file as UTF-8") from None
    if not isinstance(raw, dict):
        raise DataError(str(path), "$", "expected a mapping with at least location and mbti")
    try:
        model = PersonaFile.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DataError(str(path), _json_path(err["loc"]), err["msg"]) from None
    base = generate_persona(model.location, model.mbti, seed, model.occupation,
                            work_scenario_for(model.occupation) if model.occupation else None)
    given = model.model_dump(exclude_none=True, exclude={"location", "mbti", "schedule"})
    schedule = dict(base.schedule)
    schedule.update(routine_schedule(given.get("daily_routine", [])))
    if model.schedule is not None:
        schedule.update(model.schedule.model_dump(exclude_none=True))
    given["schedule"] = schedule
    if "daily_routine" in given:
        given["daily_routine"] = tuple(RoutineItem(**r) for r in given["daily_routine"])
    for key in ("traits", "hobbies"):
        if key in given:
            given[key] = tuple(given[key])
    return replace(
        base,
        **given,
        persona_id=f"{persona_id(model.location, model.mbti, seed)}-{Path(path).stem}"[:120],
        source=f"file:{Path(path).name}",
    )
