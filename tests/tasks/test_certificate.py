"""Temporal certificates: the exact rule, and what they say about X-LeBench's own items."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_inprocess
from xlebench.config.schema import CertificateConfig
from xlebench.stages.annotate import REPEATED
from xlebench.tasks.screening.certificate import certificate, merge

C = CertificateConfig()


def _item(spans=(), evidence=()) -> dict:
    return {"answer": {"spans": [list(s) for s in spans]}, "evidence": list(evidence)}


def test_the_rule_by_hand() -> None:
    assert certificate(_item([[5, 5]]), C)["seconds"] == 0.1
    assert certificate(_item([[10, 20], [24, 30]]), C) == {
        "seconds": 20.0, "n_subclips": 1, "source": "answer_spans", "upper_bound": False}
    assert certificate(_item([[10, 20], [25, 30]]), C)["seconds"] == 15.0, "gap 5: not merged"
    assert merge([[30, 40], [0, 10]], 0.1, 5.0) == [(0.0, 10.0), (30.0, 40.0)]


def test_evidence_windows_are_upper_bounds_merged_per_video() -> None:
    ev = [{"video_uid": "a", "source_start_s": 0, "source_end_s": 60},
          {"video_uid": "b", "source_start_s": 58, "source_end_s": 100},
          {"video_uid": "a", "source_start_s": 62, "source_end_s": 70}]
    cert = certificate(_item(evidence=ev), C)
    assert cert == {"seconds": 112.0, "n_subclips": 2, "source": "evidence",
                    "upper_bound": True}


ARGS = ("library.n_videos=400", "matcher/embedder=hashing", "persona.locations=[Japan,UK,Italy]",
        "persona.mbti=[INTJ,ESFP,INFP,ENTJ]", "stages=[annotate]", "render=none")


def test_retrieval_items_are_short_term_and_a_filter_keeps_only_long_ones(tmp_path: Path
                                                                           ) -> None:
    assert run_inprocess(tmp_path, *ARGS).rc == 0
    stats = json.loads((tmp_path / "benchmarks" / "demo" / "stats" / "tasks.json").read_text())
    med = {s: v["all"]["median_s"] for s, v in stats["certificates"].items()}
    # moments and counting windows both sit between a retrieval answer and a whole record;
    # which of the two is longer depends on the videos matched
    assert med["object_retrieval"] < min(med["moment_retrieval"], med["action_counting"])
    assert max(med["moment_retrieval"], med["action_counting"]) < med["single_summary"] \
        < med["multi_summary"] < med["holistic_summary"]
    assert med["object_retrieval"] < 30 and stats["certificates"]["object_retrieval"][
        "all"]["share_ge_30s"] == 0.0
    ran = run_inprocess(tmp_path, *ARGS, "name=long_term",
                        "tasks.object_retrieval.filters=[{kind: certificate, min_s: 30}]")
    assert ran.rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "long_term"
    assert (bench / "annotations" / "object_retrieval.jsonl").read_text() == ""
    dropped = json.loads((bench / "stats" / "tasks.json").read_text())["skipped"][
        "object_retrieval"]["dropped by the certificate filter"]
    # the filter sees every log's items, before a source asked in several logs is kept once
    assert dropped == sum(stats["items"]["object_retrieval"].get(c, 0)
                          for c in ("short", "medium", "long")) + stats["skipped"][
        "object_retrieval"].get(REPEATED, 0)


def test_an_unknown_filter_is_refused_before_any_work(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *ARGS, "tasks.object_retrieval.filters=[{kind: blnd}]")
    assert ran.rc == 2 and "kind 'blnd' is not a filter" in ran.text
