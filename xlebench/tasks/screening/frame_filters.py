"""Neptune's stage C.1 filters as recipe filters: ``talking_head`` and ``static_video`` drop
an item whose source records are a talking head or a static video
(`xlebench.media.screening`), judged on frames of the whole records sampled at ``fps`` (at
most ``max_frames`` per record), from the library's media (synthetic media made on demand, or
your Ego4D copy). Counted in ``stats/tasks.json`` like every other filter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from xlebench.media.screening import MIN_FACE_HEIGHT, face_share, visual_clusters


def _frames(item: dict, spec: Mapping[str, Any], fctx: Any) -> dict[str, list[np.ndarray]]:
    if fctx.frames is None:
        raise ValueError(f"the {spec['kind']} filter reads the records' frames: compile with "
                         "a library that has media (the synthetic library, or "
                         "render.media_root=<your Ego4D v2/full_scale>)")
    return fctx.frames(item, float(spec.get("fps", 1.0)), int(spec.get("max_frames", 60)))


def talking_head(item: dict, spec: Mapping[str, Any], fctx: Any) -> tuple[bool, dict]:
    """Dropped where a record shows a face taller than ``min_height`` of the frame in more
    than ``max_share`` of its frames (Neptune: 20%, 30%)."""
    shares = {uid: round(face_share(frames, float(spec.get("min_height", MIN_FACE_HEIGHT))), 4)
              for uid, frames in _frames(item, spec, fctx).items()}
    heads = sorted(uid for uid, s in shares.items() if s > float(spec.get("max_share", 0.3)))
    return not heads, {"face_share": shares, "talking_heads": heads}


def static_video(item: dict, spec: Mapping[str, Any], fctx: Any) -> tuple[bool, dict]:
    """Dropped where a record's frames fall in one visual cluster."""
    clusters = {uid: visual_clusters(frames, float(spec.get("threshold", 0.08)))
                for uid, frames in _frames(item, spec, fctx).items() if frames}
    static = sorted(uid for uid, k in clusters.items() if k <= 1)
    return not static, {"clusters": clusters, "static": static}
