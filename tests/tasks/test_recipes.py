"""Task recipes on a fixed, hand-built life log: exact expected items (golden file) plus
hand-computed checks of the remapping rule and the counting rules."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

from xlebench.library.annotations import AnnotationIndex, Moment, Narration, NLQQuery, clean_query
from xlebench.library.records import ClipSummary, LibraryVideo
from xlebench.tasks.language.actions import action_of, count_actions
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.language.wording import counting_window
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.registry import load_recipe

GOLDEN = Path(__file__).parent / "golden_items.json"
PARAMS = {
    "object_retrieval": {"templates": ["Objects:", "Place:"], "max_per_segment": 2,
                         "max_items_per_log": 8},
    "people_retrieval": {"templates": ["People:"], "max_per_segment": 2, "max_items_per_log": 8},
    "moment_retrieval": {"max_per_segment": 2, "max_items_per_log": 8},
    "single_summary": {"max_items_per_log": None},
    "multi_summary": {"boundaries": ["12:00", "17:00"], "min_segments": 1},
    "holistic_summary": {"boundaries": ["12:00", "17:00"]},
    "action_counting": {"window_lengths_s": [60], "min_window_s": 60, "min_actions": 2,
                        "max_actions": 5, "max_items_per_log": 4},
    "summary_ordering": {"min_summaries": 3, "across": "day"},
}


def _video(uid: str, dur: float, summary: str, clip: str) -> LibraryVideo:
    return LibraryVideo(uid, dur, "UK", "bristol", ("Cooking",), "daytime", "indoor", summary,
                        (ClipSummary(0.0, dur, clip),))


VIDEOS = {v.video_uid: v for v in (
    _video("v-cook", 600.5, "C cooks pasta in the kitchen.", "C drains the pot at the sink."),
    _video("v-walk", 300.0, "C walks the dog in the park.", "C throws a ball on the grass."),
    _video("v-read", 420.0, "C reads a book on the sofa.", "C turns a page by the lamp."),
)}
LOG = {
    "lifelog_id": "uk-intj-000000-short", "persona_id": "uk-intj-000000", "category": "short",
    "n_chunks": 3, "segments": [
        {"index": 0, "video_uid": "v-cook", "start_s": 27000, "end_s": 27601,
         "source_start_s": 0.0, "source_end_s": 600.5},
        {"index": 1, "video_uid": "v-walk", "start_s": 50400, "end_s": 50700,
         "source_start_s": 0.0, "source_end_s": 300.0},
        {"index": 2, "video_uid": "v-read", "start_s": 72000, "end_s": 72420,
         "source_start_s": 0.0, "source_end_s": 420.0},
    ]}


def _annotations() -> AnnotationIndex:
    ann = AnnotationIndex(narration_file="v2/annotations/narration.json")
    f = "v2/annotations/nlq_val.json"
    ann.nlq["v-cook"] = [
        NLQQuery("v-cook", clean_query("Query Text: where is the pot?  "),
                 "Objects: Where is object X?", 12.0210286, 19.5, "ann-1", 0, "clip-1", f,
                 "Query Text: where is the pot?  "),
        NLQQuery("v-cook", "Who did I talk to in the kitchen?",
                 "People: Who did I talk to in location X?", 300.0, 310.0, "ann-2", 1,
                 "clip-1", f, "Who did I talk to in the kitchen?")]
    ann.moments["v-walk"] = [
        Moment("v-walk", "converse_/_interact_with_someone", 10.0, 40.0, ("m1",), "m.json"),
        Moment("v-walk", "converse_/_interact_with_someone", 100.0, 130.0, ("m2",), "m.json")]
    cycle = ("#C C picks up a pot", "#C C cuts an onion", "#C C cuts an onion",
             "#O man X opens the door", "#C C picks up a pot", "#C C stirs the soup")
    pass1 = [Narration(float(t), cycle[k % 6], f"n{t}") for k, t in enumerate(range(5, 600, 7))]
    pass2 = [Narration(float(t), txt, f"p{t}") for t, txt in (
        (6, "#C C lifts a pot"), (15, "#C C slices onion"))]
    ann.narrations["v-cook"] = [pass1, pass2]
    return ann


def _build(period: str = "padded") -> dict[str, list[dict]]:
    """The 8 X-LeBench subtasks' items on `LOG`, their periods padded (the default) or the
    records' own (``record``: the paper's)."""
    ann = _annotations()
    out = {}
    for name in PARAMS:
        recipe = load_recipe(name)
        ctx = Context(name, recipe.task, LOG, VIDEOS, ann, random.Random(7), offline_aggregate)
        out[name] = recipe.build(ctx, recipe.params({**PARAMS[name], "period": period})).items
    return out


def test_golden_items() -> None:
    built = _build()
    if os.environ.get("XLEBENCH_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n")
    assert built == json.loads(GOLDEN.read_text()), "set XLEBENCH_UPDATE_GOLDEN=1 to review"


def test_remapping_follows_the_authors_rule() -> None:
    obj = _build("record")["object_retrieval"][0]
    # segment start on the day + language query video seconds, offsets kept (no flooring)
    assert obj["answer"]["spans"] == [[27000 + 12.021, 27000 + 19.5]]
    assert obj["answer"]["text"] == "[07:30:12 - 07:30:19]"
    assert obj["query"] == ("Where is the pot in the record provided for the 07:30 - 07:40 "
                            "time period?")
    assert obj["provenance"]["annotation_ids"] == ["ann-1"]
    moment = _build()["moment_retrieval"][0]
    assert moment["query"].startswith("When did I (converse / interact with someone) in the")
    assert moment["answer"]["spans"] == [[50410.0, 50440.0], [50500.0, 50530.0]]


def test_padded_periods_hold_their_records_on_whole_minutes_and_offsets_follow() -> None:
    """Every padded period holds its records and no other, starts and ends on whole minutes
    here (the free time around each record holds some), and a counting window counted from
    the printed start lands on the window the record's own period names."""
    padded, record = _build(), _build("record")
    segs = LOG["segments"]
    for sub in PARAMS:
        for it, paper in zip(padded[sub], record[sub], strict=True):
            lo, hi = it["period"]["start_s"], it["period"]["end_s"]
            held = [s for s in segs if lo <= s["start_s"] and s["end_s"] <= hi]
            assert held and all(s in held or s["end_s"] <= lo or s["start_s"] >= hi
                                for s in segs), sub
            assert lo % 60 == 0 and hi % 60 == 0, sub
            assert (lo, hi) != (paper["period"]["start_s"], paper["period"]["end_s"]), sub
    for it, paper in zip(padded["action_counting"], record["action_counting"], strict=True):
        (a, b), (pa, pb) = (counting_window(x["query"]) for x in (it, paper))
        assert (it["period"]["start_s"] + a, it["period"]["start_s"] + b) == \
            (paper["period"]["start_s"] + pa, paper["period"]["start_s"] + pb)


