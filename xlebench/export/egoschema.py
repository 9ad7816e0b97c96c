"""Multiple-choice items in EgoSchema's layout: ``questions.json`` (``q_uid``, ``question`` —
the bare question, the options in their own fields as EgoSchema's are — ``option 0`` …
``option 4``), ``answers.json`` (``q_uid`` -> label) and ``uid_to_lifelog.json`` (``q_uid`` ->
our item id, the life-log video, ``starting_sec``/``ending_sec`` of the evidence in that
stitched video, the period on the day's clock, and the Ego4D source: ``google_drive_id``'s
counterpart ``ego4d_video_uid`` with the evidence's ``ego4d_start_sec``/``ego4d_end_sec`` in
that video), so EgoSchema's evaluation scripts run unchanged on life-log questions and each
question can be traced to its Ego4D clip.

The stitched video plays the records back to back (`xlebench.render.timeline`); its seconds
here come from the library's durations, which the render's probed mapping (``videos/*.json``)
matches to within a frame per record."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xlebench.config.exports import ExportFormat
from xlebench.export.job import ExportJob
from xlebench.render.timeline import log_mapping
from xlebench.runner.atomic import write_json

#: Namespace of q_uids: uuid5(NAMESPACE, item_id) is stable across machines and runs.
NAMESPACE = uuid.UUID("6f1c1f1e-7a55-4d2a-9d0b-0e6b5e8c1a11")


def is_mcq(item: dict) -> bool:
    return "options" in item["answer"] and item["answer"].get("label") is not None


def video_seconds(log: dict, evidence: list[dict]) -> tuple[float, float] | None:
    """(start, end) of the evidence in the stitched life-log video (the render's mapping,
    from the library's durations)."""
    pieces = {p.video_uid: p for p in log_mapping(log)}
    spans = [(p.out_start_s + e["source_start_s"] - p.source_start_s,
              p.out_start_s + e["source_end_s"] - p.source_start_s)
             for e in evidence if (p := pieces.get(e["video_uid"])) is not None]
    if not spans:
        return None
    return round(min(a for a, _ in spans), 3), round(max(b for _, b in spans), 3)


def bare_question(item: dict) -> str:
    """The question without its options (the recipes keep it in ``provenance.question``; an
    imported item's query is cut before its first "Option 0:")."""
    question = item.get("provenance", {}).get("question")
    return question or item["query"].split(" Option 0:")[0]


def ego4d_source(evidence: list[dict]) -> dict[str, Any]:
    """The Ego4D video of the evidence and its seconds there (the first video's, when the
    evidence spans several)."""
    if not evidence:
        return {"ego4d_video_uid": None, "ego4d_start_sec": None, "ego4d_end_sec": None}
    uid = evidence[0]["video_uid"]
    mine = [e for e in evidence if e["video_uid"] == uid]
    return {"ego4d_video_uid": uid,
            "ego4d_start_sec": min(float(e["source_start_s"]) for e in mine),
            "ego4d_end_sec": max(float(e["source_end_s"]) for e in mine)}


def egoschema_files(items: Iterable[dict], logs: dict[str, dict]) -> dict[str, Any]:
    questions, answers, ids = [], {}, {}
    for it in sorted((it for it in items if is_mcq(it)), key=lambda it: it["item_id"]):
        q_uid = str(uuid.uuid5(NAMESPACE, it["item_id"]))
        questions.append({"q_uid": q_uid, "question": bare_question(it),
                          **{f"option {k}": o for k, o in enumerate(it["answer"]["options"])}})
        answers[q_uid] = int(it["answer"]["label"])
        span = video_seconds(logs[it["lifelog_id"]], it["evidence"]) \
            if it["lifelog_id"] in logs else None
        ids[q_uid] = {"item_id": it["item_id"], "subtask": it["subtask"],
                      "lifelog_id": it["lifelog_id"], "video": f"videos/{it['lifelog_id']}.mp4",
                      "starting_sec": span[0] if span else None,
                      "ending_sec": span[1] if span else None,
                      "period_s": [it["period"]["start_s"], it["period"]["end_s"]],
                      **ego4d_source(it["evidence"])}
    return {"questions.json": questions, "answers.json": answers, "uid_to_lifelog.json": ids}


FORMAT = ExportFormat("egoschema", "multiple-choice items in EgoSchema's layout", order=4)


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    files = egoschema_files((it for v in items.values() for it in v), logs)
    if files["questions.json"]:
        for name, obj in files.items():
            write_json(out / name, obj)
    return {"questions": len(files["questions.json"])}
