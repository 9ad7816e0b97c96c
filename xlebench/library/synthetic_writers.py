"""Serialise synthetic videos into the real Ego4D and X-LeBench file layouts."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from pathlib import Path

from xlebench.library.ego4d_facts import UNIVERSITY_COUNTRY
from xlebench.runner.rng import derive_seed

DATE = "2022-11-01"


def _uid(*parts: str) -> str:
    return str(uuid.UUID(int=derive_seed(0, *parts) << 64 | derive_seed(1, *parts), version=4))


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def ego4d_json(videos, spec) -> dict:
    rows = []
    for v in videos:
        rows.append({
            "video_uid": v.uid, "duration_sec": v.duration, "scenarios": v.scenario_names,
            "video_source": v.university, "split_em": v.split, "split_av": None,
            "split_fho": None, "device": "GoPro Hero 7",
            "video_metadata": {"fps": 30.0, "num_frames": int(v.duration * 30),
                               "display_resolution_width": 1920,
                               "display_resolution_height": 1080},
            "has_redacted_regions": v.redacted,
            "redacted_intervals": ([{"start_sec": 0.0, "end_sec": min(30.0, v.duration)}]
                                   if v.redacted else []),
            "video_components": [{"component_idx": 0, "redacted": v.redacted}],
            "origin_video_id": f"synthetic_{v.uid[:8]}", "physical_setting_name": None,
        })
    return {"date": DATE, "version": "v2", "description": f"xlebench synthetic corpus (seed "
            f"{spec.seed}, {spec.n_videos} videos)", "videos": rows, "clips": [],
            "concurrent_video_sets": [], "physical_settings": []}


def _pass(v, events, windows_summaries, pass_no: int) -> dict:
    narrs = [{"timestamp_sec": e.t, "timestamp_frame": int(round(e.t * 30)),
              "narration_text": e.text(), "annotation_uid": _uid(v.uid, str(pass_no), str(i)),
              "_unmapped_timestamp_sec": e.t} for i, e in enumerate(events)]
    if v.shuffled:
        random.Random(derive_seed(0, v.uid, "shuffle")).shuffle(narrs)
    sums = [{"start_sec": a, "end_sec": b, "summary_text": text,
             "annotation_uid": _uid(v.uid, "s", str(pass_no), str(i))}
            for i, ((a, b), text) in enumerate(windows_summaries)]
    return {"narrations": narrs, "summaries": sums}


def narration_json(videos) -> dict:
    out = {}
    for v in videos:
        ws = list(zip(v.windows, v.summaries, strict=True))
        entry: dict = {"status": "redacted_partial" if v.redacted else "complete"}
        if not v.drop_pass1:
            entry["narration_pass_1"] = _pass(v, v.events, ws, 1)
        if v.pass2 is not None:
            entry["narration_pass_2"] = _pass(v, v.pass2, ws, 2)
        out[v.uid] = entry
    return out


def _clip_row(v, a: float, b: float, k: int, kind: str, annotations: list) -> dict:
    return {"clip_uid": _uid(v.uid, kind, str(k)), "video_start_sec": a, "video_end_sec": b,
            "video_start_frame": int(round(a * 30)), "video_end_frame": int(round(b * 30)),
            "clip_start_sec": 0.0, "clip_end_sec": round(b - a, 7),
            "source_clip_uid": _uid(v.uid, kind, "src", str(k)), "annotations": annotations}


def nlq_json(videos, split: str) -> dict:
    rows = []
    for v in videos:
        if v.split != split or not v.nlq:
            continue
        clips = [_clip_row(v, c["clip"][0], c["clip"][1], c["k"], "nlq",
                           [{"annotation_uid": _uid(v.uid, "nlqa", str(c["k"])),
                             "language_queries": c["queries"]}]) for c in v.nlq]
        rows.append({"video_uid": v.uid, "split": split, "clips": clips})
    return {"version": "v2", "date": DATE, "description": f"NLQ {split} (synthetic)",
            "manifest": f"nlq_{split}_manifest.csv", "videos": rows}


def moments_json(videos, split: str) -> dict:
    rows = []
    for v in videos:
        if v.split != split or not v.moments:
            continue
        clips = []
        for c in v.moments:
            anns = [{"annotator_uid": _uid(v.uid, "ann", str(c["k"]), str(j)), "labels": labs}
                    for j, labs in enumerate(c["annotators"]) if labs]
            clips.append(_clip_row(v, c["clip"][0], c["clip"][1], c["k"], "mq", anns))
        rows.append({"video_uid": v.uid, "split": split, "clips": clips})
    return {"version": "v2", "date": DATE, "description": f"Moments {split} (synthetic)",
            "manifest": f"moments_{split}_manifest.csv", "videos": rows}


def video_info_json(videos) -> list:
    """The X-LeBench library form, holding the generator's true labels."""
    rows = []
    for v in videos:
        if v.redacted:
            continue
        rows.append({"video_uid": v.uid, "video_duration": v.duration,
                     "video_source": UNIVERSITY_COUNTRY[v.university], "video_scenarios": v.scenario_names,
                     "time_period": "not know" if v.time_period == "uncertain" else v.time_period,
                     "main_scene": v.scene, "consolidated_summary": v.consolidated})
    return rows


def write_all(videos, spec, root: Path, write_text: Callable[[Path, str], None]) -> dict:
    ann = root / "v2" / "annotations"
    write_text(root / "ego4d.json", _dump(ego4d_json(videos, spec)))
    write_text(ann / "narration.json", _dump(narration_json(videos)))
    for split in ("train", "val"):
        write_text(ann / f"nlq_{split}.json", _dump(nlq_json(videos, split)))
        write_text(ann / f"moments_{split}.json", _dump(moments_json(videos, split)))
    info = video_info_json(videos)
    write_text(root / "video_info.json", json.dumps(info, ensure_ascii=False, indent=4))
    return {
        "videos": len(videos),
        "narrations": sum(len(v.events) + len(v.pass2 or []) for v in videos),
        "nlq_queries": sum(len(c["queries"]) for v in videos for c in v.nlq),
        "moment_labels": sum(len(a) for v in videos for c in v.moments for a in c["annotators"]),
        "video_info_rows": len(info),
    }
