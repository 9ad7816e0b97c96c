"""Ego4D annotations of the videos a benchmark uses: NLQ queries, moments, narrations.

Read once per annotate run, restricted to the videos that appear in the compiled life logs.
Real-data quirks are handled here and counted, never dropped silently: missing/empty queries,
the literal ``Query Text:`` prefix, stray whitespace, null templates, zero-length windows
(``min_duration_s``), quoted moment labels, duplicate labels from several annotators.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlebench.library.jsonio import expect, load_json, objects

if TYPE_CHECKING:  # the pydantic models load only when annotations are read (not at --help)
    from xlebench.library.ego4d import Ego4DLayout


_TAG = re.compile(r"^#\s*[co]\s+", re.IGNORECASE)


def clean_narration(text: str) -> str:
    """A narration without its ``#C``/``#O`` tag, ``#unsure`` and stray whitespace."""
    t = _TAG.sub("", text.replace("#unsure", "").strip())
    return " ".join(t.split())


@dataclass(frozen=True)
class NLQQuery:
    video_uid: str
    query: str
    template: str
    start_s: float  # video-relative
    end_s: float
    annotation_uid: str
    query_idx: int
    clip_uid: str
    file: str
    #: The query exactly as the file has it (the release export writes it unchanged).
    raw: str = ""


@dataclass(frozen=True)
class Moment:
    video_uid: str
    label: str  # underscore taxonomy label, quotes stripped
    start_s: float  # video-relative
    end_s: float
    annotation_uids: tuple[str, ...]
    file: str


@dataclass(frozen=True)
class Narration:
    t: float
    text: str
    annotation_uid: str


@dataclass
class AnnotationIndex:
    nlq: dict[str, list[NLQQuery]] = field(default_factory=lambda: defaultdict(list))
    moments: dict[str, list[Moment]] = field(default_factory=lambda: defaultdict(list))
    narrations: dict[str, list[list[Narration]]] = field(default_factory=dict)
    narration_file: str = ""
    skips: Counter = field(default_factory=Counter)
    #: The same skips per video, so each life log can report those of its own videos.
    skips_by_uid: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: What recipes derive from all of the annotations, computed once (e.g. the verbs each
    #: object is narrated with: `xlebench.tasks.neptune.neptune_offline.object_verbs`).
    derived: dict[str, Any] = field(default_factory=dict)

    def skip(self, uid: str, reason: str) -> None:
        self.skips[reason] += 1
        self.skips_by_uid[uid][reason] += 1


_PREFIX = re.compile(r"^\s*query text:\s*", re.IGNORECASE)


def clean_query(text: str) -> str:
    q = _PREFIX.sub("", " ".join(str(text).split()))
    q = re.sub(r"\bi\b", "I", q)
    return q[:1].upper() + q[1:]


def load_annotations(root: Path, uids: Iterable[str], min_duration_s: float = 0.0
                     ) -> AnnotationIndex:
    from xlebench.library.ego4d import find_layout

    layout = find_layout(root)
    wanted = set(uids)
    idx = AnnotationIndex()
    for path in layout.nlq:
        _read_nlq(path, wanted, idx, min_duration_s, layout)
    for path in layout.moments:
        _read_moments(path, wanted, idx, min_duration_s, layout)
    if layout.narration is not None:
        _read_narrations(layout.narration, wanted, idx, layout)
    return idx


def _rel(path: Path, layout: Ego4DLayout) -> str:
    try:
        return str(path.relative_to(layout.root))
    except ValueError:
        return path.name


def _videos(path: Path):
    data = load_json(path)
    expect(isinstance(data, dict) and isinstance(data.get("videos"), list), path, "$.videos",
           "expected an object with a 'videos' list")
    return data["videos"]


def _entries(path: Path, wanted: set, key: str):
    """(video_uid, clip, annotation, index, entry) for every query / label of wanted videos;
    a clip, annotation or entry that is not an object is an error naming its JSON path."""
    for v, video in objects(_videos(path), path, "$.videos"):
        uid = video.get("video_uid")
        if uid not in wanted:
            continue
        for c, clip in objects(video.get("clips"), path, f"{v}.clips"):
            for a, ann in objects(clip.get("annotations"), path, f"{c}.annotations"):
                for i, (_, entry) in enumerate(objects(ann.get(key), path, f"{a}.{key}")):
                    yield uid, clip, ann, i, entry


def _read_nlq(path: Path, wanted: set, idx: AnnotationIndex, min_dur: float,
              layout: Ego4DLayout) -> None:
    rel = _rel(path, layout)
    for uid, clip, ann, qi, q in _entries(path, wanted, "language_queries"):
        text = q.get("query")
        if not text or not str(text).strip():
            idx.skip(uid, "nlq: missing or empty query")
            continue
        start, end = q.get("video_start_sec"), q.get("video_end_sec")
        if start is None or end is None:
            idx.skip(uid, "nlq: no video times (test split?)")
            continue
        if float(end) - float(start) <= min_dur:
            idx.skip(uid, f"nlq: window <= {min_dur}s")
            continue
        idx.nlq[uid].append(NLQQuery(
            uid, clean_query(text), str(q.get("template") or ""), float(start), float(end),
            str(ann.get("annotation_uid", "")), qi, str(clip.get("clip_uid", "")), rel,
            str(text)))


def _read_moments(path: Path, wanted: set, idx: AnnotationIndex, min_dur: float,
                  layout: Ego4DLayout) -> None:
    rel = _rel(path, layout)
    merged: dict[tuple, list[str]] = defaultdict(list)
    for uid, _clip, ann, _i, lab in _entries(path, wanted, "labels"):
        label = str(lab.get("label") or "").strip().strip('"').strip()
        start, end = lab.get("video_start_time"), lab.get("video_end_time")
        if not label or start is None or end is None:
            idx.skip(uid, "moments: label or times missing")
            continue
        if float(end) - float(start) <= min_dur:
            idx.skip(uid, f"moments: window <= {min_dur}s")
            continue
        key = (uid, label, round(float(start), 1), round(float(end), 1))
        if key in merged:
            idx.skip(uid, "moments: duplicate label (several annotators)")
        merged[key].append(str(ann.get("annotator_uid", "")))
    for (uid, label, start, end), ids in sorted(merged.items()):
        idx.moments[uid].append(Moment(uid, label, start, end, tuple(ids), rel))


def _read_narrations(path: Path, wanted: set, idx: AnnotationIndex,
                     layout: Ego4DLayout) -> None:
    idx.narration_file = _rel(path, layout)
    data = load_json(path)
    for uid in wanted & set(data):
        passes = []
        for key in ("narration_pass_1", "narration_pass_2"):
            p = data[uid].get(key)
            if not p:
                continue
            passes.append(sorted(
                (Narration(float(n["timestamp_sec"]), str(n["narration_text"]),
                           str(n.get("annotation_uid", "")))
                 for n in p.get("narrations") or [] if n.get("narration_text")),
                key=lambda n: n.t))
        idx.narrations[uid] = passes
