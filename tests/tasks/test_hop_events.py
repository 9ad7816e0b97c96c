"""MultiHop-EgoQA's categories D, E and F (Table 6): what the templates ask and answer, from
narrations in order, and the per-category shares of a log's items."""

from __future__ import annotations

import random

from xlebench.library.annotations import Narration
from xlebench.tasks.multihop import hop_events as E
from xlebench.tasks.multihop import multihop_items as I
from xlebench.tasks.multihop import multihop_qa as M
from xlebench.tasks.multihop.hops import occurrences

SEG = {"index": 0, "video_uid": "v", "start_s": 36000.0, "end_s": 36180.0,
       "source_start_s": 0.0, "source_end_s": 180.0}
LINES = [(0, "#C C washes the hands in the sink"), (10, "#C C picks up the towel"),
         (30, "#C C rinses the pad in the sink"), (50, "#C C washes the hands in the sink"),
         (60, "#C C opens the drawer"), (90, "#C C washes the hands at the basin"),
         (100, "#C C dries the plate")]


def _ordered() -> list:
    narr = [Narration(t, text, f"n{k}") for k, (t, text) in enumerate(LINES)]
    return [(SEG, o) for o in occurrences(narr, 180.0)]


def test_e_names_what_followed_each_time() -> None:
    nxt = E.after_each(_ordered(), "wash hands")
    assert [E.phrase(o) for _, o in nxt] == ["pick up the towel", "open the drawer",
                                             "dry the plate"]
    q, a = I.wording("E", "wash hands", [E.phrase(o) for _, o in nxt], 3, False,
                     ("wash", "hands"))
    assert q == "What did I do right after I washed the hands each time"
    assert a == ("The first time you <T1>picked up the towel</T1>, the second time you "
                 "<T2>opened the drawer</T2>, the third time you <T3>dried the plate</T3>.")


def test_e_takes_the_very_next_act_and_never_grounds_two_times_to_one() -> None:
    """The next act counts even without an object ("walks"); two times followed by one act
    (A, A, B) make no "each time" question."""
    lines = [(0, "#C C washes the cup"), (5, "#C C walks"), (10, "#C C dries the plate"),
             (20, "#C C washes the cup"), (25, "#C C opens the drawer")]
    narr = [Narration(t, text, f"n{k}") for k, (t, text) in enumerate(lines)]
    nxt = E.after_each([(SEG, o) for o in occurrences(narr, 60.0)], "wash cup")
    assert [E.phrase(o) for _, o in nxt] == ["walk", "open the drawer"]
    twice = [(0, "#C C washes the cup"), (5, "#C C washes the cup"), (9, "#C C dries it"),
             (12, "#C C dries the plate"), (20, "#C C washes the cup"), (25, "#C C eats")]
    narr = [Narration(t, text, f"n{k}") for k, (t, text) in enumerate(twice)]
    assert E.after_each([(SEG, o) for o in occurrences(narr, 60.0)], "wash cup") is None


def test_d_lists_places_of_one_kind() -> None:
    assert I.same_kind_places({"counter", "restaurant"}) == []
    assert I.same_kind_places({"counter", "sink", "restaurant"}) == ["counter", "sink"]
    assert I.same_kind_places({"kitchen", "living room", "sink"}) == ["kitchen", "living room"]


def test_f_says_which_came_first_or_that_it_fell_between() -> None:
    ordered = _ordered()
    off = E.one_off(ordered, "wash hands")
    assert E.action(off[1]) == "pick up towel"  # the nearest one-off to the first washing
    assert E.relation(ordered, "wash hands", "pick up towel") == "between"
    assert E.relation(ordered, "wash hands", "dry plate") == "node_first"
    _, a = I.wording("F", "wash hands", ["wash the hands", "pick up the towel"], 4, False,
                     how="between")
    assert a == "You <T1>washed the hands</T1> both before and after you <T2>picked up the towel</T2>."
    _, a = I.wording("F", "x", ["wash the hands", "dry the plate"], 4, False, how="other_first")
    assert a == "You <T2>dried the plate</T2> first, then <T1>washed the hands</T1>."


def test_d_lists_an_objects_places() -> None:
    q, a = I.wording("D", "hands", ["sink", "basin"], 3, False)
    assert q == "Where did I handle the hands"
    assert a == "You handled the hands <T1>at the sink</T1> and <T2>at the basin</T2>."


def test_category_shares_follow_the_paper_where_candidates_allow() -> None:
    found = [I.Candidate(cat, "action", f"{cat}{k}", [], (0.0, 1.0), None, None)
             for cat, n in (("A", 50), ("E", 50), ("F", 50)) for k in range(n)]
    p = I.MultiHopParams(max_items_per_log=40)
    counts = {"A": 0, "E": 0, "F": 0}
    for seed in range(20):
        ctx = type("C", (), {"rng": random.Random(seed)})()
        for c in M._weighted(ctx, found, p):
            counts[c.category] += 1
    total = sum(counts.values())
    assert total == 800
    # A: 0.396 against E 0.103 and F 0.031 of the weight -> A clearly first, F last
    assert counts["A"] / total > 0.5 and counts["F"] < counts["E"] < counts["A"]


def test_e_needs_two_different_acts_after_and_f_another_object() -> None:
    """Every time followed by the same act is no composition to ask about; F's one-off act
    shares neither the node's verb nor its object."""
    same = [(0, "#C C washes the cup"), (5, "#C C dries the plate"), (20, "#C C washes the cup"),
            (25, "#C C dries the plate")]
    narr = [Narration(t, text, f"n{k}") for k, (t, text) in enumerate(same)]
    assert E.after_each([(SEG, o) for o in occurrences(narr, 60.0)], "wash cup") is None
    lines = [(0, "#C C washes the cup"), (2, "#C C fills the cup"), (9, "#C C opens the tap"),
             (20, "#C C washes the cup")]
    narr = [Narration(t, text, f"n{k}") for k, (t, text) in enumerate(lines)]
    off = E.one_off([(SEG, o) for o in occurrences(narr, 60.0)], "wash cup")
    assert E.action(off[1]) == "open tap"  # "fill cup" is nearer but handles the same cup


def test_d_over_people_needs_two_people() -> None:
    """One person named however often is no "who" question over people."""
    from xlebench.tasks.multihop.hop_people import people

    def occs(lines: list[tuple[float, str]]) -> list:
        return occurrences([Narration(t, x, f"n{k}") for k, (t, x) in enumerate(lines)], 60.0)
    one = occs([(0, "#C C talks with man X"), (20, "#C C talks with man X")])
    assert people(one) is None
    two = occs([(0, "#C C talks with man X"), (20, "#C C talks with woman Y")])
    assert [who for who, _ in people(two)[2]] == ["man X", "woman Y"]
