"""Loader for the X-LeBench authors' ``video_info.json`` library file."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from xlebench.library.jsonio import expect, load_json, validate
from xlebench.library.records import LibraryVideo
from xlebench.library.uids import MAX_VIDEO_S, check_uid


class ReleaseRow(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, str_strip_whitespace=True)
    video_uid: str
    video_duration: float = Field(gt=0, le=MAX_VIDEO_S)
    video_source: str = Field(min_length=1)
    video_scenarios: list[str] = Field(min_length=1)
    time_period: Literal["daytime", "nighttime", "twilight", "not know", "uncertain"]
    main_scene: Literal["indoor", "outdoor", "mixed"]
    consolidated_summary: str = Field(min_length=1)

    _uid = field_validator("video_uid")(check_uid)


_ROW = TypeAdapter(ReleaseRow)
HINT = ("fix or remove this row; the authors' file is generation/ego4d_info/video_info.json "
        "in X-Intelligence-Labs/X-LeBench")


def load_release(path: Path, skips: Counter) -> list[LibraryVideo]:
    """Rows of the authors' file as library videos (``not know`` becomes ``uncertain``)."""
    path = Path(path)
    data = load_json(path)
    expect(isinstance(data, list), path, "$", "expected a JSON list of video objects")
    out, seen = [], set()
    for i, raw in enumerate(data):
        row: ReleaseRow = validate(_ROW, raw, path, f"$[{i}]", HINT)
        if row.video_uid in seen:
            skips["duplicate video_uid"] += 1
            continue
        seen.add(row.video_uid)
        out.append(LibraryVideo(
            video_uid=row.video_uid,
            duration_s=float(row.video_duration),
            country=row.video_source,
            university=None,
            scenarios=tuple(row.video_scenarios),
            time_period="uncertain" if row.time_period in ("not know", "uncertain")
            else row.time_period,
            scene=row.main_scene,
            summary=row.consolidated_summary.strip(),
        ))
    return out
