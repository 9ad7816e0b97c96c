"""Turn a configured source into the normalised list of library videos (+ skip counts)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from xlebench.errors import ConfigError
from xlebench.library import ego4d
from xlebench.library.labelling import consolidate_extractive, label_scene, label_time
from xlebench.library.records import LibraryVideo
from xlebench.library.release import load_release


@dataclass
class LoadedLibrary:
    videos: list[LibraryVideo]
    skips: Counter = field(default_factory=Counter)
    source: str = ""


@dataclass(frozen=True)
class Selection:
    require_nlq: bool = False
    require_moments: bool = False
    labeller: str = "heuristic"
    consolidator: str = "extractive"


def _check_selection(sel: Selection) -> None:
    if sel.labeller not in ("heuristic",):
        raise ConfigError(
            f"library.labeller={sel.labeller}: only 'heuristic' is available in this version "
            "(the llm and gemini_video labellers are planned); use library.labeller=heuristic"
        )
    if sel.consolidator not in ("extractive",):
        raise ConfigError(
            f"library.consolidator={sel.consolidator}: only 'extractive' is available in this "
            "version; use library.consolidator=extractive"
        )


def load_ego4d(root: Path, sel: Selection) -> LoadedLibrary:
    """The paper's selection: scenarios, clip summaries, not redacted (+ optional NLQ/moments)."""
    _check_selection(sel)
    layout = ego4d.find_layout(root)
    skips: Counter = Counter()
    metas = ego4d.read_videos(layout.metadata, skips)
    narr = ego4d.read_narrations(layout.narration, skips)
    nlq = ego4d.annotated_uids(layout.nlq, "language_queries")
    moments = ego4d.annotated_uids(layout.moments, "labels")
    videos = []
    for m in metas:
        reason = _excluded(m, narr.get(m.video_uid), sel, nlq, moments)
        if reason:
            skips[reason] += 1
            continue
        info = narr[m.video_uid]
        texts = [t for p in info.passes for _, t in p]
        videos.append(LibraryVideo(
            video_uid=m.video_uid, duration_s=m.duration_s,
            country=ego4d.country_of(m.university) or "", university=m.university,
            scenarios=m.scenarios, time_period=label_time(m.scenarios, texts),
            scene=label_scene(m.scenarios, texts),
            summary=consolidate_extractive(info.summaries),
            clip_summaries=tuple(info.summaries), has_nlq=m.video_uid in nlq,
            has_moments=m.video_uid in moments, has_narrations=bool(texts),
        ))
    return LoadedLibrary(videos, skips, f"ego4d:{layout.root}")


def _excluded(m, info, sel: Selection, nlq: set, moments: set) -> str:
    if not m.scenarios:
        return "no scenarios"
    if m.redacted or (info is not None and info.status.startswith("redacted")):
        return "redacted"
    if info is None or not info.summaries:
        return "no clip summaries"
    if ego4d.country_of(m.university) is None:
        return f"unknown university ({m.university})"
    if sel.require_nlq and m.video_uid not in nlq:
        return "no NLQ annotations (library.require_nlq=true)"
    if sel.require_moments and m.video_uid not in moments:
        return "no moments annotations (library.require_moments=true)"
    return ""


def load_release_library(path: Path) -> LoadedLibrary:
    skips: Counter = Counter()
    return LoadedLibrary(load_release(Path(path), skips), skips, f"xlebench_release:{path}")
