"""The Hugging Face export: one explicit schema whatever the answers look like, rows that turn
back into the exact items, and the EgoSchema layout of multiple-choice items."""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.tasks.test_recipes import LOG, _build
from xlebench.export.egoschema import NAMESPACE, egoschema_files
from xlebench.export.hf import ITEMS, items_table, read_items, write_table


def _mcq() -> dict:
    item = _build()["single_summary"][0]
    options = ["a", "b", "c", "d", "e"]
    return {**item, "item_id": "x-mcq-000", "subtask": "summary_mcq",
            "query": "What does C do? " + " ".join(f"Option {k}: {o}"
                                                   for k, o in enumerate(options)),
            "provenance": {**item["provenance"], "question": "What does C do?"},
            "answer": {**item["answer"], "options": options, "label": 3},
            "source_item": item["item_id"]}


def _event() -> dict:
    item = _build()["action_counting"][0]
    return {**item, "item_id": "x-ev-000", "subtask": "event_srl",
            "answer": {**item["answer"], "events": [{"verb": "cut", "roles": {"Arg0": "C"}}]},
            "period": {"start_s": 27000, "end_s": 27601}}


def test_every_item_kind_round_trips_through_one_schema(tmp_path: Path) -> None:
    items = [it for v in _build().values() for it in v] + [_mcq(), _event()]
    write_table(items_table(items), tmp_path / "all.parquet")
    assert pq.read_schema(tmp_path / "all.parquet").remove_metadata().equals(ITEMS)
    assert read_items(tmp_path / "all.parquet") == items
    counting = items_table([it for it in items if it["subtask"] == "action_counting"])
    assert counting.column("answer_counts").type == ITEMS.field("answer_counts").type
    assert counting.column("period_start_s").type == ITEMS.field("period_start_s").type


def test_same_items_same_bytes(tmp_path: Path) -> None:
    items = [it for v in _build().values() for it in v]
    write_table(items_table(items), tmp_path / "a.parquet")
    write_table(items_table(items), tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_egoschema_layout_holds_only_multiple_choice_items() -> None:
    mcq = _mcq()
    files = egoschema_files([mcq, _event()], {LOG["lifelog_id"]: LOG})
    q_uid = str(uuid.uuid5(NAMESPACE, mcq["item_id"]))
    # the options in their own fields only, as EgoSchema's questions.json has them
    assert files["questions.json"] == [{"q_uid": q_uid, "question": "What does C do?",
                                        "option 0": "a", "option 1": "b", "option 2": "c",
                                        "option 3": "d", "option 4": "e"}]
    assert files["answers.json"] == {q_uid: 3}
    ids = files["uid_to_lifelog.json"][q_uid]
    assert ids["item_id"] == "x-mcq-000" and ids["period_s"] == [
        mcq["period"]["start_s"], mcq["period"]["end_s"]]
    # the first record's whole video: from 0 to its duration in the stitched video
    assert (ids["starting_sec"], ids["ending_sec"]) == (0.0, 600.5)
    ev = mcq["evidence"][0]
    assert (ids["ego4d_video_uid"], ids["ego4d_start_sec"], ids["ego4d_end_sec"]) == (
        ev["video_uid"], ev["source_start_s"], ev["source_end_s"])
    # evidence in two spans of its first video and one of another: the first video's whole span
    from xlebench.export.egoschema import ego4d_source
    spans = [{"video_uid": "u1", "source_start_s": 40.0, "source_end_s": 50.0},
             {"video_uid": "u2", "source_start_s": 0.0, "source_end_s": 90.0},
             {"video_uid": "u1", "source_start_s": 10.0, "source_end_s": 20.0}]
    assert ego4d_source(spans) == {"ego4d_video_uid": "u1", "ego4d_start_sec": 10.0,
                                   "ego4d_end_sec": 50.0}
    del mcq["provenance"]["question"]  # an imported item: cut before its options
    assert egoschema_files([mcq], {})["questions.json"][0]["question"] == "What does C do?"
    json.dumps(files)  # plain JSON


@pytest.mark.slow  # a minute or more of CLI compiles: kept out of the default suite
def test_two_benchmarks_load_by_folder_in_a_row(tmp_path: Path, monkeypatch, caplog) -> None:
    """`datasets` caches a local folder under its dataset name: each export names itself
    (the card's dataset_info), so a second benchmark never reads the first one's rows; the
    card's features block types every column; empty subtasks are not exported."""
    datasets = pytest.importorskip("datasets")
    from tests.conftest import FAST, run_cli

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    args = [*FAST, "stages=[library,persona,plan,simulate,annotate,export]", "render=none",
            "export.formats=[hf]", "tasks=[single_summary,action_counting,egoschema_mcq]"]
    rows = {}
    for seed, out in ((0, tmp_path / "a"), (1, tmp_path / "b")):
        run_cli(out, *args, f"seed={seed}", "persona.mbti=[INTJ]" if seed else
                "persona.mbti=[INTJ,ESFP,INFP]")
        hf = out / "benchmarks" / "demo" / "export" / "hf"
        ids = [json.loads(x)["item_id"] for x in (hf.parents[1] / "annotations" /
               "single_summary.jsonl").read_text().splitlines()]
        with caplog.at_level(logging.WARNING):
            ds = datasets.load_dataset(str(hf), "single_summary")["test"]
        assert not [r for r in caplog.records if "dataset_info" in r.getMessage()], \
            "the card's splits are complete (num_bytes, num_examples)"
        assert sorted(ds["item_id"]) == sorted(ids), "another benchmark's rows"
        rows[seed] = len(ds)
        card = (hf / "README.md").read_text()
        assert "dataset_info:" in card and "features:" in card and "dataset_name: xlebench_demo_" in card
        assert "synthetic library" in card and "stitched from Ego4D videos" not in card
        assert ds.features["answer_spans"].feature.feature.dtype == "float64"
    assert rows[0] != rows[1]


@pytest.mark.ffmpeg
def test_the_demos_lmms_eval_export_asks_every_subtask(tmp_path: Path) -> None:
    """The demo renders two life logs and lmms-eval serves only their items: the annotate
    stage keeps one item of every subtask in them where it can (its sources and its side of
    each conflicting pair), so the demo's lmms-eval tasks are all eight, each with items."""
    from tests.conftest import run_cli

    run_cli(tmp_path, "progress=false", "export.formats=[hf,lmms_eval]",
            "stages=[library,persona,plan,simulate,render,annotate,export]")
    lmms = tmp_path / "benchmarks" / "demo" / "export" / "lmms_eval"
    subtasks = ("object_retrieval", "people_retrieval", "moment_retrieval", "single_summary",
                "multi_summary", "holistic_summary", "action_counting", "summary_ordering")
    assert sorted(p.stem for p in (lmms / "data").glob("*.parquet")) == sorted(subtasks)
    assert {p.name for p in lmms.glob("xlebench_*") if p.is_dir()} == \
        {f"xlebench_{s}" for s in subtasks}
