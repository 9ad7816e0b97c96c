"""Export in the X-LeBench release layout (FORMATS.md, last section), so existing consumers of
the authors' files can read an xlebench benchmark.

One ``simulation_<persona_id>_<memory_id>_annotation.json`` per life log, ``memory_id`` being
the length category. ``response_*_time_sec`` are seconds since the day's midnight (the authors'
rule: segment start + video-relative seconds), taken from our items unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from xlebench.clock import fmt_hhmm


def release_layout(log: dict, items: list[dict]) -> dict[str, Any]:
    by = defaultdict(list)
    for it in items:
        by[it["subtask"]].append(it)
    segs = log["segments"]
    index_of = {s["video_uid"]: s["index"] for s in segs}

    def retrieval(subtask: str) -> dict:
        groups: dict[str, list] = defaultdict(list)
        for it in by[subtask]:
            groups[it["evidence"][0]["video_uid"]].append(it)
        out = []
        for uid, its in groups.items():
            seg = segs[index_of[uid]]
            out.append({
                "query_metadata": {"query_range": {"start_time": fmt_hhmm(seg["start_s"]),
                                                   "end_time": fmt_hhmm(seg["end_s"])},
                                   "video_index": index_of[uid], "video_uid": uid},
                "queries": [{"query": it["query"],
                             "template": it["provenance"].get("template", ""),
                             "video_uid": uid,
                             "response_start_time_sec": it["answer"]["spans"][0][0],
                             "response_end_time_sec": it["answer"]["spans"][0][1]}
                            for it in its]})
        return {"query_list": out}

    def plain(subtask: str) -> list[dict]:
        return [{"query": it["query"], "answer": it["answer"]["text"],
                 "spans": it["answer"]["spans"], "item_id": it["item_id"]} for it in by[subtask]]

    return {
        "metadata": {"persona_id": log["persona_id"], "memory_id": log["category"],
                     "lifelog_id": log["lifelog_id"], "n_chunks": log["n_chunks"],
                     "generator": "xlebench"},
        "simulations": [{"video_uid": s["video_uid"], "start_time": fmt_hhmm(s["start_s"]),
                         "end_time": fmt_hhmm(s["end_s"])} for s in segs],
        "tasks": {
            "objects_retrieval": retrieval("object_retrieval"),
            "people_retrieval": retrieval("people_retrieval"),
            "action_retrieval": {"moment_localisation": plain("moment_retrieval")},
            "summarisation": {"individual_sum": plain("single_summary"),
                              "multi_video_sum": plain("multi_summary"),
                              "holistic_sum": plain("holistic_summary")},
            "counting": plain("action_counting"),
            "summary_ordering": plain("summary_ordering"),
        },
    }
