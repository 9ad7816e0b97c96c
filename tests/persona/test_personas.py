"""Personas: deterministic ids and profiles, MBTI-driven routines, validated files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from xlebench.clock import parse_hhmm
from xlebench.errors import DataError
from xlebench.persona.files import load_persona_file
from xlebench.persona.offline import generate_persona
from xlebench.persona.profile import persona_id


def test_ids_and_profiles_depend_only_on_location_mbti_seed() -> None:
    assert persona_id("Japan", "INTJ", 0) == persona_id("Japan", "INTJ", 0)
    assert persona_id("Japan", "INTJ", 0) != persona_id("Japan", "INTJ", 1)
    assert generate_persona("UK", "ENFP", 3) == generate_persona("UK", "ENFP", 3)


def test_j_types_wake_earlier_than_p_types_on_average() -> None:
    def wake(m: str) -> float:
        return sum(parse_hhmm(generate_persona(loc, m, s).schedule["wake"])
                   for loc in ("USA", "Italy", "Japan") for s in range(5)) / 15

    assert wake("ISTJ") < wake("ISTP")
    assert generate_persona("UK", "ESFJ", 0).schedule["social_evenings"]


def test_shipped_persona_files_load() -> None:
    files = sorted((ROOT / "personas").glob("*.yaml"))
    assert len(files) >= 3
    personas = [load_persona_file(f, 0) for f in files]
    assert personas[0].source.startswith("file:")
    assert len({p.persona_id for p in personas}) == len(personas)


@pytest.mark.parametrize("text,where", [
    ("location: Japan\nmbti: XXXX\n", "$.mbti"),
    ("location: Japan\nmbti: INTJ\ndaily_routine: [{time: '25:00', activity: x}]\n",
     "$.daily_routine[0].time"),
    ("location: Japan\nmbti: INTJ\nfavourite_colour: red\n", "$.favourite_colour"),
    ("mbti: INTJ\n", "$.location"),
])
def test_bad_persona_files_name_the_field(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(DataError) as err:
        load_persona_file(path, 0)
    assert err.value.where == where and err.value.file == str(path)
