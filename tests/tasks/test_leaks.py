"""No item prints another's answer, and no period names its video (issue 41): the paper's
ordering query prints the day's summary references and its single-summary period is exactly
the video's length; both leaks are shown working in the paper's form and closed by default."""

from __future__ import annotations

import random
from collections import Counter

from tests.tasks.test_recipes import LOG, PARAMS, VIDEOS, _annotations
from xlebench.eval.provenance import source_of
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.records import segment_of
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.tasks.screening.leaks import (
    PRINTED_PAIR,
    SHOWN_PAIR,
    audit,
    fingerprint,
    printed,
    prints,
    settle,
    shown_pairs,
)
from xlebench.tasks.xlebench.summary_ordering import NO_CLIPS

LONG = "C cooks the pasta in the kitchen and then washes the pan at the sink."


def _items(name: str, **params) -> list[dict]:
    recipe = load_recipe(name)
    ctx = Context(name, recipe.task, LOG, VIDEOS, _annotations(), random.Random(7),
                  offline_aggregate)
    return recipe.build(ctx, recipe.params(params)).items


def test_prints_needs_most_of_a_long_answer() -> None:
    assert prints(f"Summary 0: {LONG} Summary 1: C reads.", LONG)
    assert not prints("C cooks the pasta in the kitchen.", LONG), "a part is not the answer"
    assert not prints("C reads a book.", "C reads a book."), "short answers are everywhere"


def test_the_papers_ordering_query_prints_the_summary_answers_and_clips_do_not() -> None:
    long = {uid: v.__class__(**{**v.__dict__, "summary": f"{v.summary[:-1]} and then tidies "
                                "up everything around the place."}) for uid, v in VIDEOS.items()}
    recipe = load_recipe("summary_ordering")
    single = load_recipe("single_summary")
    built = {}
    for texts in ("summaries", "clips"):
        ctx = Context("summary_ordering", recipe.task, LOG, long, _annotations(),
                      random.Random(7), offline_aggregate)
        order = recipe.build(ctx, recipe.params({"texts": texts, "across": "day"})).items
        sctx = Context("single_summary", single.task, LOG, long, _annotations(),
                       random.Random(7), offline_aggregate)
        built[texts] = audit([*order, *single.build(sctx, single.params({})).items])
    assert built["summaries"]["summary_ordering"]["answers_of"] == {"single_summary": 3}
    assert built["clips"] == {}


def test_a_record_whose_only_clip_is_its_summary_gives_no_ordering_item() -> None:
    same = {uid: v.__class__(**{**v.__dict__, "summary": LONG,
                                "clip_summaries": (v.clip_summaries[0].__class__(
                                    0.0, v.duration_s, LONG),)}) for uid, v in VIDEOS.items()}
    recipe = load_recipe("summary_ordering")
    ctx = Context("summary_ordering", recipe.task, LOG, same, _annotations(), random.Random(7),
                  offline_aggregate)
    built = recipe.build(ctx, recipe.params({"across": "day"}))
    assert built.items == [] and built.stats[NO_CLIPS] == 1


def test_a_padded_period_holds_its_record_alone_and_is_not_its_length() -> None:
    padded, record = _items("single_summary"), _items("single_summary", period="record")
    segs = sorted(LOG["segments"], key=lambda s: s["start_s"])
    for it, paper in zip(padded, record, strict=True):
        seg = segment_of(LOG, it)
        lo, hi = it["period"]["start_s"], it["period"]["end_s"]
        assert (paper["period"]["start_s"], paper["period"]["end_s"]) == (seg["start_s"],
                                                                            seg["end_s"])
        assert lo <= seg["start_s"] and seg["end_s"] <= hi and (lo, hi) != (seg["start_s"],
                                                                           seg["end_s"])
        others = [s for s in segs if s is not seg]
        assert all(s["end_s"] <= lo or s["start_s"] >= hi for s in others)


def _printer(log: str, k: int, shows: str) -> dict:
    return {"item_id": f"{log}-summary_mcq-{k:03d}", "subtask": "summary_mcq",
            "lifelog_id": log, "query": f"Which? 0: {shows} 1: C sleeps all day long at home.",
            "evidence": [{"video_uid": f"video-{log}"}],
            "answer": {"text": shows, "options": [shows, "C sleeps."], "label": 0}}


