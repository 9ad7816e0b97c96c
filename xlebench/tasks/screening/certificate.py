"""Temporal certificates (EgoSchema section 3.2): the length of video an item's answer needs.

Take the item's ground-truth evidence — ``answer.spans`` on the virtual clock when the answer
is a set of spans, else its ``evidence`` windows in source time (per video) — stretch each
span to at least ``min_span_s``, merge spans whose closest ends are less than ``merge_gap_s``
apart, and sum. Where only whole records or windows are known (summaries, ordering, counting)
the result is an upper bound, not EgoSchema's minimal set, and says so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from statistics import median
from typing import Any

from xlebench.config.schema import CertificateConfig


def merge(spans: Sequence[Sequence[float]], min_span_s: float, gap_s: float
          ) -> list[tuple[float, float]]:
    """Sorted, stretched to ``min_span_s``, and merged where the gap is below ``gap_s``."""
    out: list[tuple[float, float]] = []
    for a, b in sorted((float(a), max(float(b), float(a) + min_span_s)) for a, b in spans):
        if out and a - out[-1][1] < gap_s:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def certificate(item: dict, c: CertificateConfig) -> dict[str, Any]:
    spans = item["answer"].get("spans") or []
    if spans:
        merged = merge(spans, c.min_span_s, c.merge_gap_s)
        source, upper = "answer_spans", False
    else:
        by_video: dict[str, list] = defaultdict(list)
        for ev in item.get("evidence", []):
            by_video[ev["video_uid"]].append((ev["source_start_s"], ev["source_end_s"]))
        merged = [s for v in sorted(by_video)
                  for s in merge(by_video[v], c.min_span_s, c.merge_gap_s)]
        source, upper = "evidence", True
    return {"seconds": round(sum(b - a for a, b in merged), 3), "n_subclips": len(merged),
            "source": source, "upper_bound": upper}


def certificate_stats(items: Sequence[dict], buckets_s: Sequence[float]) -> dict[str, Any]:
    """Per category: median seconds, share at least 30 s, and a histogram over the buckets."""
    by: dict[str, list[float]] = defaultdict(list)
    for it in items:
        seconds = it["certificate"]["seconds"]
        by["all"].append(seconds)
        if it.get("category"):
            by[it["category"]].append(seconds)
    edges = sorted(buckets_s)
    labels = [f"<{edges[0]:g}s"] + [f"{a:g}-{b:g}s" for a, b in zip(edges, edges[1:],
                                                                      strict=False)]
    labels.append(f">={edges[-1]:g}s")
    out = {}
    for cat, values in sorted(by.items()):
        hist = dict.fromkeys(labels, 0)
        for v in values:
            k = sum(v >= e for e in edges)
            hist[labels[k]] += 1
        out[cat] = {"median_s": round(median(values), 3), "n": len(values),
                    "share_ge_30s": round(sum(v >= 30 for v in values) / len(values), 4),
                    "histogram": hist}
    return out
