"""The report stage through the real CLI: every page there, counts that match the benchmark,
the same bytes on a rebuild; and the span-to-video mapping."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.conftest import FAST, run_inprocess, tree_bytes
from xlebench.report.pages import out_seconds

ARGS = [*FAST, "stages=[library,persona,plan,simulate,annotate,evaluate,report]",
        "render=none", "eval.bertscore=false", "eval.bootstrap=20"]


def test_pages_match_the_benchmark_and_rebuild_identically(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *ARGS)
    assert ran.rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "demo"
    report = bench / "report"
    logs = sorted(p.stem for p in (bench / "lifelogs").glob("*.json"))
    index = (report / "index.html").read_text()
    assert all(f'href="lifelogs/{lid}.html"' in index for lid in logs)
    assert len(re.findall(r"<tr><td data-sort", index)) == len(logs)
    for key in ("durations", "reuse", "scenarios", "certificates"):
        svg = (report / "plots" / f"{key}.svg").read_text()
        assert svg.startswith("<?xml") and "<dc:date>" not in svg
    items = [json.loads(x) for p in (bench / "annotations").glob("*.jsonl")
             for x in p.read_text().splitlines()]
    lid = logs[0]
    log = json.loads((bench / "lifelogs" / f"{lid}.json").read_text())
    page = (report / "lifelogs" / f"{lid}.html").read_text()
    assert page.count('class="seg') == len(log["segments"])
    assert page.count("<tr data-item=") == sum(it["lifelog_id"] == lid for it in items)
    assert "Not rendered" in page and 'href="../report.css"' in page
    results = (report / "results.html").read_text()
    assert "oracle_text_retrieval" in results and "ORACLE" in results
    data = json.loads((report / "results-items.js").read_text().split(".concat(", 1)[1]
                      .rstrip().rstrip(";").rstrip(")"))
    assert sum(r[0] == "oracle_text_retrieval" for r in data) == len(items)
    assert "http" not in re.sub(r'xmlns[:a-z]*="[^"]*"|"http://www.w3.org[^"]*"', "",
                                index + page + results)  # no CDN, no network
    before = tree_bytes(report)
    assert run_inprocess(tmp_path, *ARGS, "force=[report]").rc == 0
    assert tree_bytes(report) == before


def test_day_clock_to_video_seconds() -> None:
    mapping = [{"out_start_s": 0.0, "out_end_s": 100.0, "virtual_start_s": 1000.0},
               {"out_start_s": 100.0, "out_end_s": 160.0, "virtual_start_s": 5000.0}]
    assert out_seconds(mapping, 1050.0) == 50.0
    assert out_seconds(mapping, 5010.5) == 110.5
    assert out_seconds(mapping, 3000.0) is None  # between records: not in the video


def test_item_scripts_stay_under_a_megabyte_however_long_the_replies() -> None:
    """Seven systems, a 50 MB reply among them: no report file passes 1 MB, every row kept."""
    from xlebench.report.pages import SHOWN_CHARS, results_items_scripts

    items = {f"i{k}": {"query": "q" * 300, "answer": {"text": "a" * 300}} for k in range(900)}
    rows = [{"item_id": f"i{k}", "response": "r" * 400, "scores": {"m": 0.5}, "primary": "m",
             "status": "answered", "subtask": "s"} for k in range(900)]
    rows[0] = {**rows[0], "response": "x" * 50_000_000}
    scripts = results_items_scripts({f"sys{k}": rows for k in range(7)}, items)
    assert len(scripts) > 1 and all(len(s.encode()) < 1_000_000 for s in scripts)
    data = [r for s in scripts for r in json.loads(s.split(".concat(", 1)[1].rstrip()
                                                   .rstrip(";").rstrip(")"))]
    assert len(data) == 7 * 900 and len(data[0][4]) < SHOWN_CHARS + 40
