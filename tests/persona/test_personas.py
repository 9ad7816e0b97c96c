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


def test_a_persona_file_steers_the_offline_plan(tmp_path) -> None:
    """A night-shift nurse: her day starts when the file says, dinner comes before the shift,
    and the shift runs through the night in the scenario the file names."""
    import random

    from xlebench.clock import parse_hhmm
    from xlebench.library.taxonomy import load_taxonomy
    from xlebench.persona.files import load_persona_file
    from xlebench.plan.offline import PlannerParams, plan_day

    path = tmp_path / "nurse.yaml"
    path.write_text(
        "location: UK\nmbti: ISFJ\noccupation: night-shift nurse\n"
        "hobbies: [Gardening]\n"
        "schedule: {work_scenario: Talking to colleagues}\n"
        "daily_routine:\n"
        "  - {time: '14:00', activity: wake up}\n"
        "  - {time: '19:00', activity: dinner}\n"
        "  - {time: '21:00', activity: start the night shift}\n"
        "  - {time: '07:00', activity: finish the shift}\n"
        "  - {time: '08:00', activity: go to bed}\n")
    persona = load_persona_file(path, seed=0)
    assert persona.schedule["wake"] == "14:00" and persona.schedule["work_start"] == "21:00"
    vocab = [s.name for s in load_taxonomy().scenarios]
    plan = plan_day(persona, vocab, PlannerParams(), random.Random(0))
    first = plan.chunks[0]
    assert first.start_s == parse_hhmm("14:00")
    work = [c for c in plan.chunks if "Talking to colleagues" == c.scenarios[0]]
    assert work and min(c.start_s for c in work) >= parse_hhmm("21:00")
    assert max(c.end_s for c in work) > 86_400  # through the night, on the same clock
    dinner = next(c for c in plan.chunks if c.activity == "have dinner")
    assert dinner.start_s < min(c.start_s for c in work)
    assert len(plan.chunks) >= 16


def test_further_personas_of_a_cell_are_distinct_households_and_the_first_is_the_cells() -> None:
    """``persona.per_cell``: member 0 is the cell's one persona byte for byte (a benchmark of
    one persona a cell nests in one of ten); each further member has its own id, seed and a
    full name no earlier member of the cell has, the same on every call."""
    first = generate_persona("Japan", "INTJ", 7)
    assert generate_persona("Japan", "INTJ", 7, member=0) == first
    assert persona_id("Japan", "INTJ", 7, 0) == persona_id("Japan", "INTJ", 7)
    cell = [generate_persona("Japan", "INTJ", 7, member=k) for k in range(12)]
    assert len({p.persona_id for p in cell}) == 12 and len({p.name for p in cell}) == 12
    assert all(" " in p.name for p in cell[1:]), "further members are named in full"
    assert [generate_persona("Japan", "INTJ", 7, member=k) for k in range(12)] == cell
    assert len({(p.occupation, p.age, p.hobbies) for p in cell}) > 6, "their own draws"
    # each member's name depends on the members before it: computed once each, so a cell of
    # the knob's most (100) is named in a moment, not in 2^99 regenerations
    assert len({generate_persona("UK", "ENFP", 3, member=k).name for k in range(100)}) == 100


def test_per_cell_multiplies_the_grid_and_is_in_the_manifest(tmp_path: Path) -> None:
    import json

    from tests.conftest import run_inprocess

    args = ("matcher/embedder=hashing", "library.n_videos=60", "persona.locations=[Japan,UK]",
            "persona.mbti=[INTJ]", "stages=[persona]", "progress=false")
    one = run_inprocess(tmp_path / "one", *args)
    three = run_inprocess(tmp_path / "three", *args, "persona.per_cell=3")
    assert one.rc == 0 and three.rc == 0, three.text[-2000:]
    rows = [json.loads(x) for x in (tmp_path / "three" / "benchmarks" / "demo" / "personas.jsonl")
            .read_text().splitlines()]
    base = [json.loads(x) for x in (tmp_path / "one" / "benchmarks" / "demo" / "personas.jsonl")
            .read_text().splitlines()]
    assert len(rows) == 6 and len({r["persona_id"] for r in rows}) == 6
    assert all(b in rows for b in base), "the one-a-cell grid is inside the larger one"
    manifest = json.loads((tmp_path / "three" / "benchmarks" / "demo" / "manifest.json")
                          .read_text())
    assert manifest["config"]["persona"]["per_cell"] == 3
    bad = run_inprocess(tmp_path / "bad", *args, "persona.per_cell=0")
    assert bad.rc == 2 and "persona.per_cell=0" in bad.text


def test_persona_ids_of_a_cell_never_collide_and_a_redraw_moves_only_the_later_member() -> None:
    """Six hex digits collide (seed 10, Rwanda x ENTJ: members 1 and 19 drew 4926ac); ids
    are re-drawn, deterministically, so every cell of any seed has distinct ids."""
    from xlebench.persona.profile import _CELLS, _draw

    raw = [_draw("Rwanda", "ENTJ", 10, k, 0) for k in range(20)]
    assert raw[1] == raw[19]  # the collision the fix is for
    ids = [persona_id("Rwanda", "ENTJ", 10, k) for k in range(20)]
    assert ids[:19] == raw[:19] and ids[19] != raw[19] and len(set(ids)) == 20
    _CELLS.clear()
    assert persona_id("Rwanda", "ENTJ", 10, 19) == ids[19]  # the same whatever asked first
    for seed in range(300):
        for cell in (("Rwanda", "ENTJ"), ("Japan", "INFP")):
            assert len({persona_id(*cell, seed, k) for k in range(100)}) == 100, seed
