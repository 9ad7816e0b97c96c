"""Frames a model sees of a life log, on its clock, decoded once per source video.

* `log_frames`: N frames spread uniformly over the log's output time (the segments back to
  back, gaps removed — the rendered video's time), each labelled with its virtual-clock time;
  the end-to-end system's input (paper: 1200 frames).
* `evidence_frames`: N frames spread over one item's evidence spans (its certificate's
  subclips) — the oracle that sees only where the answer is.
* `clip_frames`: N frames spread over a clip of the day centred on a moment (Neptune's
  growing clip, `centred_clip`).
* `segment_sets`: the frames of every 30-second source segment a log uses, at
  ``segment_fps`` and 560x420 — what a captioner describes, one caption per segment.

Both read media through the render stage's resolver (synthetic media made on demand, or your
Ego4D ``v2/full_scale``) and cache frames under ``cache/frames`` per source video, so a video
reused by many logs is decoded once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from xlebench.clock import fmt_hhmmss
from xlebench.render.frames import FrameSpec, frames_at, segment_frames, uniform_times
from xlebench.render.timeline import locate, log_mapping
from xlebench.tasks.recipe.items import to_day
from xlebench.vlm.messages import Frame

Media = Callable[[str], Path]


def log_frames(log: dict, n: int, media: Media, root: Path, spec: FrameSpec) -> list[Frame]:
    mapping = log_mapping(log)
    if not mapping:
        return []
    where = [locate(mapping, t) for t in uniform_times(mapping[-1].out_end_s, n)]
    by_uid: dict[str, list[float]] = defaultdict(list)
    for pos in where:
        by_uid[pos.video_uid].append(pos.source_s)
    files = {uid: frames_at(media(uid), uid, times, root, spec) for uid, times in by_uid.items()}
    return [Frame(root / files[p.video_uid][p.source_s], fmt_hhmmss(p.virtual_s), p.virtual_s)
            for p in where]


def evidence_frames(item: dict, log: dict, n: int, media: Media, root: Path,
                    spec: FrameSpec) -> list[Frame]:
    """N frames spread uniformly over the total length of the item's evidence spans (each
    span gets frames in proportion to its length, at least one), in time order, labelled on
    the day's clock."""
    spans = [(e["video_uid"], float(e["source_start_s"]), float(e["source_end_s"]))
             for e in item.get("evidence", []) if e["source_end_s"] > e["source_start_s"]]
    total = sum(b - a for _, a, b in spans)
    if not spans or n <= 0:
        return []
    by_uid: dict[str, list[float]] = defaultdict(list)
    for uid, a, b in spans:
        k = max(1, round(n * (b - a) / total))
        by_uid[uid] += [round(a + (b - a) * (j + 0.5) / k, 3) for j in range(k)]
    where = []
    for uid, times in by_uid.items():
        seg = next((s for s in log["segments"] if s["video_uid"] == uid), None)
        if seg is not None:
            where += [(seg, t) for t in sorted(set(times))]
    return _decoded(where, media, root, spec)


def _decoded(where: list[tuple[dict, float]], media: Media, root: Path, spec: FrameSpec
             ) -> list[Frame]:
    """The frames at these (segment, source second) places, each source video decoded once,
    labelled on the day's clock, in time order."""
    by_uid: dict[str, list[tuple[dict, float]]] = defaultdict(list)
    for seg, source in where:
        by_uid[seg["video_uid"]].append((seg, source))
    out = []
    for uid, here in by_uid.items():
        files = frames_at(media(uid), uid, sorted({s for _, s in here}), root, spec)
        out += [Frame(root / files[s], fmt_hhmmss(to_day(seg, s)), to_day(seg, s))
                for seg, s in here]
    return sorted(out, key=lambda f: f.virtual_s)


def clip_times(log: dict, centre_s: float, length_s: float, n: int
               ) -> list[tuple[dict, float]]:
    """(segment, source second) of N frames spread uniformly over a clip of ``length_s``
    seconds of the day centred on ``centre_s``: over the recorded time inside it (gaps between
    segments hold no frames; a clip reaching past the day's ends is cut there), in order."""
    lo, hi = centre_s - length_s / 2, centre_s + length_s / 2
    pieces = [(seg, max(lo, float(seg["start_s"])), min(hi, float(seg["end_s"])))
              for seg in log["segments"] if min(hi, seg["end_s"]) > max(lo, seg["start_s"])]
    out = []
    for t in uniform_times(sum(b - a for _, a, b in pieces), n):
        for k, (seg, a, b) in enumerate(pieces):
            if t <= b - a or k == len(pieces) - 1:
                day = min(a + t, b)
                out.append((seg, round(float(seg.get("source_start_s", 0.0)) + day
                                       - float(seg["start_s"]), 3)))
                break
            t -= b - a
    return out


def clip_frames(log: dict, centre_s: float, length_s: float, n: int, media: Media, root: Path,
                spec: FrameSpec) -> list[Frame]:
    """`clip_times`' frames, decoded once per source video, labelled on the day's clock."""
    return _decoded(clip_times(log, centre_s, length_s, n), media, root, spec)


def segment_sets(seg: dict, media: Media, root: Path, spec: FrameSpec
                 ) -> dict[int, list[Frame]]:
    """Per 30-s source segment (index k: [k*30, (k+1)*30) of the video) inside the log's
    segment, its frames labelled on the log's clock."""
    lo, hi = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    uid = seg["video_uid"]
    out: dict[int, list[Frame]] = defaultdict(list)
    for f in segment_frames(media(uid), uid, root, spec):
        if lo <= f["source_s"] < hi:
            day = to_day(seg, f["source_s"])
            out[f["segment"]].append(Frame(root / uid / spec.key / f["file"], fmt_hhmmss(day),
                                           day))
    return dict(out)
