"""Plan-style chunk text: the first activity with its place, the next ones whole."""

from __future__ import annotations

import random

from xlebench.library.taxonomy import load_taxonomy
from xlebench.plan.offline import Activity, _plan_text


def test_later_activities_keep_their_whole_phrase() -> None:
    carpenter = next(s for s in load_taxonomy().scenarios
                     if "work in the carpentry workshop" in s.plan)
    first = Activity(carpenter, 60, "build a wooden shelf")
    later = Activity(carpenter, 60, "work in the carpentry workshop")
    text = _plan_text([(first, 0, 3600), (later, 3600, 7200), (first, 7200, 9000)],
                      random.Random(0))
    assert text.startswith("C is building a wooden shelf ")
    assert "then working in the carpentry workshop and building a wooden shelf." in text


def test_the_wording_does_not_move_the_random_stream() -> None:
    carpenter = next(s for s in load_taxonomy().scenarios
                     if "work in the carpentry workshop" in s.plan)
    pieces = [(Activity(carpenter, 60, "build a wooden shelf"), 0, 3600)] * 3
    a, b = random.Random(1), random.Random(1)
    _plan_text(pieces, a)
    for _ in pieces:  # one place drawn per activity, as a description would
        b.choice(carpenter.places)
    assert a.random() == b.random()
