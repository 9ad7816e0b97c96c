"""VidSitu's verb senses (row 85): a PropBank-derived table shipped with its source, commit
and licence; a narration verb's sense by a stated rule; roles follow the sense; verbs are
compared by sense where both sides have one; the narrations' verbs are covered."""

from __future__ import annotations

from collections import Counter

import pytest

from xlebench.eval.scorers.events import EventVerbs
from xlebench.library.annotations import Narration
from xlebench.library.senses import (
    choices,
    loses_actor,
    roleset,
    sense_of,
    sense_roles,
    table,
    verb_key,
)
from xlebench.tasks.vidsitu.srl import events_in, parse_roles


def test_the_table_names_its_source_commit_and_licence() -> None:
    t = table()
    assert t["source"] == "https://github.com/propbank/propbank-frames"
    assert len(t["commit"]) == 40 and "CC BY-SA 4.0" in t["licence"]
    assert t["lemmas"]["cut"][0]["roles"]["Arg1"] == "thing cut"


@pytest.mark.parametrize(("verb", "sense"), [
    ("cut", "cut.01"), ("cuts", "cut.01"), ("pick up", "pick_up.04"), ("looks at", "look.01"),
    ("put down", "put.01"), ("switch on", "turn_on.13"), ("get off", "get.05"),
    ("xyzzy", None)])
def test_a_narration_verb_takes_its_chosen_sense_else_its_lemmas_first(verb, sense) -> None:
    got = sense_of(verb)
    assert (got.id if got else None) == sense


def test_every_chosen_sense_exists() -> None:
    assert all(roleset(s) is not None for s in choices().values() if s is not None), choices()
    assert sense_of("file") is None, "chosen as none: no roleset is the act"


@pytest.mark.parametrize(("verb", "sense"), [
    ("jumps", "jump.03"), ("dips", "dip.02"), ("runs", "run.02"), ("sits", "sit.01"),
    ("passes", "pass.05"), ("drops", "drop.01"), ("stands", "stand.01"),
    ("shakes", "shake.01"), ("swings", "swing.02")])
def test_a_narration_verb_takes_the_physical_sense(verb: str, sense: str) -> None:
    """The choice rule: a reviewed choice for Ego4D's taxonomy verbs whose first roleset is
    not the act (jump.01 is "stock prices, increase", run.01 "operate", pass.01 "bill becomes
    law"), else the lemma's first roleset with an Arg0 (dip.01 "fall slightly, no agent",
    swing.01 "spatial configuration, non-agentive"); the whole table covers the commonest
    verbs of real Ego4D narrations (drop, stand, shake)."""
    assert sense_of(verb).id == sense


@pytest.mark.parametrize(("line", "roles"), [
    ("#C C sits on the chair", {"Arg1": "C", "ALoc": "chair"}),
    ("#C C stands", {"Arg1": "C"}),
    ("#C C jumps", {"Arg0": "C"}),
    ("#C C shakes the bottle", {"Arg0": "C", "Arg1": "bottle"}),
    ("#C C dips the bread in the soup", {"Arg0": "C", "Arg1": "bread", "ALoc": "soup"}),
])
def test_the_actor_takes_the_role_its_sense_gives_the_doer(line: str, roles: dict) -> None:
    """sit.01 has no Arg0: its sitter is Arg1 ("thing sitting"); stand.01's Arg0 is a
    "causal agent", so one who stands with nothing stood is its Arg1 ("thing standing");
    with an object the actor is the cause (Arg0)."""
    verb, parsed = parse_roles(line, "")
    assert sense_roles(sense_of(verb), parsed) == roles
    assert not loses_actor(sense_of(verb), parsed)


def test_roles_follow_the_sense() -> None:
    """cut.01's Arg2 is "medium, source" (the instrument is its Arg3, which VidSitu does not
    score): the parser's instrument is no cut.01 slot. talk.01's Arg2 is the hearer: kept.
    A verb without a sense keeps every role (the earlier tuple)."""
    verb, roles = parse_roles("#C C cuts the onion with the knife on the board", "kitchen")
    assert sense_roles(sense_of(verb), roles) == {"Arg0": "C", "Arg1": "onion",
                                                   "ALoc": "board"}
    verb, roles = parse_roles("#C C talks to man X", "")
    assert sense_roles(sense_of(verb), roles) == {"Arg0": "C", "Arg2": "man x"}
    assert sense_roles(None, roles) == roles
    ev = events_in([[Narration(0.5, "#C C cuts the onion with the knife", "a")]], 0.0, 2.0, 1,
                   "kitchen")[0]
    assert ev.sense == "cut.01" and "Arg2" not in ev.roles


