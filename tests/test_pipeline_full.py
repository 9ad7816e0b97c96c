"""The whole pipeline through the real CLI: library -> ... -> annotate -> evaluate, then a
predictions file holding the reference answers scores perfectly, and a bad one fails clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FAST, run_cli

FULL = [*FAST, "stages=[library,persona,plan,simulate,render,annotate,evaluate,export]",
        "render=none", "simulation=paper", "eval.bootstrap=50", "eval.bertscore=false",
        "library.n_videos=120", "simulation.start_resolution_s=60",
        "simulation.segment_end=floor"]
SUBTASKS = ("object_retrieval", "people_retrieval", "moment_retrieval", "single_summary",
            "multi_summary", "holistic_summary", "action_counting", "summary_ordering")


def _check_exports(bench: Path, items: list[dict]) -> None:
    """Every export of the compiled benchmark reads back as its items: the Hugging Face parquet
    files through `datasets`, the release files through the importer (the paper's clock:
    whole-minute starts, so release readers get the exact times)."""
    import datasets

    from xlebench.export.hf import row_to_item
    from xlebench.export.release_import import import_release

    by_id = {it["item_id"]: it for it in items}
    hf = bench / "export" / "hf"
    for sub in SUBTASKS:
        ds = datasets.load_dataset("parquet", data_files={"test": str(
            hf / "data" / f"{sub}.parquet")}, cache_dir=str(bench.parent / ".hf"))["test"]
        assert [row_to_item(r) for r in ds] == [by_id[r["item_id"]] for r in ds]
    schemas = {str(datasets.load_dataset("parquet", data_files=str(p), split="train",
                                         cache_dir=str(bench.parent / ".hf")).features)
               for p in (hf / "data").glob("*.parquet")}
    assert len(schemas) == 1, "every subtask file must share one schema"
    card = (hf / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: action_counting" in card
    assert "No video is redistributed" in card and "xlebench-rebuild" in card

    files = sorted((bench / "export" / "xlebench").glob("simulation_*_annotation.json"))
    assert len(files) == 18 and all(len(f.name.split("_")[1]) == 8 for f in files)
    for f in files:
        for seg in json.loads(f.read_text())["simulations"]:
            assert seg["start_sec"] % 60 == 0
    imported = import_release(bench / "export" / "xlebench")
    scored = ("item_id", "task", "subtask", "lifelog_id", "category", "query", "answer",
              "period", "evidence")
    back = {it["item_id"]: {k: it[k] for k in scored}
            for its in imported.items.values() for it in its}
    assert back == {i: {k: it[k] for k in scored} for i, it in by_id.items()}
    assert not imported.skipped


@pytest.mark.slow  # the whole pipeline through the CLI, then every system (40 s): the slow tier CI runs
def test_full_pipeline_then_gold_predictions(tmp_path: Path) -> None:
    run_cli(tmp_path, *FULL)
    bench = tmp_path / "benchmarks" / "demo"
    items = []
    for sub in SUBTASKS:
        rows = [json.loads(x) for x in (bench / "annotations" / f"{sub}.jsonl").read_text()
                .splitlines()]
        assert rows, f"no {sub} items"
        items += rows
    _check_exports(bench, items)
    # A life log is encoded once: the simulate unit's record is its published file, linked.
    units = sorted((tmp_path / "cache" / "simulate").glob("*/units/*"))
    assert units and all((u / "record.json").samefile(u / "lifelog.json") for u in units)
    table = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json")
                       .read_text())
    cells = {s: c["all"] for s, c in table["rows"].items() if s in SUBTASKS}
    # The oracle sits between chance and perfect on every subtask it answers with enough items
    # to tell (an ordering query shows what the log's summaries answer: on 18 logs, few of
    # either kind stay beside the other).
    # (ordering three records of one part of the day, the narrations' reader may place them
    # all: perfect is allowed there)
    assert all(c["mean"] is not None and 0 < c["mean"] < 1 + (s == "summary_ordering")
               for s, c in cells.items() if s != "people_retrieval" and c["n"] >= 5), cells
    assert all(c["floor"]["mean"] < c["mean"] for s, c in cells.items()
               if s not in ("people_retrieval", "moment_retrieval", "holistic_summary")), cells
    # A day's summary is remembered from the same persona's day at another length (the
    # paper's grid: three lengths of one day), which can reach the offline oracle baseline
    # here; the table prints that floor beside it, on the same items, named.
    holistic = cells["holistic_summary"]
    assert holistic["floor"]["member"] and holistic["floor"]["n"] == holistic["n"]
    md = (bench / "results" / "oracle_text_retrieval" / "table.md").read_text()
    assert md.startswith("### oracle_text_retrieval — ORACLE")
    assert "| object_retrieval | R@5,0.3 |" in md and "ORACLE: this system reads" in md

    gold = tmp_path / "gold.jsonl"
    lines = [json.dumps({"item_id": it["item_id"], "response": it["answer"]["text"]}) + "\n"
             for it in items]
    gold.write_text("".join(lines))
    run_cli(tmp_path, *FULL, "stages=[evaluate]", "eval.systems=[]",
            f"eval.predictions={gold}")
    perfect = json.loads((bench / "results" / "predictions-gold" / "table.json").read_text())
    for sub in SUBTASKS:
        cell = perfect["rows"][sub]["all"]
        assert cell["mean"] == 1.0 and cell["unparseable"] == 0, (sub, cell)

    # Half the gold answers: refused, then worth about half with eval.allow_partial=true.
    half = tmp_path / "half.jsonl"
    half.write_text("".join(lines[::2]))
    refused = run_cli(tmp_path, *FULL, "stages=[evaluate]", "eval.systems=[]",
                      f"eval.predictions={half}", check=False)
    assert refused.returncode == 2 and "half.jsonl: item_id: covers" in refused.stderr
    assert "eval.allow_partial=true" in refused.stderr
    run_cli(tmp_path, *FULL, "stages=[evaluate]", "eval.systems=[]",
            f"eval.predictions={half}", "eval.allow_partial=true")
    scored = json.loads((bench / "results" / "predictions-half" / "table.json").read_text())
    for sub in ("object_retrieval", "single_summary", "summary_ordering"):
        cell = scored["rows"][sub]["all"]
        assert cell["mean"] <= 0.6 and cell["missing"] > 0, (sub, cell)
    assert "answering" in (bench / "results" / "predictions-half" / "table.md").read_text()


def test_bad_predictions_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "x", "response": "y"}\n{"item_id": 3}\n')
    proc = run_cli(tmp_path, *FULL, "eval.systems=[]", f"eval.predictions={bad}", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = proc.stdout + proc.stderr
    assert "bad.jsonl" in text and "line 2" in text and "item_id" in text