def test_counting_uses_one_pass_never_both() -> None:
    # pass 1 in [0, 42): t = 5, 12, 19, 26, 33, 40 -> one full cycle of six narrations
    counts, which = count_actions(_annotations().narrations["v-cook"], 0, 42)
    assert which == 0 and counts == {"pick up pot": 2, "cut onion": 2, "stir soup": 1}
    counts, which = count_actions(_annotations().narrations["v-cook"], 0, 10)
    assert which == 0 and counts == {"pick up pot": 1}, "ties keep the first pass"
    assert action_of("#O man X opens the door") is None
    assert action_of("#C C picks up a pot #unsure") is None


def test_periods_and_ordering() -> None:
    built = _build()
    parts = [it["part"] for it in built["multi_summary"]]
    assert parts == ["morning", "afternoon", "evening"]
    order = built["summary_ordering"][0]
    shown = [s.split(": ", 1)[1].split(" Summary")[0].strip() for s in
             order["query"].split("Summary ")[1:]]
    truth = [VIDEOS[s["video_uid"]].clip_summaries[0].text for s in LOG["segments"]]
    assert [shown[i] for i in order["answer"]["order"]] == truth


def test_the_authors_library_paired_with_annotations_yields_every_subtask(tmp_path) -> None:
    """library=xlebench_release alone gives summary items only; with
    library.annotations_root (a local Ego4D download) all 8 subtasks come out."""
    from tests.conftest import FAST, run_inprocess
    from xlebench.library.synthetic import SyntheticSpec, generate_corpus

    corpus = tmp_path / "ego4d"
    generate_corpus(SyntheticSpec(n_videos=80), corpus)
    args = [*[a for a in FAST if not a.startswith(("library.", "stages="))],
            "library=xlebench_release", f"library.path={corpus / 'video_info.json'}",
            "stages=[library,persona,plan,simulate,annotate]", "render=none",
            "annotate.min_duration_s=1.0",
            # the authors' library file has no clip summaries: ordering shows the day's
            # library summaries, printing the single-summary answers; kept here (the paper's)
            "annotate.printed_answers=keep", "tasks.summary_ordering.across=day"]
    ran = run_inprocess(tmp_path, *args, f"library.annotations_root={corpus}", "name=paired")
    assert ran.rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "paired" / "annotations"
    counts = {p.stem: len(p.read_text().splitlines()) for p in bench.glob("*.jsonl")}
    assert len(counts) == 8 and all(counts.values()), counts
    ran = run_inprocess(tmp_path, *args, f"library.annotations_root={tmp_path}", "name=bad")
    assert ran.rc == 2 and "no v2/annotations/ folder" in ran.text


