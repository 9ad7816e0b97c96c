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
    table = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json")
                       .read_text())
    cells = {s: c["all"] for s, c in table["rows"].items() if s in SUBTASKS}
    assert all(c["mean"] is not None and 0 < c["mean"] < 1 for s, c in cells.items()
               if s != "people_retrieval"), cells
    # The oracle sits between chance and perfect on every subtask it answers.
    assert all(c["floor"]["mean"] < c["mean"] for s, c in cells.items()
               if s not in ("people_retrieval", "moment_retrieval")), cells
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