def test_verbs_are_compared_by_sense_where_both_sides_have_one() -> None:
    """A reply naming another sense of the right verb misses; an inflected verb or the
    sense's id hits; a verb without a sense is compared as written."""
    item = {"answer": {"events": [{"verbs_gt": ["cut"]}, {"verbs_gt": ["xyzzy"]}]}}
    scorer = EventVerbs()

    def acc1(reply: str) -> float:
        return scorer.corpus()["acc@1"]([scorer.details(item, reply)])
    assert acc1("Event 1: verbs: cut.02\nEvent 2: verbs: xyzzy") == 0.5
    assert acc1("Event 1: verbs: cuts\nEvent 2: verbs: xyzzy") == 1.0
    assert acc1("Event 1: verbs: cut.01\nEvent 2: verbs: plugh") == 0.5
    assert verb_key("pick up") == "pick_up.04" == verb_key("picks up")


def test_the_narrations_verbs_are_covered() -> None:
    """Every verb the synthetic narrations' vocabulary starts with has a sense but those the
    table lists as having no frame file (at least 90% of them)."""
    import yaml

    from tests.conftest import ROOT  # the checkout
    verbs = yaml.safe_load((ROOT / "xlebench" / "data" / "actions.yaml").read_text())["verbs"]
    seen = Counter(bool(sense_of(v)) for v in verbs)
    assert seen[True] / sum(seen.values()) >= 0.9
    assert {v for v in verbs if not sense_of(v)} <= {"lies"}


def test_the_reviewed_choices_hold_as_a_whole() -> None:
    """Every reviewed choice, as reviewed (``tests/library/reviewed_senses.json``: the sense a
    narration verb takes and the roleset's name the reviewer read): a choice changed in the
    package (``fold: fold.01``, "mix ingredients gently") or a roleset renamed by a new
    PropBank table fails here, whichever verb it is."""
    import json
    from pathlib import Path

    reviewed = json.loads((Path(__file__).parent / "reviewed_senses.json").read_text("utf-8"))
    assert set(reviewed) == set(choices()), "a choice added or removed: review it here too"
    for verb, want in reviewed.items():
        got = sense_of(verb)
        assert (got.id if got else None) == want["sense"], verb
        if want["sense"]:
            assert roleset(want["sense"])["name"] == want["name"], verb


def test_a_sense_per_narration_agrees_with_the_hand_labels() -> None:
    """VidSitu's annotators pick a sense per event: "C strikes a pose" is not "C strikes the
    ball". 253 narrations of 43 verbs of the taxonomy that have several agentive rolesets,
    each labelled by hand from the rolesets' names and roles
    (``tests/library/narration_senses.jsonl``): the sense chosen per narration (`sense_in`)
    agrees with at least 85% of them (222 of 253 when written, 87.7%), well above the one
    reviewed sense per verb (205, 81.0%)."""
    import json
    from pathlib import Path

    from xlebench.library.senses import sense_in, senses_in

    rows = [json.loads(line) for line in (Path(__file__).parent / "narration_senses.jsonl")
            .read_text("utf-8").splitlines()]
    assert len(rows) >= 200 and len({r["verb"] for r in rows}) >= 40

    def agree(picked) -> float:
        return sum((s.id if s else None) == r["sense"]
                   for s, r in zip(picked, rows, strict=True)) / len(rows)
    # one pass over every narration, as the pipeline reads them (`senses_in`)
    per_narration = agree(senses_in([(r["verb"], r["narration"]) for r in rows]))
    per_verb = agree([sense_of(r["verb"]) for r in rows])
    assert per_narration >= 0.85 and per_narration >= per_verb + 0.05, (per_narration, per_verb)
    assert sense_in("strikes", "C strikes a pose in front of the mirror.").id == "strike.10"
    assert sense_in("strikes", "C strikes the ball with the bat.").id == "strike.01"
    assert sense_in("fixes", "C fixes breakfast in the kitchen.").id == "fix.01"
    assert sense_in("fixes", "C fixes the broken chair leg.").id == "fix.02"
    assert sense_in("picks up", "C picks up the cup.").id == "pick_up.04"  # phrasal: reviewed
