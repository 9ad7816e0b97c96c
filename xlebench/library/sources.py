"""Turn a configured source into the normalised list of library videos (+ skip counts)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from xlebench.library import ego4d
from xlebench.library.labellers import Evidence, Labelling, default_labelling, label_videos
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


def load_ego4d(root: Path, sel: Selection, how: Labelling | None = None) -> LoadedLibrary:
    """The paper's selection: scenarios, clip summaries, not redacted (+ optional NLQ/moments).

    Labels (time, scene) and summaries come from `how` (default: heuristic + extractive).
    """
    how = how or default_labelling()
    layout = ego4d.find_layout(root)
    skips: Counter = Counter()
    metas = ego4d.read_videos(layout.metadata, skips)
    narr = ego4d.read_narrations(layout.narration, skips)
    nlq = ego4d.annotated_uids(layout.nlq, "language_queries")
    moments = ego4d.annotated_uids(layout.moments, "labels")
    kept = []
    for m in metas:
        reason = _excluded(m, narr.get(m.video_uid), sel, nlq, moments)
        if reason:
            skips[reason] += 1
        else:
            kept.append(m)
    evidence = [Evidence(m.video_uid, m.duration_s, m.scenarios,
                         tuple(t for p in narr[m.video_uid].passes for _, t in p),
                         tuple(narr[m.video_uid].summaries)) for m in kept]
    videos = [
        LibraryVideo(
            video_uid=m.video_uid, duration_s=m.duration_s,
            country=ego4d.country_of(m.university) or "", university=m.university,
            scenarios=m.scenarios, time_period=time_period, scene=scene, summary=summary,
            clip_summaries=ev.summaries, has_nlq=m.video_uid in nlq,
            has_moments=m.video_uid in moments, has_narrations=bool(ev.narrations),
        )
        for m, ev, (time_period, scene, summary)
        in zip(kept, evidence, label_videos(evidence, how), strict=True)
    ]
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
