"""The source is the unit (issue 41): life logs reuse library videos, so one annotation stands
behind items of many logs. Compiled through the real CLI on a small corpus where that happens,
the paper's repetition (``annotate.repeat_sources=true``) ships the same source several times
and a reader who remembers another log's answer is right; by default each source is asked
once, the repeats are counted, and what a submitter reads holds no answer."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import FAST, run_cli
from xlebench.commands.score import score_folder
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.provenance import owners, source_key
from xlebench.eval.scorers import ScoreSettings
from xlebench.export.questions import FIELDS, answer_key, question_id, video_name
from xlebench.stages.annotate import REPEATED
from xlebench.tasks.recipe.registry import load_recipe

SUBTASKS = ("moment_retrieval", "single_summary", "action_counting")
# printed_answers=keep: counting names a record's actions, which its summary answers, so by
# default one of the two sides is dropped per life log; here only the repeats are measured
ARGS = [*FAST, "stages=[annotate]", f"tasks=[{','.join(SUBTASKS)}]",
        "library.nlq_fraction=0.4", "library.moments_fraction=0.4",
        "annotate.printed_answers=keep"]


def _items(bench: Path) -> dict[str, list[dict]]:
    return {sub: [json.loads(x) for x in (bench / "annotations" / f"{sub}.jsonl")
                  .read_text().splitlines()] for sub in SUBTASKS}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("sources")  # one outputs folder: the logs compiled once
    run_cli(out, *ARGS, "annotate.repeat_sources=true", "name=repeat")
    run_cli(out, *ARGS, "name=once", "stages=[annotate,export]", "export.formats=[questions]")
    return {"repeat": out / "benchmarks" / "repeat", "once": out / "benchmarks" / "once"}


def test_the_paper_repetition_ships_one_source_in_several_logs(compiled) -> None:
    items = _items(compiled["repeat"])
    for sub in SUBTASKS:
        keys = Counter(source_key(it) for it in items[sub])
        assert max(keys.values()) > 1, f"{sub}: the corpus is built so that logs share sources"
        repeated = [it for it in items[sub] if keys[source_key(it)] > 1]
        assert len({it["lifelog_id"] for it in repeated}) > 1


def test_each_source_is_asked_once_and_the_repeats_are_counted(compiled) -> None:
    once, repeat = _items(compiled["once"]), _items(compiled["repeat"])
    skipped = json.loads((compiled["once"] / "stats" / "tasks.json").read_text())["skipped"]
    for sub in SUBTASKS:
        keys = Counter(source_key(it) for it in once[sub])
        assert max(keys.values()) == 1, sub
        assert keys.keys() == {source_key(it) for it in repeat[sub]}, "no source is lost"
        assert skipped[sub][REPEATED] == len(repeat[sub]) - len(once[sub])
        assert all(it["source"]["videos"] and it["source"]["annotations"] for it in once[sub])


def test_which_log_keeps_a_source_does_not_depend_on_order() -> None:
    items = [{"item_id": f"log{k}-x-000", "lifelog_id": f"log{k}", "query": "Q?", "evidence": [
        {"video_uid": "v1"}], "provenance": {"annotation_ids": ["a1"]}} for k in range(6)]
    assert owners(items, 0) == owners(list(reversed(items)), 0)
    assert len(owners(items, 0)) == 1


def test_remembering_other_logs_answers_beats_nothing_once_sources_are_unique(compiled
                                                                              ) -> None:
    """Duration memory (the reference of the other item whose record is as long) on the
    compiled single summaries: asked once and folded by source video, the remembered answer
    is (almost) never the item's own reference."""
    recipes = {"single_summary": load_recipe("single_summary")}
    s = ScoreSettings(bertscore=False)
    items = _items(compiled["once"])["single_summary"]
    rows = panel_rows(items, recipes, s, seed=0, draws=1).rows["single_summary"]
    exact = sum(r["response"] == it["answer"]["text"]
                for it, r in zip(items, rows["duration_memory"], strict=True))
    assert exact <= len(items) * 0.1, "a summary recurs only where two videos share one"


def test_the_questions_view_holds_no_answer(compiled, tmp_path: Path) -> None:
    """Query, options, period and video under opaque ids: no answer, no life-log id (it
    spells the persona); predictions by question id score like predictions by item id."""
    bench = compiled["once"]
    items = _items(bench)
    key = answer_key(json.loads(x) for p in (bench / "annotations").glob("*.jsonl")
                     for x in p.read_text().splitlines())
    for sub in SUBTASKS:
        rows = [json.loads(x) for x in (bench / "export" / "questions" / f"{sub}.jsonl")
                .read_text().splitlines()]
        assert {r["question_id"] for r in rows} == {question_id(it["item_id"], key)
                                                    for it in items[sub]}
        for r, it in zip(rows, sorted(items[sub], key=lambda i: question_id(i["item_id"], key)),
                         strict=True):
            assert set(r) == set(FIELDS)
            text = json.dumps(r)
            assert it["lifelog_id"] not in text and it["answer"]["text"] not in text
            assert r["video"] is None or r["video"] == \
                f"videos/{video_name(it['lifelog_id'], key)}"
            # item ids are made of public parts: an unkeyed hash of one would be undone by
            # trying them all
            assert r["question_id"] != "q-" + hashlib.sha256(
                f"xlebench-q:{it['item_id']}".encode()).hexdigest()[:16]
            assert question_id(it["item_id"], answer_key([])) != r["question_id"]
    # a submitter answers by question id; scoring maps it back to the item
    preds = tmp_path / "preds.jsonl"
    every = [it for sub in SUBTASKS for it in items[sub]]
    preds.write_text("".join(json.dumps({"item_id": question_id(it["item_id"], key),
                                         "response": it["answer"]["text"]}) + "\n"
                             for it in every))
    table = score_folder(bench, preds, bertscore=False, n_boot=0)["table"]
    assert table["rows"]["action_counting"]["all"]["mean"] == 1.0
