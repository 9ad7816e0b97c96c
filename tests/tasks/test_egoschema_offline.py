"""EgoSchema's questions without a model (`xlebench.tasks.egoschema.egoschema_offline`): phases per
window third, both kinds' answers and certificates, and wrong answers about the same record
that are never true of the asked stretch."""

from __future__ import annotations

import random

from xlebench.tasks.egoschema import egoschema_offline as O
from xlebench.tasks.language.events import Event


def _ev(t: float, verb: str, dobj: str) -> Event:
    return Event(verb, dobj, None, t=t)


#: One 180-s window (0-180) of a record that goes on to 400 s.
EVENTS = sorted([
    _ev(5, "wash", "plate"), _ev(20, "wash", "plate"), _ev(40, "wash", "plate"),
    _ev(10, "pick up", "cup"), _ev(100, "pick up", "cup"),  # in two thirds: no phase
    _ev(70, "cut", "onion"), _ev(90, "cut", "onion"), _ev(55, "hold", "knife"),
    _ev(130, "stir", "pot"), _ev(150, "stir", "pot"), _ev(170, "stir", "pot"),
    _ev(175, "dry", "hand"),
    _ev(200, "open", "fridge"), _ev(260, "close", "fridge"), _ev(300, "peel", "apple"),
    _ev(330, "slice", "bread"), _ev(360, "wipe", "table"),
], key=lambda e: e.t)
RULES = O.WindowRules(window_s=180, min_events=10, min_repeats=2)


def test_phases_are_three_repeated_acts_whose_runs_do_not_interleave() -> None:
    ph = O.phases(EVENTS, 0, 180, RULES)
    assert [p.action for p in ph] == ["wash plate", "cut onion", "stir pot"]
    assert ph[0].times == (5, 20, 40) and ph[1].span == (68, 94)
    # with the onion cut once, no third repeated act falls between the plate and the pot
    thin = [e for e in EVENTS if e.action != "cut onion" or e.t == 70]
    assert O.phases(thin, 0, 180, RULES) is None
    assert O.windows(EVENTS, 0, 400, RULES) == [(0, 180)]  # 180-360 holds 5 acts


def test_each_kind_answers_from_the_phases_with_a_long_certificate() -> None:
    seq = O.solve("sequence", EVENTS, (0, 180), RULES)
    assert seq["text"] == "C washes the plate, then cuts the onion, then stirs the pot"
    assert seq["spans"] == [(3, 44), (68, 94), (128, 174)]
    assert sum(b - a for a, b in seq["spans"]) >= 30  # EgoSchema's condition D
    between = O.solve("between", EVENTS, (0, 180), RULES)
    assert between["text"] == "C cuts the onion"
    assert between["spans"] == [(38, 134)]
    assert O.question("between", O.phases(EVENTS, 0, 180, RULES)) == (
        "What does C do after washing the plate and before stirring the pot")


def test_wrong_answers_come_from_the_same_record_and_are_never_true() -> None:
    rng = random.Random(0)
    seq = O.solve("sequence", EVENTS, (0, 180), RULES)
    wrong = O.decoys("sequence", seq, EVENTS, (0, 180), 4, rng)
    assert len(wrong) == 4 and seq["text"] not in wrong and len(set(wrong)) == 4
    # every option orders the same three acts: no option's set of acts sets it apart
    assert all(all(a in w for a in ("plate", "onion", "pot")) for w in [*wrong, seq["text"]])
    between = O.solve("between", EVENTS, (0, 180), RULES)
    wrong = O.decoys("between", between, EVENTS, (0, 180), 4, rng)
    a, b = between["spans"][0]
    done = {O.said([e.action]) for e in EVENTS if a <= e.t <= b}
    assert len(wrong) == 4 and not done & set(wrong) and between["text"] in done
    assert "C dries the hand" in wrong  # in the window, after the asked stretch


def test_no_order_question_answers_itself_from_its_options() -> None:
    """The reviewer's route (issue 68): the option whose set of acts differs from the
    others', and the one order agreeing with it in two places. With every option an order of
    the same acts, no option differs, so the route has nothing to read, over many draws."""
    seq = O.solve("sequence", EVENTS, (0, 180), RULES)
    for seed in range(50):
        options = [seq["text"], *O.decoys("sequence", seq, EVENTS, (0, 180), 4,
                                           random.Random(seed))]
        sets = [frozenset(o.removeprefix("C ").split(", then ")) for o in options]
        assert len(options) == 5 and len(set(sets)) == 1, options


def test_windows_slide_to_phases_a_fixed_grid_cuts_in_two() -> None:
    """The window's acts moved to 100-270 s: the 180-s grid (0-180, 180-360) cuts its phases
    in two, a window sliding by 10 s finds the first that holds three (70-250, with two stirs
    of the pot)."""
    shifted = [Event(e.verb, e.dobj, e.pobj, t=e.t + 95) for e in EVENTS if e.t <= 175]
    clear = lambda w: O.phases(shifted, *w, RULES) is not None  # noqa: E731
    assert O.windows(shifted, 0, 400, RULES, keep=clear) == []
    sliding = O.WindowRules(window_s=180, min_events=10, min_repeats=2, step_s=10)
    assert O.windows(shifted, 0, 400, sliding, keep=clear) == [(70, 250)]
    assert [p.action for p in O.phases(shifted, 70, 250, sliding)] == [
        "wash plate", "cut onion", "stir pot"]