def _printed(log: str, k: int, text: str) -> dict:
    return {"item_id": f"{log}-single_summary-{k:03d}", "subtask": "single_summary",
            "lifelog_id": log, "query": "Summarize 07:00 - 07:10.",
            "evidence": [{"video_uid": f"video-{log}"}], "answer": {"text": text}}


def test_of_a_printer_and_the_item_it_prints_one_is_dropped() -> None:
    """Multiple-choice options that print the single-video summary of the same record: the
    audit names the pair, and resolving drops one of each pair (not always the printer, so
    both recipes keep items), leaving nothing printed."""
    items = []
    for k in range(40):
        items += [_printer(f"log{k}", 1, f"{LONG} Number {k}."), _printed(f"log{k}", 1,
                                                                         f"{LONG} Number {k}.")]
    assert len(printed(items)) == 40
    drop = settle(items, {}, {}, seed=0)
    assert len(drop) == 40 and settle(items, {}, {}, seed=0) == drop
    assert set(drop.values()) == {PRINTED_PAIR}
    kept = [it for it in items if it["item_id"] not in drop]
    assert printed(kept) == {} and {it["subtask"] for it in kept} == {"summary_mcq",
                                                                        "single_summary"}


def test_the_annotate_stage_drops_and_counts_printed_pairs_unless_kept() -> None:
    from xlebench.stages.annotate import PRINTED, AnnotateStage

    recipes = {n: (load_recipe(n), load_recipe(n).params({}))
               for n in ("single_summary", "summary_mcq")}
    records = {f"log{k}.{sub}": {"lifelog_id": f"log{k}", "subtask": sub, "items": [it],
                                 "stats": {}}
               for k in range(10) for sub, it in (
                   ("summary_mcq", _printer(f"log{k}", 1, f"{LONG} Number {k}.")),
                   ("single_summary", _printed(f"log{k}", 1, f"{LONG} Number {k}.")))}
    stage = AnnotateStage(recipes=recipes, keys={}, annotations_root=None)
    out = stage.finish(records)
    assert sum(len(r["items"]) for r in out.values()) == 10
    assert sum(r["stats"].get(PRINTED, 0) for r in out.values()) == 10
    keep = AnnotateStage(recipes=recipes, keys={}, annotations_root=None,
                         printed_answers="keep")
    assert keep.finish(records) == records


def _in_logs(items: list[dict], n: int) -> list[dict]:
    """The same items in ``n`` life logs (their ids made unique per log)."""
    return [{**it, "lifelog_id": f"log{k}", "item_id": f"log{k}-{it['item_id']}"}
            for k in range(n) for it in items]


def _said_items(n_logs: int) -> list[dict]:
    """Ordering and single-summary items of ``LOG`` whose clip texts say, in other words, what
    the summaries answer, in ``n_logs`` life logs."""
    said = {"v-cook": ("C cooks the pasta in the kitchen and then washes the pan at the sink.",
                       "At the sink C washes a pan after cooking pasta in a kitchen."),
            "v-walk": ("C walks the dog in the park and then throws the ball on the grass.",
                       "On grass C throws a ball after walking a dog in a park."),
            "v-read": ("C reads the book on the sofa and then turns the page by the lamp.",
                       "By a lamp C turns a page after reading a book on a sofa.")}
    videos = {uid: v.__class__(**{**v.__dict__, "summary": said[uid][0], "clip_summaries": (
        v.clip_summaries[0].__class__(0.0, v.duration_s, said[uid][1]),)})
        for uid, v in VIDEOS.items()}
    both = []
    for name in ("summary_ordering", "single_summary"):
        recipe = load_recipe(name)
        ctx = Context(name, recipe.task, LOG, videos, _annotations(), random.Random(7),
                      offline_aggregate)
        both += recipe.build(ctx, recipe.params(DAY.get(name, {}))).items
    return _in_logs(both, n_logs)


#: The day's ordering: one text per record (the records here have one clip each).
DAY = {"summary_ordering": {"across": "day"}}


def _declared(*names: str) -> tuple[dict, dict]:
    recipes = {n: load_recipe(n) for n in names}
    return ({n: r.shows for n, r in recipes.items()}, {n: r.answers for n, r in recipes.items()})


