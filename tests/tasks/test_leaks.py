"""No item prints another's answer, and no period names its video (issue 41): the paper's
ordering query prints the day's summary references and its single-summary period is exactly
the video's length; both leaks are shown working in the paper's form and closed by default."""

from __future__ import annotations

import random

from tests.tasks.test_recipes import LOG, VIDEOS, _annotations
from xlebench.tasks.helpers.aggregate import offline_aggregate
from xlebench.tasks.helpers.common import segment_of
from xlebench.tasks.helpers.context import Context
from xlebench.tasks.helpers.leaks import audit, printed, prints, resolve
from xlebench.tasks.helpers.registry import load_recipe
from xlebench.tasks.summary_ordering import NO_CLIPS

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
        order = recipe.build(ctx, recipe.params({"texts": texts})).items
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
    built = recipe.build(ctx, recipe.params({}))
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
    drop = resolve(items, seed=0)
    assert len(drop) == 40 and resolve(items, seed=0) == drop
    kept = [it for it in items if it["item_id"] not in drop]
    assert printed(kept) == {} and {it["subtask"] for it in kept} == {"summary_mcq",
                                                                        "single_summary"}


def test_the_annotate_stage_drops_and_counts_printed_pairs_unless_kept() -> None:
    from xlebench.stages.annotate import PRINTED, AnnotateStage

    recipes = {n: (load_recipe(n), load_recipe(n).params({}))
               for n in ("single_summary", "summary_mcq")}
    records = {f"log{k}.{sub}": {"subtask": sub, "items": [it], "stats": {}}
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


def test_ordering_texts_that_say_what_a_summary_answers_never_share_a_log_with_it() -> None:
    """The ordering query's clip texts are not the summaries' references verbatim (the audit
    sees nothing) but say the same of the same records: a reader who copies the right one
    scores high. One side per life log is kept, by a seeded coin: each recipe keeps items,
    and what the other queries of a log give falls to nothing."""
    from xlebench.tasks.helpers.leaks import other_queries, shown

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
        both += recipe.build(ctx, recipe.params({})).items
    both = _in_logs(both, 20)
    assert audit(both) == {}
    assert other_queries(both)["single_summary"]["best"] > 0.2
    recipes = {n: load_recipe(n) for n in ("summary_ordering", "single_summary")}
    drop = shown(both, {n: r.shows for n, r in recipes.items()},
                 {n: r.answers for n, r in recipes.items()}, seed=0)
    kept = [it for it in both if it["item_id"] not in drop]
    assert drop == shown(both, {n: r.shows for n, r in recipes.items()},
                         {n: r.answers for n, r in recipes.items()}, seed=0)
    assert {it["subtask"] for it in kept} == {"summary_ordering", "single_summary"}
    assert all({it["subtask"] for it in kept if it["lifelog_id"] == log} != {
        "summary_ordering", "single_summary"} for log in {it["lifelog_id"] for it in kept})
    assert other_queries(kept).get("single_summary", {"best": 0.0})["best"] == 0.0
