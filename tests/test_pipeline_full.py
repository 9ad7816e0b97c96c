"""The whole pipeline through the real CLI: library -> ... -> annotate -> evaluate, then a
predictions file holding the reference answers scores perfectly, and a bad one fails clearly."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FAST, run_cli

FULL = [*FAST, "stages=[library,persona,plan,simulate,render,annotate,evaluate]",
        "render=none", "simulation=paper", "eval.bootstrap=50", "eval.bertscore=false",
        "library.n_videos=120"]
SUBTASKS = ("object_retrieval", "people_retrieval", "moment_retrieval", "single_summary",
            "multi_summary", "holistic_summary", "action_counting", "summary_ordering")


def test_full_pipeline_then_gold_predictions(tmp_path: Path) -> None:
    run_cli(tmp_path, *FULL)
    bench = tmp_path / "benchmarks" / "demo"
    items = []
    for sub in SUBTASKS:
        rows = [json.loads(x) for x in (bench / "annotations" / f"{sub}.jsonl").read_text()
                .splitlines()]
        assert rows, f"no {sub} items"
        items += rows
    assert len(list((bench / "export" / "xlebench").glob("simulation_*_annotation.json"))) == 18
    table = json.loads((bench / "results" / "text_retrieval" / "table.json").read_text())
    means = {s: c["all"]["mean"] for s, c in table["rows"].items() if s in SUBTASKS}
    assert all(m is not None and 0 < m < 1 for s, m in means.items()
               if s != "people_retrieval"), means
    assert "| object_retrieval | R@5,0.3 |" in (bench / "results" / "text_retrieval" /
                                               "table.md").read_text()

    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"item_id": it["item_id"],
                                        "response": it["answer"]["text"]}) + "\n"
                            for it in items))
    run_cli(tmp_path, *FULL, "stages=[evaluate]", "eval.systems=[]",
            f"eval.predictions={gold}")
    perfect = json.loads((bench / "results" / "predictions-gold" / "table.json").read_text())
    for sub in SUBTASKS:
        cell = perfect["rows"][sub]["all"]
        assert cell["mean"] == 1.0 and cell["failed"] == 0, (sub, cell)


def test_bad_predictions_file_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"item_id": "x", "response": "y"}\n{"item_id": 3}\n')
    proc = run_cli(tmp_path, *FULL, "eval.systems=[]", f"eval.predictions={bad}", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = proc.stdout + proc.stderr
    assert "bad.jsonl" in text and "line 2" in text and "item_id" in text