def test_an_aggregated_summary_names_what_wrote_it() -> None:
    """Multi-video and holistic references say whether they were joined offline or written
    by a model, and then which model and prompt (MultiHop-EgoQA's provenance of LLM-written
    answers)."""
    from types import SimpleNamespace

    from xlebench.tasks.language.aggregate import LLMAggregator

    class Written(LLMAggregator):  # the model's reply without a server
        def __call__(self, summaries, scope):
            return " ".join(summaries)

    offline = _build()
    assert {it["provenance"]["aggregator"]["kind"] for sub in ("multi_summary",
            "holistic_summary") for it in offline[sub]} == {"offline"}
    model = Written(SimpleNamespace(settings=SimpleNamespace(model="openai/gpt-4o-mini")))
    for name in ("multi_summary", "holistic_summary"):
        recipe = load_recipe(name)
        ctx = Context(name, recipe.task, LOG, VIDEOS, _annotations(), random.Random(7), model)
        items = recipe.build(ctx, recipe.params(PARAMS[name])).items
        assert items and all(it["provenance"]["aggregator"] == {
            "kind": "llm", "model": "openai/gpt-4o-mini", "prompt": "tasks/aggregate.v2"}
            for it in items)


def test_ordering_across_one_record_orders_its_clips() -> None:
    """``across=record``: the clips of one record, shuffled; the answer is the order they
    happen in, the full-information oracle re-derives it from the library, and a clip saying
    what another says, or printing the library summary, is not shown."""
    clips = (ClipSummary(0.0, 150.0, "C washes the pot at the sink."),
             ClipSummary(150.0, 300.0, "C chops an onion on the board."),
             ClipSummary(300.0, 450.0, "C chops an onion on the board."),
             ClipSummary(450.0, 600.5, "C cooks pasta in the kitchen."),
             ClipSummary(450.0, 600.5, "C stirs the sauce on the stove."))
    videos = {**VIDEOS, "v-cook": LibraryVideo(
        "v-cook", 600.5, "UK", "bristol", ("Cooking",), "daytime", "indoor",
        "C cooks pasta in the kitchen.", clips)}
    recipe = load_recipe("summary_ordering")
    ctx = Context("summary_ordering", recipe.task, LOG, videos, _annotations(),
                  random.Random(3), offline_aggregate)
    [item] = recipe.build(ctx, recipe.params({"min_summaries": 3, "across": "record"})).items
    shown = [s.split(": ", 1)[1].split(" Summary")[0].strip() for s in
             item["query"].split("Summary ")[1:]]
    assert [shown[i] for i in item["answer"]["order"]] == [
        "C washes the pot at the sink.", "C chops an onion on the board.",
        "C stirs the sauce on the stove."]
    assert "07:" in item["query"] and item["provenance"]["across"] == "record"
    assert recipe.oracle(ctx, recipe.params({"across": "record"}), item) == \
        item["answer"]["text"]
    few = recipe.build(ctx, recipe.params({"min_summaries": 4, "across": "record"}))
    assert not few.items and sum(few.stats.values()) == 1


def test_ordering_across_part_shows_the_records_nearest_together() -> None:
    """``across=part`` (the default): the ``min_summaries`` records in a row whose span is
    shortest — here the afternoon walk and the evening read, not the morning's cooking."""
    recipe = load_recipe("summary_ordering")
    ctx = Context("summary_ordering", recipe.task, LOG, VIDEOS, _annotations(),
                  random.Random(7), offline_aggregate)
    [item] = recipe.build(ctx, recipe.params({"min_summaries": 2})).items
    assert item["provenance"]["annotation_ids"] == ["v-walk", "v-read"]
    assert recipe.oracle(ctx, recipe.params({}), item) == item["answer"]["text"]
    assert item["period"]["start_s"] <= 50400 and item["period"]["end_s"] >= 72420
    assert item["period"]["start_s"] > 27601
