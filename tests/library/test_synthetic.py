"""The synthetic corpus: deterministic, in the real formats, loadable, realistic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, tree_bytes
from xlebench.library.ego4d_facts import NLQ_TEMPLATES
from xlebench.library.jsonio import load_json
from xlebench.library.sources import Selection, load_ego4d
from xlebench.library.stats import library_stats
from xlebench.library.synthetic import SyntheticSpec, generate_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(SyntheticSpec(seed=3, n_videos=150, quirk_rate=0.05), root)
    return root


def test_same_seed_gives_identical_files_across_processes(tmp_path: Path, corpus: Path) -> None:
    code = ("import sys; from pathlib import Path; from xlebench.library.synthetic import *; "
            "generate_corpus(SyntheticSpec(seed=3, n_videos=150, quirk_rate=0.05), "
            "Path(sys.argv[1]))")
    for hashseed in ("1", "2"):
        subprocess.run([sys.executable, "-c", code, str(tmp_path / hashseed)], cwd=ROOT,
                       check=True, env={"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin"})
    assert tree_bytes(tmp_path / "1") == tree_bytes(tmp_path / "2") == tree_bytes(corpus)


def test_files_follow_the_real_layout(corpus: Path) -> None:
    meta = load_json(corpus / "ego4d.json")
    assert {"date", "version", "videos", "clips"} <= set(meta)
    v = meta["videos"][0]
    assert {"video_uid", "duration_sec", "scenarios", "video_source", "split_em"} <= set(v)
    narr = load_json(corpus / "v2/annotations/narration.json")
    entry = next(iter(narr.values()))
    p = entry.get("narration_pass_1") or entry["narration_pass_2"]
    assert p["narrations"][0]["narration_text"].startswith(("#C C ", "#O "))
    assert p["summaries"][0]["summary_text"].lower().startswith("#summary")
    nlq = load_json(corpus / "v2/annotations/nlq_val.json")
    q = nlq["videos"][0]["clips"][0]["annotations"][0]["language_queries"][0]
    clip = nlq["videos"][0]["clips"][0]
    assert q["video_start_sec"] == pytest.approx(clip["video_start_sec"] + q["clip_start_sec"])
    templates = {q.get("template") for v in nlq["videos"] for c in v["clips"]
                 for a in c["annotations"] for q in a["language_queries"]}
    assert templates - {None} <= set(NLQ_TEMPLATES)
    info = load_json(corpus / "video_info.json")
    assert set(info[0]) == {"video_uid", "video_duration", "video_source", "video_scenarios",
                            "time_period", "main_scene", "consolidated_summary"}


def test_quirks_are_present(corpus: Path) -> None:
    nlq = [q for s in ("train", "val") for v in load_json(corpus / f"v2/annotations/nlq_{s}.json")
           ["videos"] for c in v["clips"] for a in c["annotations"] for q in a["language_queries"]]
    assert any(not q.get("query") for q in nlq)
    assert any(str(q.get("query", "")).startswith("Query Text:") for q in nlq)
    narr = load_json(corpus / "v2/annotations/narration.json")
    assert any("narration_pass_1" not in e for e in narr.values())
    meta = load_json(corpus / "ego4d.json")
    assert any("\n" in s for v in meta["videos"] for s in v["scenarios"])


def test_round_trip_through_the_ego4d_loader(corpus: Path) -> None:
    lib = load_ego4d(corpus, Selection())
    info = {r["video_uid"]: r for r in load_json(corpus / "video_info.json")}
    assert len(lib.videos) == len(info) and lib.skips["redacted"] >= 1
    for v in lib.videos:
        assert v.country == info[v.video_uid]["video_source"]
        assert v.summary.startswith("C ") and v.clip_summaries
    agree = sum(v.scene == info[v.video_uid]["main_scene"] for v in lib.videos) / len(lib.videos)
    assert agree > 0.6
    need = load_ego4d(corpus, Selection(require_nlq=True))
    assert 0 < len(need.videos) < len(lib.videos) and all(v.has_nlq for v in need.videos)


def test_statistics_fall_in_the_intended_ranges(corpus: Path) -> None:
    stats = library_stats(load_ego4d(corpus, Selection()).videos)
    q = stats["duration_s_quantiles"]
    assert 500 < q["q50"] < 1600 and q["q100"] > 3600
    assert stats["scenarios_per_video"][1] / stats["videos"] > 0.7
    assert stats["distinct_scenarios"] >= 25
    assert max(stats["country"], key=stats["country"].get) == "USA"
    assert set(stats["time_period"]) <= {"daytime", "nighttime", "twilight", "uncertain"}
