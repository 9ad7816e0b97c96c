"""The task item record (DESIGN.md section 5); the words of queries and answers are in
`xlebench.tasks.language.wording`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def to_day(segment: dict, video_s: float) -> float:
    """Authors' remapping: segment start on the day + video-relative seconds (exact, no
    flooring), minus where the segment starts in its source video (0 for whole videos)."""
    return round(float(segment["start_s"]) + float(video_s)
                 - float(segment.get("source_start_s", 0.0)), 3)


def make_item(*, log: dict, subtask: str, task: str, k: int, query: str,
              period: tuple[float, float],
              text: str = "", spans: Sequence[Sequence[float]] = (),
              counts: dict[str, int] | None = None, order: Sequence[int] = (),
              evidence: Sequence[dict] = (), provenance: dict[str, Any] | None = None,
              answer: dict[str, Any] | None = None,
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One item. ``answer`` adds answer fields beyond text/spans/counts/order (options and
    label of a multiple-choice item, grounding tokens, events); ``extra`` top-level fields."""
    return {
        "item_id": f"{log['lifelog_id']}-{subtask}-{k:03d}",
        "task": task,
        "subtask": subtask,
        "lifelog_id": log["lifelog_id"],
        "category": log.get("category", ""),
        "query": query,
        "answer": {"text": text, "spans": [[round(a, 3), round(b, 3)] for a, b in spans],
                   "counts": dict(counts or {}), "order": list(order), **(answer or {})},
        "period": {"start_s": round(period[0], 3), "end_s": round(period[1], 3)},
        "evidence": list(evidence),
        "provenance": dict(provenance or {}),
        **(extra or {}),
    }
