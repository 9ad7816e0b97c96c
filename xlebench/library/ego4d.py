"""Loader for a local Ego4D download (v1 or v2 layout, renamed files accepted).

Follows FORMATS.md: ``ego4d.json`` at the root or under ``v2/``; annotations under
``v2/annotations`` or ``v1/annotations``; ``nlq_train_v2.json`` style renames accepted. Core
fields are validated (errors name file, JSON path and expectation); everything else is read
with defaults. Ragged-but-real records (unknown university, missing summaries, redacted
videos, empty queries) are skipped and counted, never silently dropped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from xlebench.errors import DataError
from xlebench.library.ego4d_facts import UNIVERSITY_COUNTRY
from xlebench.library.jsonio import expect, load_json, objects, validate
from xlebench.library.records import ClipSummary
from xlebench.library.uids import MAX_VIDEO_S, UID_RULE, check_uid, is_safe_uid

#: Outside data: unknown keys are ignored, but Infinity and NaN are never numbers.
STRICT = ConfigDict(extra="ignore", allow_inf_nan=False)


class VideoModel(BaseModel):
    model_config = STRICT
    video_uid: str
    duration_sec: float = Field(gt=0, le=MAX_VIDEO_S)
    scenarios: list[str] | None = None
    video_source: str | None = None
    has_redacted_regions: bool | None = False

    _uid = field_validator("video_uid")(check_uid)


class NarrationModel(BaseModel):
    model_config = STRICT
    timestamp_sec: float = Field(ge=0, le=MAX_VIDEO_S)
    narration_text: str = ""


class SummaryModel(BaseModel):
    model_config = STRICT
    start_sec: float = Field(ge=0, le=MAX_VIDEO_S)
    end_sec: float = Field(ge=0, le=MAX_VIDEO_S)
    summary_text: str = ""


class PassModel(BaseModel):
    model_config = STRICT
    narrations: list[NarrationModel] = []
    summaries: list[SummaryModel] = []


_VIDEO = TypeAdapter(VideoModel)
HINT = "the file may be damaged or edited: download it again with the Ego4D CLI"
_PASS = TypeAdapter(PassModel)


@dataclass(frozen=True)
class Ego4DLayout:
    root: Path
    metadata: Path
    narration: Path | None
    nlq: tuple[Path, ...]
    moments: tuple[Path, ...]


def _first(paths: list[Path]) -> Path | None:
    return next((p for p in paths if p.is_file()), None)


def find_layout(root: Path) -> Ego4DLayout:
    """Locate the files of a download; a missing ego4d.json lists where it was looked for."""
    root = Path(root)
    if not root.is_dir():
        raise DataError(str(root), "library.root", "expected a folder holding an Ego4D download")
    meta_candidates = [root / "ego4d.json", root / "v2" / "ego4d.json", root / "v1" / "ego4d.json"]
    meta = _first(meta_candidates)
    if meta is None:
        raise DataError(str(root), "ego4d.json", "not found; looked for "
                        + ", ".join(str(p.relative_to(root)) for p in meta_candidates))
    ann_dirs = [root / "v2" / "annotations", root / "v1" / "annotations", root / "annotations"]
    ann = next((d for d in ann_dirs if d.is_dir()), root)

    def pick(stem: str) -> Path | None:
        return _first([ann / f"{stem}.json", ann / f"{stem}_v2.json", ann / f"{stem}_v1.json"])

    nlq = tuple(p for p in (pick("nlq_train"), pick("nlq_val")) if p)
    moments = tuple(p for p in (pick("moments_train"), pick("moments_val")) if p)
    return Ego4DLayout(root, meta, pick("narration"), nlq, moments)


@dataclass(frozen=True)
class VideoMeta:
    video_uid: str
    duration_s: float
    scenarios: tuple[str, ...]
    university: str | None
    redacted: bool


def read_videos(path: Path, skips: Counter) -> list[VideoMeta]:
    data = load_json(path)
    expect(isinstance(data, dict) and isinstance(data.get("videos"), list), path, "$.videos",
           "expected an object with a 'videos' list (the Ego4D metadata file)")
    out = []
    for i, raw in enumerate(data["videos"]):
        m: VideoModel = validate(_VIDEO, raw, path, f"$.videos[{i}]", HINT)
        scen = tuple(s for s in (m.scenarios or []) if isinstance(s, str) and s.strip())
        out.append(VideoMeta(m.video_uid, float(m.duration_sec), scen, m.video_source,
                             bool(m.has_redacted_regions)))
    return out


@dataclass
class NarrationInfo:
    passes: list[list[tuple[float, str]]] = field(default_factory=list)
    summaries: list[ClipSummary] = field(default_factory=list)
    status: str = ""


def _clean_summary(text: str) -> str:
    t = text.strip()
    for tag in ("#summary", "#Summary", "#SUMMARY"):
        if t.startswith(tag):
            t = t[len(tag):].strip()
    return t


def read_narrations(path: Path | None, skips: Counter) -> dict[str, NarrationInfo]:
    """Narrations (sorted, per pass) and clip summaries (from the first pass that has them)."""
    if path is None:
        return {}
    data = load_json(path)
    expect(isinstance(data, dict), path, "$", "expected an object keyed by video_uid")
    out: dict[str, NarrationInfo] = {}
    for uid, entry in data.items():
        expect(is_safe_uid(uid), path, f"$[{uid!r}]", f"expected a key that is {UID_RULE}")
        expect(isinstance(entry, dict), path, f"$[{uid!r}]", "expected an object per video")
        info = NarrationInfo(status=str(entry.get("status", "")))
        for key in ("narration_pass_1", "narration_pass_2"):
            if key not in entry:
                continue  # either pass may be missing in real files
            p: PassModel = validate(_PASS, entry[key], path, f"$[{uid!r}].{key}", HINT)
            info.passes.append(sorted((n.timestamp_sec, n.narration_text) for n in p.narrations))
            if not info.summaries and p.summaries:
                info.summaries = [
                    ClipSummary(s.start_sec, s.end_sec, _clean_summary(s.summary_text))
                    for s in sorted(p.summaries, key=lambda s: s.start_sec)
                    if s.summary_text.strip()
                ]
        out[uid] = info
    return out


def annotated_uids(paths: tuple[Path, ...], label_key: str) -> set[str]:
    """Videos with at least one usable NLQ query (or moment label) in the given files."""
    uids: set[str] = set()
    for path in paths:
        data = load_json(path)
        expect(isinstance(data, dict) and isinstance(data.get("videos"), list), path,
               "$.videos", "expected an object with a 'videos' list")
        for i, video in enumerate(data["videos"]):
            expect(isinstance(video, dict) and is_safe_uid(video.get("video_uid")), path,
                   f"$.videos[{i}].video_uid", f"expected an object whose video_uid is {UID_RULE}")
            for c, clip in objects(video.get("clips"), path, f"$.videos[{i}].clips"):
                for a, ann in objects(clip.get("annotations"), path, f"{c}.annotations"):
                    if any((q.get("query") if label_key == "language_queries" else q.get("label"))
                           for _, q in objects(ann.get(label_key), path, f"{a}.{label_key}")):
                        uids.add(video["video_uid"])
    return uids


def country_of(university: str | None) -> str | None:
    return UNIVERSITY_COUNTRY.get((university or "").strip().lower())