def test_ordering_texts_that_say_what_a_summary_answers_never_meet_it_in_any_log() -> None:
    """The ordering query's clip texts are not the summaries' references verbatim (the audit
    sees nothing) but say the same of the same records: a reader who copies the right one
    scores high. Of every ordering item and summary about one video, in any life log, one is
    dropped (here every log holds the same three videos, so one recipe keeps them all): no
    kept ordering item shares a video with a kept summary anywhere, and what the other
    queries of a log give falls to nothing."""
    from xlebench.tasks.screening.leaks import other_queries

    both = _said_items(20)
    assert audit(both) == {}
    assert other_queries(both)["single_summary"]["best"] > 0.2
    shows, answers = _declared("summary_ordering", "single_summary")
    drop = settle(both, shows, answers, seed=0)
    assert drop == settle(both, shows, answers, seed=0) and set(drop.values()) == {SHOWN_PAIR}
    kept = [it for it in both if it["item_id"] not in drop]
    assert len({it["subtask"] for it in kept}) == 1
    assert shown_pairs(kept, shows, answers) == {}
    assert other_queries(kept).get("single_summary", {"best": 0.0})["best"] == 0.0


def test_a_shown_record_is_settled_across_life_logs() -> None:
    """One log's ordering query shows a record that another log's summary answers (the same
    library video in two days): the pair is found across logs, which a rule per life log
    kept both of, and one of the two is dropped."""
    order = [it for it in _said_items(1) if it["subtask"] == "summary_ordering"]
    summaries = [{**it, "lifelog_id": "other", "item_id": "other-" + it["item_id"]}
                 for it in _said_items(1) if it["subtask"] == "single_summary"]
    shows, answers = _declared("summary_ordering", "single_summary")
    pairs = shown_pairs([*order, *summaries], shows, answers)
    assert pairs == {order[0]["item_id"]: {it["item_id"] for it in summaries}}
    drop = settle([*order, *summaries], shows, answers, seed=0)
    assert drop and shown_pairs([it for it in [*order, *summaries]
                                 if it["item_id"] not in drop], shows, answers) == {}


def test_settling_keeps_each_meeting_subtask_a_fair_share() -> None:
    """Each of 40 logs has an ordering query showing three records and a summary of each
    (every pair conflicts): dropping the item in most pairs first would drop every ordering
    query; the fair cover keeps each subtask about half its share, whatever the seed."""
    both = [{**it, "source": {"videos": [f"{it['lifelog_id']}-{v}" for v in
                                         source_of(it)["videos"]],
                              "annotations": source_of(it)["annotations"]}}
            for it in _said_items(40)]
    shows, answers = _declared("summary_ordering", "single_summary")
    for seed in range(3):
        drop = settle(both, shows, answers, seed=seed)
        kept = Counter(it["subtask"] for it in both if it["item_id"] not in drop)
        total = Counter(it["subtask"] for it in both)
        assert all(kept[s] / total[s] >= 0.4 for s in total), kept


def _logs(period: str, n: int) -> list[dict]:
    """The 8 X-LeBench subtasks' items of ``LOG`` replayed in ``n`` life logs, each starting
    its records at another time of day (the same library videos, another day)."""
    items = []
    for k in range(n):
        shift = 300 * k
        log = {**LOG, "lifelog_id": f"uk-intj-{k:06d}-short",
               "segments": [{**s, "start_s": s["start_s"] + shift, "end_s": s["end_s"] + shift}
                            for s in LOG["segments"]]}
        for name, params in PARAMS.items():
            recipe = load_recipe(name)
            ctx = Context(name, recipe.task, log, VIDEOS, _annotations(), random.Random(k),
                          offline_aggregate)
            items += recipe.build(ctx, recipe.params({**params, "period": period})).items
    return items


def test_a_records_period_names_its_video_across_logs_unless_padded() -> None:
    """The paper's periods: every log reusing a video prints its length, so a reader links
    the logs' questions about it; padded periods of the same records differ in length across
    logs, and no length is one video's alone."""
    paper, padded = fingerprint(_logs("record", 24)), fingerprint(_logs("padded", 24))
    assert paper["cross_log_pairs"] == padded["cross_log_pairs"] > 100
    assert paper["cross_log_equal_length"] == 1.0 and paper["length_names_video"] == 1.0
    assert padded["cross_log_equal_length"] <= 0.1
    assert padded["length_names_video"] <= 0.2


