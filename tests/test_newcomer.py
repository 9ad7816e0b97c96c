"""A newcomer's first day: the paper command on the authors' library alone (no Ego4D media, no
Ego4D annotations) runs to its report, and says what is empty and why instead of printing
zeros."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_inprocess


@pytest.mark.slow
def test_the_paper_command_runs_without_media_and_says_what_is_empty(
        tmp_path: Path, shared_video_info: Path) -> None:
    ran = run_inprocess(tmp_path, "experiment=paper", "library=xlebench_release",
                        f"library.path={shared_video_info}", "persona.locations=[Japan]",
                        "persona.mbti=[INTJ]", "eval.bootstrap=10", "eval.bertscore=false",
                        "progress=false")
    assert ran.rc == 0, ran.text[-3000:]
    assert "render: no video rendered" in ran.text and "render.media_root" in ran.text
    empty = ("object_retrieval", "people_retrieval", "moment_retrieval", "action_counting")
    for sub in empty:
        line = next(x for x in ran.text.splitlines() if f"{sub}: 0 items" in x)
        assert "library.annotations_root" in line
    bench = tmp_path / "benchmarks" / "paper"
    assert (bench / "report" / "index.html").is_file() and not (bench / "videos").exists()
    exported = {p.stem for p in (bench / "export" / "hf" / "data").glob("*.parquet")}
    # the authors' library has no clip summaries: the ordering query shows the library
    # summaries, printing single-summary answers; settling keeps one of each such pair
    # (counted), and no kept item prints a kept item's answer
    assert {"single_summary", "multi_summary", "holistic_summary"} <= exported
    assert exported <= {"single_summary", "multi_summary", "holistic_summary", "summary_ordering"}
    tasks = json.loads((bench / "stats" / "tasks.json").read_text())
    ordering = tasks["settled"]["summary_ordering"]
    assert ordering["printed"] >= 1 and sum(tasks["skipped"]["summary_ordering"].values()) == (
        ordering["printed"] + ordering["shown"])
    assert not tasks.get("printed_answers"), "no kept item prints another's answer"
    assert not (bench / "export" / "lmms_eval").exists(), "nothing it could serve"
    table = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json").read_text())
    assert not table["rows"] and set(table["not_applicable"]) == exported
    assert "not applicable" in (bench / "results" / "oracle_text_retrieval" / "table.md"
                                ).read_text()
    assert "n/a (no source)" in (bench / "results" / "leaderboard.md").read_text()
