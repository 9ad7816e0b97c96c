"""Loaders on malformed inputs: one clear error naming file, JSON path and expectation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xlebench.errors import DataError
from xlebench.library.release import load_release
from xlebench.library.sources import Selection, load_ego4d, load_release_library

GOOD_VIDEO = {"video_uid": "v1", "duration_sec": 100.0, "scenarios": ["Cooking"],
              "video_source": "unict"}
GOOD_NARR = {"v1": {"status": "complete", "narration_pass_1": {
    "narrations": [{"timestamp_sec": 3.0, "narration_text": "#C C cuts the onion"}],
    "summaries": [{"start_sec": 0, "end_sec": 100, "summary_text": "#summary C cooked."}]}}}


def _download(tmp: Path, videos: list, narr: dict | str = GOOD_NARR) -> Path:
    (tmp / "v2" / "annotations").mkdir(parents=True)
    (tmp / "ego4d.json").write_text(json.dumps({"videos": videos}))
    text = narr if isinstance(narr, str) else json.dumps(narr)
    (tmp / "v2" / "annotations" / "narration.json").write_text(text)
    return tmp


def test_good_minimal_download_loads(tmp_path: Path) -> None:
    lib = load_ego4d(_download(tmp_path, [GOOD_VIDEO]), Selection())
    assert [v.country for v in lib.videos] == ["Italy"]


def test_renamed_v2_files_are_accepted(tmp_path: Path) -> None:
    root = _download(tmp_path, [GOOD_VIDEO])
    (root / "v2/annotations/nlq_train_v2.json").write_text(json.dumps({"videos": [
        {"video_uid": "v1", "clips": [{"annotations": [{"language_queries": [
            {"query": "Where is the knife?"}]}]}]}]}))
    assert load_ego4d(root, Selection(require_nlq=True)).videos[0].has_nlq


@pytest.mark.parametrize("videos,where,expected", [
    ([{**GOOD_VIDEO, "duration_sec": -4}], "$.videos[0].duration_sec", "greater than 0"),
    ([{**GOOD_VIDEO, "duration_sec": "long"}], "$.videos[0].duration_sec", "number"),
    ([{k: v for k, v in GOOD_VIDEO.items() if k != "video_uid"}], "$.videos[0].video_uid",
     "required"),
])
def test_bad_video_fields_name_file_path_and_expectation(tmp_path, videos, where, expected):
    with pytest.raises(DataError) as err:
        load_ego4d(_download(tmp_path, videos), Selection())
    assert err.value.file.endswith("ego4d.json") and err.value.where == where
    assert expected.lower() in str(err.value).lower()


def test_truncated_json_is_reported_with_position(tmp_path: Path) -> None:
    root = _download(tmp_path, [GOOD_VIDEO], narr=json.dumps(GOOD_NARR)[:60])
    with pytest.raises(DataError, match=r"narration.json: \$: expected valid JSON.*line 1"):
        load_ego4d(root, Selection())


def test_wrong_type_in_narrations(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(GOOD_NARR))
    bad["v1"]["narration_pass_1"]["narrations"][0]["timestamp_sec"] = "soon"
    with pytest.raises(DataError) as err:
        load_ego4d(_download(tmp_path, [GOOD_VIDEO], bad), Selection())
    assert err.value.where == "$['v1'].narration_pass_1.narrations[0].timestamp_sec"


def test_ragged_records_are_counted_skips(tmp_path: Path) -> None:
    videos = [GOOD_VIDEO, {**GOOD_VIDEO, "video_uid": "v2", "video_source": "mars_uni"},
              {**GOOD_VIDEO, "video_uid": "v3", "scenarios": []},
              {**GOOD_VIDEO, "video_uid": "v4", "has_redacted_regions": True}]
    narr = {**GOOD_NARR, **{u: GOOD_NARR["v1"] for u in ("v2", "v3", "v4")}}
    lib = load_ego4d(_download(tmp_path, videos, narr), Selection())
    assert [v.video_uid for v in lib.videos] == ["v1"]
    assert lib.skips == {"unknown university (mars_uni)": 1, "no scenarios": 1, "redacted": 1}


def test_missing_ego4d_json_lists_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="ego4d.json.*not found; looked for"):
        load_ego4d(tmp_path, Selection())


def test_release_rows_are_validated(tmp_path: Path) -> None:
    path = tmp_path / "video_info.json"
    path.write_text(json.dumps([{"video_uid": "a", "video_duration": 0, "video_source": "UK",
                                 "video_scenarios": [], "time_period": "daytime",
                                 "main_scene": "indoor", "consolidated_summary": "C x."}]))
    with pytest.raises(DataError) as err:
        load_release(path, __import__("collections").Counter())
    assert err.value.where == "$[0].video_duration"


def test_real_release_file(shared_video_info: Path) -> None:
    lib = load_release_library(shared_video_info)
    videos = lib.videos
    assert len(videos) == 7852
    from collections import Counter

    assert Counter(v.time_period for v in videos) == {"daytime": 5576, "nighttime": 1307,
                                                      "uncertain": 609, "twilight": 360}
    assert Counter(v.scene for v in videos) == {"indoor": 5760, "outdoor": 1448, "mixed": 644}
    assert Counter(v.country for v in videos)["USA"] == 3405
    assert sum(len(v.scenarios) == 1 for v in videos) / 7852 == pytest.approx(0.84, abs=0.005)
    d = sorted(v.duration_s for v in videos)
    assert d[0] == pytest.approx(10.13) and d[-1] == pytest.approx(24189.3)
