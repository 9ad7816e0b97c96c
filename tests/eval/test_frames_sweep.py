"""Neptune's appendix measures: the accuracy-vs-frames curve, the effort score and the
certificate probe, from their arithmetic to the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FAST, run_inprocess
from xlebench.eval.frames_sweep import certificate_probe, effort, frames_summary, sweeps


def test_effort_is_the_last_wrong_count_over_the_first_right_one() -> None:
    right = {2: {"a": False, "b": True, "c": False, "d": False},
             4: {"a": False, "b": True, "c": True, "d": False},
             8: {"a": True, "b": False, "c": True, "d": False}}
    got = effort(right)
    # a: wrong at 2 and 4, right at 8 -> 4/8; b: right at once -> 0; c: 2/4; d: never
    assert got == {"effort": round((0.5 + 0 + 0.5) / 3, 4), "certificate_frames":
                   round((8 + 2 + 4) / 3, 3), "n": 3, "never_right": 1}
    assert sweeps(["end_to_end@m@frames=8", "end_to_end@m@frames=2@split=dev",
                   "end_to_end@m"]) == {"end_to_end@m": {8: "end_to_end@m@frames=8"},
                                        "end_to_end@m@split=dev":
                                        {2: "end_to_end@m@frames=2@split=dev"}}


def _rows(sub: str, right: dict[str, bool]) -> list[dict]:
    return [{"item_id": k, "subtask": sub, "primary": "acc", "scores": {"acc": float(v)}}
            for k, v in right.items()]


def test_curves_effort_and_the_probe_from_tables_and_scores() -> None:
    def table(mean: float) -> dict:
        return {"rows": {"egoschema_mcq": {"all": {"mean": mean, "n": 2, "metric": "acc"}}}}
    tables = {"end_to_end@m@frames=2": table(0.5), "end_to_end@m@frames=4": table(1.0),
              "end_to_end@m": table(0.5), "oracle_certificate_frames@m": table(1.0)}
    scores = {"end_to_end@m@frames=2": _rows("egoschema_mcq", {"x": False, "y": True}),
              "end_to_end@m@frames=4": _rows("egoschema_mcq", {"x": True, "y": True}),
              "end_to_end@m": _rows("egoschema_mcq", {"x": False, "y": True}),
              "oracle_certificate_frames@m": _rows("egoschema_mcq", {"x": True, "y": True})}
    swept = frames_summary(tables, scores)["end_to_end@m"]["egoschema_mcq"]
    assert [swept["curve"][n]["mean"] for n in ("2", "4")] == [0.5, 1.0]
    assert swept["effort"] == 0.25 and swept["never_right"] == 0
    probe = certificate_probe(tables, scores)["m"]["egoschema_mcq"]
    assert probe == {"n": 2, "certificate_acc": 1.0, "all_frames_acc": 0.5,
                     "only_certificate": 1, "only_all_frames": 0}


@pytest.mark.slow  # the whole pipeline through the CLI, twice (25 s): the slow tier CI runs
def test_a_sweep_runs_through_the_cli_into_the_leaderboard_and_report(tmp_path: Path) -> None:
    args = [*FAST, "stages=[library,persona,plan,simulate,annotate,report,evaluate,export]",
            "render=none", "tasks=[neptune_qa,single_summary]", "eval.bertscore=false",
            "eval.bootstrap=10", "eval.frames_sweep=[2,4]",
            "eval.systems=[oracle_text_retrieval,end_to_end,oracle_certificate_frames]"]
    ran = run_inprocess(tmp_path, *args)
    assert ran.rc == 0, ran.text[-3000:]
    bench = tmp_path / "benchmarks" / "demo"
    folders = sorted(p.name for p in (bench / "results").iterdir() if p.is_dir())
    assert folders == ["end_to_end@scripted@frames=2", "end_to_end@scripted@frames=4",
                       "oracle_certificate_frames@scripted@frames=2",
                       "oracle_certificate_frames@scripted@frames=4", "oracle_text_retrieval"]
    board = json.loads((bench / "results" / "leaderboard.json").read_text())
    curve = board["frames_sweep"]["end_to_end@scripted"]["neptune_qa"]
    assert set(curve["curve"]) == {"2", "4"} and "effort" in curve
    assert "single_summary" in board["frames_sweep"]["end_to_end@scripted"]
    assert "effort" not in board["frames_sweep"]["end_to_end@scripted"]["single_summary"]
    md = (bench / "results" / "leaderboard.md").read_text()
    assert "accuracy vs frames (Neptune's Fig. 7) and effort score" in md
    assert "<svg" in (bench / "report" / "results.html").read_text()
    ran = run_inprocess(tmp_path, *args[:-1], "eval.systems=[oracle_text_retrieval]")
    assert ran.rc == 2 and "eval.frames_sweep=[2, 4] needs a system that sees frames" in ran.text


@pytest.mark.parametrize("bad", ["eval.frames_sweep=[0]", "eval.frames_sweep=[two]"])
def test_a_bad_sweep_is_one_line(tmp_path: Path, bad: str) -> None:
    ran = run_inprocess(tmp_path, *FAST, bad)
    assert ran.rc == 2 and "frames_sweep" in ran.text


def test_effort_reads_only_items_every_count_answered() -> None:
    """An item a count did not answer (a failed reply) has no first right count to read."""
    from xlebench.eval.frames_sweep import effort

    got = effort({4: {"a": False, "b": True}, 8: {"a": True}})
    assert got["n"] == 1 and got["effort"] == 0.5 and got["certificate_frames"] == 8
