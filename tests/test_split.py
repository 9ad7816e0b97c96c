"""A held-out test split (annotate.heldout): whole life logs whose answers stay out of every
export but the questions view, scored apart with eval.split, beside the whole benchmark's
results rather than over them."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from tests.conftest import FAST, run_inprocess
from xlebench.split import log_split, split_logs

ARGS = [*FAST, "stages=[library,persona,plan,simulate,annotate,evaluate,export]",
        "render=none", "tasks=[single_summary,action_counting]", "eval.bertscore=false",
        "export.formats=[questions,hf,xlebench]", "annotate.heldout=0.5", "name=held"]


def _items(bench: Path) -> list[dict]:
    return [json.loads(x) for p in sorted((bench / "annotations").glob("*.jsonl"))
            for x in p.read_text().splitlines()]


def test_the_split_is_seeded_by_life_log() -> None:
    ids = [f"log{k}" for k in range(400)]
    test = split_logs(ids, 0, 0.3, "test")
    assert 0.25 < len(test) / len(ids) < 0.35 and test == split_logs(ids, 0, 0.3, "test")
    assert set(test) | set(split_logs(ids, 0, 0.3, "dev")) == set(ids)
    assert set(test) != set(split_logs(ids, 1, 0.3, "test"))
    assert all(log_split(i, 0, 0.0) == "dev" for i in ids)


def test_test_answers_stay_out_of_every_export_and_the_split_is_scored_apart(
        tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *ARGS)
    assert ran.rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "held"
    items = _items(bench)
    test = {it["item_id"] for it in items if it["split"] == "test"}
    test_logs = {it["lifelog_id"] for it in items if it["split"] == "test"}
    assert test and len(test) < len(items)
    assert all(it["split"] == "test" for it in items if it["lifelog_id"] in test_logs)
    # the questions view: every question, each naming its split
    rows = [json.loads(x) for p in (bench / "export" / "questions").glob("*.jsonl")
            for x in p.read_text().splitlines()]
    assert len(rows) == len(items) and {r["split"] for r in rows} == {"dev", "test"}
    # the exports with answers: the dev logs only, their traces too
    hf = [r for p in (bench / "export" / "hf" / "data").glob("*.parquet")
          for r in pq.read_table(p).to_pylist()]
    assert hf and not test & {r["item_id"] for r in hf}
    traced = {r["lifelog_id"] for r in pq.read_table(
        bench / "export" / "hf" / "lifelogs.parquet").to_pylist()}
    assert traced and not traced & test_logs
    logs = {it["lifelog_id"] for it in items}  # a log the screening left no item has no file
    release = list((bench / "export" / "xlebench").rglob("simulation_*_annotation.json"))
    assert len(release) == len(logs - test_logs), "one release file per dev life log"
    stats = json.loads((bench / "stats" / "tasks.json").read_text())
    assert sum(c["test"] for c in stats["splits"]["items"].values()) == len(test)
    # scored apart: the split's folder beside the whole benchmark's, which stays
    ran = run_inprocess(tmp_path, "benchmark=held", "stages=[evaluate]",
                        "eval.systems=[oracle_text_retrieval]", "eval.split=test")
    assert ran.rc == 0, ran.text[-2000:]
    whole = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json").read_text())
    part = json.loads((bench / "results" / "oracle_text_retrieval@split=test" / "table.json")
                      .read_text())
    n = sum(c["all"]["n"] for s, c in part["rows"].items() if "AVG" not in s)
    assert n == len(test) and sum(c["all"]["n"] for s, c in whole["rows"].items()
                                  if "AVG" not in s) == len(items)


def test_a_split_of_a_benchmark_without_one_is_refused(tmp_path: Path) -> None:
    args = [a for a in ARGS if not a.startswith(("annotate.heldout", "name="))]
    ran = run_inprocess(tmp_path, *args, "eval.split=test", "stages=[evaluate]")
    assert ran.rc == 2 and "annotate.heldout" in ran.text
