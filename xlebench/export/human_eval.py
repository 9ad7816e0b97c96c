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
from xlebench.errors import DataError, UserError
from xlebench.export.job import ExportJob
from xlebench.render.timeline import log_mapping
from xlebench.runner.atomic import write_text
from xlebench.runner.textfile import read_csv_rows
from xlebench.tasks.multihop.human_eval import COLUMNS, SHARE, SUBTASK, sample

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
    every = [it for v in items.values() for it in v]
    rows = sheet_rows(every, logs)
    if not rows:  # a header-only sheet would be handed to people without a word
        hops = sum(it["subtask"] == SUBTASK for it in every)
        why = (f"none of its {hops} {SUBTASK} items is in the {SHARE:.0%} sample people "
               "answer; compile more life logs" if hops else
               f"this benchmark has no {SUBTASK} items; compile with {SUBTASK} in tasks")
        raise UserError(f"export.formats=[human_eval]: the sheet would have no rows: {why}, "
                        "or drop human_eval from export.formats")
    _write_sheet(out / "sheet.csv", rows)
    return {"items": len(rows), "share": SHARE}


def _write_sheet(path: Path, rows: Sequence[dict[str, str]],
                 extra: Sequence[str] = ()) -> None:
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=[*COLUMNS, *extra], lineterminator="\n",
                       extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    write_text(path, text.getvalue())


#: The files of this export that people fill in place: a re-export keeps what they wrote.
FILLED = ("sheet.csv",)
_FILLED_COLUMNS = ("answer", "evidence", "notes")


def filled_rows(published: Path, shown: Path | None = None) -> dict[str, dict[str, str]]:
    """The rows of a published sheet in which people filled ``answer``, ``evidence``,
    ``notes`` or a column they added (``rater``), by item id, read in the dialect the
    spreadsheet saved it in (before a re-export clears the format's folder). One item filled
    on two rows differently cannot be carried over exactly: refused, naming both rows
    (``shown``: the published file's path, for that line)."""
    rows = read_csv_rows(published)
    added = [c for c in (rows[0] if rows else {}) if c and c not in COLUMNS]
    out: dict[str, dict[str, str]] = {}
    at: dict[str, int] = {}
    for k, row in enumerate(rows, start=2):
        kept = {c: (row.get(c) or "") for c in (*_FILLED_COLUMNS, *added)}
        if not any(v.strip() for v in kept.values()):
            continue
        item = (row.get("item_id") or "").strip()
        if item in out and out[item] != kept:
            raise DataError(str(shown or published), f"row {k}.item_id", f"{item!r} is filled on row "
                            f"{at[item]} already, with other cells; a re-export keeps one row "
                            "per item", "keep one filled row per item (a second rater's "
                            "answers go in a sheet of their own), then export again")
        out[item], at[item] = kept, k
    return out


def carry_over(filled: dict[str, dict[str, str]], fresh: Path, shown: Path) -> None:
    """Merge the cells people filled (`filled_rows` of the published sheet), columns they
    added included, into the freshly written one, row by item id. A filled row whose item
    the fresh sheet no longer holds would be lost: refused, naming the file, so the person
    moves it aside first (``shown``: the published file's path, for that line)."""
    if not filled:
        return
    rows = read_csv_rows(fresh)
    lost = sorted(set(filled) - {r["item_id"] for r in rows})
    if lost:
        raise DataError(str(shown), "item_id", f"{len(lost)} filled row(s) are of items "
                        f"this export no longer samples (e.g. {lost[0]!r}); exporting would "
                        "lose them", "move the filled sheet aside (e.g. to sheet.filled.csv) "
                        "and export again")
    extra = list(dict.fromkeys(c for cells in filled.values() for c in cells
                               if c not in COLUMNS))
    for row in rows:
        row.update(filled.get(row["item_id"], {}))
    _write_sheet(fresh, rows, extra)
