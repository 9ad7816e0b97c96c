"""What an item is about: its source videos and annotations, the unit of independence.

Life logs reuse library videos (the paper's release: 814 distinct videos in 4032 segments), so
the same Ego4D annotation — a moment, an NLQ query, a video's summary — stands behind items of
many life logs. Those items are not independent: a reader who remembers one log's answer knows
the other's. Every item therefore names its ``source`` (``videos``, in evidence order, and
``annotations``, the ids it was built from); a benchmark asks one question of a source at
most once (`owners`), blind strategies are cross-fitted so that items sharing a video never fall on both
sides of a fold (`xlebench.eval.panel.blind`), and intervals resample source videos
(`cluster_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from xlebench.runner.rng import derive_seed

_CLOCK = re.compile(r"\d+")


def source_of(item: dict) -> dict[str, list[str]]:
    """The item's source: its recipe's own ``source`` if it set one, else the videos of its
    evidence and its provenance's annotation ids (the videos themselves when it names none)."""
    if item.get("source"):
        return {**item["source"], "videos": list(item["source"]["videos"]),
                "annotations": sorted(item["source"]["annotations"])}
    videos = list(dict.fromkeys(e["video_uid"] for e in item.get("evidence", ())))
    ids = item.get("provenance", {}).get("annotation_ids") or videos
    return {"videos": videos, "annotations": sorted({str(i) for i in ids})}


def source_key(item: dict) -> str:
    """What two items must share to ask the same thing of the same source annotation: its
    annotation ids and its question with the clock masked (a recipe naming only a video asks
    several questions of it; another log's period prints other times). A source marked
    ``whole`` is one question whatever is asked of it: any two windows of one narration pass
    share counts, so counting asks one question of a video."""
    source = source_of(item)
    key = "|".join(source["annotations"])
    if source.get("whole"):
        return key
    question = item.get("provenance", {}).get("question") or item["query"]
    return key + "#" + _CLOCK.sub("#", question.lower())


def source_videos(item: dict) -> list[str]:
    """The videos an item is about (the life log's id when it names none: an imported item)."""
    return source_of(item)["videos"] or [item["lifelog_id"]]


def cluster_of(item: dict) -> str:
    """The resampling unit of the bootstrap: the item's first source video."""
    return source_videos(item)[0]


def owners(items: Iterable[dict], seed: int, preferred: frozenset[str] = frozenset()
           ) -> dict[str, str]:
    """For each source key, the one item that asks about it: one in a ``preferred`` life log
    where there is one (a rendered log: its items are the ones a model can be shown), else a
    seeded choice among the items sharing it, independent of the order they come in (so of
    workers and shards)."""
    best: dict[str, tuple[int, int, str]] = {}
    for it in items:
        key = source_key(it)
        rank = (it["lifelog_id"] not in preferred,
                derive_seed(seed, "source-owner", key, it["item_id"]), it["item_id"])
        if key not in best or rank < best[key]:
            best[key] = rank
    return {key: rank[-1] for key, rank in best.items()}


def keep_owned(items: Sequence[dict], owned: dict[str, str]) -> tuple[list[dict], int]:
    """The items that own their source, and how many were repeats kept elsewhere."""
    kept = [it for it in items if owned.get(source_key(it)) == it["item_id"]]
    return kept, len(items) - len(kept)


def with_source(item: dict[str, Any]) -> dict[str, Any]:
    """The item with its ``source`` field filled in (recipes that set their own keep it)."""
    item["source"] = source_of(item)
    return item


def relaxation(item: dict[str, Any], log: dict[str, Any]) -> dict[str, Any]:
    """How far the matcher relaxed its rules for the records an item is about: per source
    video, the ladder step its segment was matched at (``strict``, ``iou_0.2``,
    ``any_country``, ``any``), and the loosest of them, so that any score can be split by it
    (an item's videos each appear once in its life log)."""
    steps = {s["video_uid"]: (s.get("match") or {}) for s in log.get("segments", [])}
    uids = [u for u in dict.fromkeys(e["video_uid"] for e in item["evidence"])
            if "relaxation" in steps.get(u, {})]
    if not uids:
        return {}
    loosest = max(uids, key=lambda u: int(steps[u].get("level", 0)))
    return {"relaxation": steps[loosest]["relaxation"],
            "relaxation_by_video": {u: steps[u]["relaxation"] for u in uids}}
