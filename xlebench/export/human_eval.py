"""MultiHop-EgoQA's human-evaluation sheet (`xlebench.tasks.multihop.human_eval`): a seeded 10%
of the test split's MultiHop items, each with where it plays in its life-log video and its
question; people fill ``answer`` and ``evidence`` (``[start, end]`` seconds from the clip's
start, as many pairs as the answer needs) and ``eval.human_sheet=<the filled CSV>`` scores
them as the benchmark's human row.

``export/human_eval/sheet.csv`` holds no reference answer or evidence: it is what the people
answering read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xlebench.config.exports import ExportFormat
from xlebench.export.job import ExportJob
from xlebench.render.timeline import log_mapping
from xlebench.runner.atomic import write_text
from xlebench.tasks.multihop.human_eval import COLUMNS, SHARE, sample

FORMAT = ExportFormat("human_eval", "MultiHop's human-evaluation sheet (on request)", order=6,
                      default=False)


def watch_window(log: dict, period: dict) -> tuple[float, float] | None:
    """Where the clip asked about plays in the stitched life-log video (seconds), from the
    render's mapping: the pieces its clock period overlaps, first start to last end."""
    pieces = log_mapping(log)
    a, b = float(period["start_s"]), float(period["end_s"])
    on = [(p.out_start_s + max(a, p.virtual_start_s) - p.virtual_start_s,
           p.out_start_s + min(b, p.virtual_start_s + p.duration_s) - p.virtual_start_s)
          for p in pieces if p.virtual_start_s < b and a < p.virtual_start_s + p.duration_s]
    return (round(on[0][0], 3), round(on[-1][1], 3)) if on else None


def sheet_rows(items: Sequence[dict], logs: dict[str, dict]) -> list[dict[str, str]]:
    """One row per sampled item: where to watch and the question; the answer and evidence
    cells are left for the person (never the reference: the sheet is what they read)."""
    rows = []
    for it in sample(items):
        log = logs.get(it["lifelog_id"])
        window = watch_window(log, it["period"]) if log else None
        rows.append({"item_id": it["item_id"], "lifelog_id": it["lifelog_id"],
                     "video": f"videos/{it['lifelog_id']}.mp4",
                     "clip_start_sec": f"{window[0]:g}" if window else "",
                     "clip_end_sec": f"{window[1]:g}" if window else "",
                     "question": it["query"], "answer": "", "evidence": "", "notes": ""})
    return rows


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    rows = sheet_rows([it for v in items.values() for it in v], logs)
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_text(out / "sheet.csv", text.getvalue())
    return {"items": len(rows), "share": SHARE}