def test_printed_is_the_same_spread_over_cores(monkeypatch) -> None:
    """`printed`'s look-ups run in runs of items over the run's cores: the pairs `prints`
    finds between neighbours, in item order, at one and two cores, across the runs'
    boundaries."""
    from xlebench.runner import cores
    from xlebench.tasks.screening import leaks

    monkeypatch.setattr(leaks, "_PER_TASK", 7)
    monkeypatch.setattr(cores, "available", lambda: 2)  # also in a test worker's one CPU
    items = []
    for k in range(30):
        items += [_printer(f"log{k % 9}", k, f"{LONG} Number {k % 4}."),
                  _printed(f"log{k % 9}", k, f"{LONG} Number {k % 5}.")]
    want = {}
    for it in items:
        hits = sorted(o["item_id"] for o in items if o is not it
                      and o["lifelog_id"] == it["lifelog_id"]
                      and prints(it["query"], leaks.answer_text(o)))
        if hits:
            want[it["item_id"]] = hits
    alone = printed(items)
    with cores.using(2):
        spread = printed(items)
    assert list(alone.items()) == list(spread.items()) == list(want.items())
    assert len(want) > 7


def test_printed_finds_every_answer_printed_at_the_share_whatever_5_grams_are_missing(
        ) -> None:
    """`printed` looks each query up under a few of each answer's 5-grams (its rarest) and
    compares the answers it finds: a query holding exactly the share of an answer's 5-grams
    `prints` asks (``ceil(0.8 k)`` of ``k``, also where ``0.8 k`` is not exact in floats)
    is found whichever are missing — the first in sorted order, the last or any — and one
    holding one fewer is not."""
    from xlebench.tasks.screening import leaks

    rng, items, logs = random.Random(3), [], 0
    for k in range(4, 40):  # an answer's 5-grams: k + 4 words
        words = [f"a{k}b{i}" for i in range(k + 4)]
        grams = [words[i:i + 5] for i in range(k)]
        need = -(-4 * k // 5)  # ceil(0.8 k) in integers
        for held in (need, need - 1):
            for left_out in ("first", "last", "any"):
                order = sorted(range(k), key=lambda i: tuple(grams[i]))
                drop = {"first": order[:k - held], "last": order[held:],
                        "any": rng.sample(range(k), k - held)}[left_out]
                shown = " ".join(f"{' '.join(grams[i])} s{j}"
                                 for j, i in enumerate(sorted(set(range(k)) - set(drop))))
                log, logs = f"log{logs}", logs + 1
                items += [{"item_id": f"{log}-q", "subtask": "summary_mcq", "lifelog_id": log,
                           "query": f"Which? {shown}", "answer": {"text": "C sleeps."},
                           "evidence": [{"video_uid": f"v-{log}"}]},
                          {"item_id": f"{log}-a", "subtask": "single_summary",
                           "lifelog_id": log, "query": "Summarize.",
                           "answer": {"text": " ".join(words)},
                           "evidence": [{"video_uid": f"v-{log}"}]}]
                assert prints(items[-2]["query"], items[-1]["answer"]["text"]) == (held == need)
    want = {it["item_id"]: [f"{it['lifelog_id']}-a"] for it in items
            if it["item_id"].endswith("-q")
            and prints(it["query"], leaks.answer_text(items[items.index(it) + 1]))}
    assert printed(items) == want and len(want) == 3 * 36


def test_shown_pairs_are_the_same_spread_over_cores(monkeypatch) -> None:
    """`shown_pairs` runs its showing items in runs over the run's cores, and they cross back
    as positions: the same pairs, in the same order, at one and two cores, across the runs'
    boundaries."""
    from xlebench.runner import cores
    from xlebench.tasks.screening import leaks

    monkeypatch.setattr(leaks, "_PER_TASK", 3)
    monkeypatch.setattr(cores, "available", lambda: 2)  # also in a test worker's one CPU
    both = _said_items(9)
    shows, answers = _declared("summary_ordering", "single_summary")
    alone = shown_pairs(both, shows, answers)
    with cores.using(2):
        spread = shown_pairs(both, shows, answers)
    assert list(alone.items()) == list(spread.items())
    assert len(alone) == 9 and all(len(met) == 27 for met in alone.values())
