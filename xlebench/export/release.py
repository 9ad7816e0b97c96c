"""Export in the X-LeBench release layout (FORMATS.md), so readers of the authors' files read an
xlebench benchmark the way they read the release.

What those readers rely on, and how it is kept here:

* ``simulation_<persona_id>_<memory_id>_annotation.json``, both ids 8 hex digits (stable hashes
  of our ids, which the metadata keeps beside them).
* ``start_time``/``end_time`` plain ``HH:MM``, wrapped past midnight (``00:40``); readers add
  24 h when a time is smaller than the previous one.
* ``response_*_time_sec`` = seconds(``start_time``) + the Ego4D video seconds, unrounded, so a
  reader recovers video time as ``response − seconds(start_time)``. That is exact whatever the
  segment start; it equals our day clock only when segments start on whole minutes
  (``simulation.start_resolution_s=60``, set by ``experiment=paper``): `release_files` counts
  the starts that are not.
* Raw Ego4D query text, the release's shapes for every task key. Entries also carry our
  ``item_id`` and, where the release's inner fields are not public (summaries, counting,
  ordering), our own answer fields; ``simulations`` entries carry exact ``start_sec``/
  ``end_sec``/``duration_sec``. Readers ignore extra keys; `release_import` uses them when
  present and falls back to the public fields when not.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from xlebench.clock import DAY
from xlebench.config.exports import ExportFormat
from xlebench.export.job import ExportJob
from xlebench.runner.atomic import write_json

HEX8 = re.compile(r"^[0-9a-f]{8}$")
#: Our subtask -> the release's task key (summaries under ``summarisation``).
SUMMARY_KEYS = {"single_summary": "individual_sum", "multi_summary": "multi_video_sum",
                "holistic_summary": "holistic_sum"}


def hex8(text: str) -> str:
    """A stable 8-hex id (the release's uuid4-prefix shape) for one of our ids."""
    return text if HEX8.match(text) else hashlib.sha256(text.encode()).hexdigest()[:8]


def release_name(log: dict) -> str:
    return f"simulation_{hex8(log['persona_id'])}_{hex8(log['lifelog_id'])}_annotation.json"


def hhmm(seconds: float) -> str:
    """Plain ``HH:MM`` of the wrapped day time (the release has no day marker)."""
    t = int(seconds) % DAY
    return f"{t // 3600:02d}:{t % 3600 // 60:02d}"


def clock_s(seconds: float) -> int:
    """Seconds of the ``HH:MM`` a release reader sees for a day time."""
    t = int(seconds) % DAY
    return t - t % 60


def _video_spans(item: dict) -> list[tuple[float, float]]:
    """The Ego4D video seconds of an item's answers, unrounded where the recipe kept them."""
    prov = item["provenance"]
    if "video_spans" in prov:
        return [(float(a), float(b)) for a, b in prov["video_spans"]]
    return [(float(e["source_start_s"]), float(e["source_end_s"])) for e in item["evidence"]]


def _segment_of(log: dict, item: dict) -> dict:
    uid = item["evidence"][0]["video_uid"]
    return next(s for s in log["segments"] if s["video_uid"] == uid)


def _metadata(seg: dict) -> dict:
    return {"query_range": {"start_time": hhmm(seg["start_s"]), "end_time": hhmm(seg["end_s"])},
            "video_index": seg["index"], "video_uid": seg["video_uid"]}


def _asked(item: dict) -> dict:
    """xlebench's own fields: the period the query printed (padded into the free time around
    the record by default; the release's ``query_range`` is the record's)."""
    return {"period_start_sec": item["period"]["start_s"],
            "period_end_sec": item["period"]["end_s"]}


def _response(seg: dict, a: float, b: float) -> dict:
    base = clock_s(seg["start_s"]) - float(seg.get("source_start_s", 0.0))
    return {"response_start_time_sec": base + a, "response_end_time_sec": base + b}


def _retrieval(log: dict, items: list[dict]) -> dict:
    groups: dict[int, list[dict]] = defaultdict(list)
    for it in items:
        groups[_segment_of(log, it)["index"]].append(it)
    out = []
    for index in sorted(groups):
        seg = log["segments"][index]
        queries = []
        for it in groups[index]:
            (a, b), = _video_spans(it)
            queries.append({"query": it["provenance"]["raw_query"],
                            "template": it["provenance"].get("template", ""),
                            "video_uid": seg["video_uid"], **_response(seg, a, b),
                            "item_id": it["item_id"], **_asked(it)})
        out.append({"query_metadata": _metadata(seg), "queries": queries})
    return {"query_list": out}


def _moments(log: dict, items: list[dict]) -> dict:
    out = []
    for it in items:
        seg = _segment_of(log, it)
        label = it["provenance"]["label"]
        out.append({"query_metadata": _metadata(seg), "query": label, "item_id": it["item_id"],
                    **_asked(it),
                    "query_list": [{"query": label, "video_uid": seg["video_uid"],
                                    **_response(seg, a, b)} for a, b in _video_spans(it)]})
    return {"query_list": out}


def _plain(it: dict) -> dict:
    """Our answer fields, for the task keys whose release fields are not public."""
    ans = it["answer"]
    out = {"item_id": it["item_id"], "query": it["query"], "answer": ans["text"],
           "start_time": hhmm(it["period"]["start_s"]), "end_time": hhmm(it["period"]["end_s"]),
           "period_start_sec": it["period"]["start_s"], "period_end_sec": it["period"]["end_s"],
           "evidence": it["evidence"]}
    if ans["counts"]:
        out["counts"] = ans["counts"]
    if ans["order"]:
        out["order"] = ans["order"]
    if "window_s" in it:
        out["window_s"] = it["window_s"]
    return out


def release_layout(log: dict, items: list[dict]) -> dict[str, Any]:
    """One life log's release file (items of the 8 X-LeBench subtasks; others are left out)."""
    by: dict[str, list[dict]] = defaultdict(list)
    for it in sorted(items, key=lambda it: it["item_id"]):
        by[it["subtask"]].append(it)
    return {
        "metadata": {"persona_id": hex8(log["persona_id"]), "memory_id": hex8(log["lifelog_id"]),
                     "lifelog_id": log["lifelog_id"], "xlebench_persona_id": log["persona_id"],
                     "category": log["category"], "n_chunks": log["n_chunks"],
                     "generator": "xlebench"},
        "simulations": [{"video_uid": s["video_uid"], "start_time": hhmm(s["start_s"]),
                         "end_time": hhmm(s["end_s"]), "start_sec": s["start_s"],
                         "end_sec": s["end_s"],
                         "duration_sec": s["source_end_s"] - s.get("source_start_s", 0.0)}
                        for s in log["segments"]],
        "tasks": {
            "objects_retrieval": _retrieval(log, by["object_retrieval"]),
            "people_retrieval": _retrieval(log, by["people_retrieval"]),
            "action_retrieval": {"moment_localisation": _moments(log, by["moment_retrieval"])},
            "summarisation": {key: [_plain(it) for it in by[sub]]
                              for sub, key in SUMMARY_KEYS.items()},
            "counting": [_plain(it) for it in by["action_counting"]],
            "summary_ordering": {"query_list": [_plain(it) for it in by["summary_ordering"]]},
        },
    }


def release_files(logs: dict[str, dict], items: list[dict]) -> tuple[dict[str, dict], dict]:
    """File name -> release layout for every life log, and what a reader should know: how many
    segment starts are not whole minutes (their ``HH:MM`` is not the segment's start)."""
    by_log: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_log[it["lifelog_id"]].append(it)
    files = {release_name(log): release_layout(log, by_log[lid])
             for lid, log in sorted(logs.items())}
    starts = [s["start_s"] for log in logs.values() for s in log["segments"]]
    off = sum(1 for s in starts if s % 60)
    return files, {"files": len(files), "segments": len(starts),
                   "segment_starts_not_whole_minutes": off}


FORMAT = ExportFormat("xlebench", "the X-LeBench release layout", order=3)


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    files, stats = release_files(logs, [it for v in items.values() for it in v])
    for name, layout in files.items():
        write_json(out / name, layout)
    return stats
