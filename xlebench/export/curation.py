"""A sheet for human raters (EgoSchema's curation; Neptune's rater test), and its verdicts
read back.

``export/curation/items.csv`` has one row per item: where to watch (the life-log video and the
seconds of the evidence in it), the question, options A-E where the item has them, the answer,
and three columns for the rater to fill: ``verdict`` (EgoSchema's GOOD / BAD / MAYBE),
``needs`` (what answering took, Neptune's rater test: video / audio / both / neither) and
``notes``. Any spreadsheet opens it; save it as CSV with the same header. The ``raters``
filter (`xlebench.tasks.filters`) reads the filled sheet back and drops items by verdict or
by need (``drop: [BAD, audio]``), counting the items no rater saw.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from xlebench.errors import ConfigError, DataError
from xlebench.export.egoschema import video_seconds

VERDICTS = ("GOOD", "BAD", "MAYBE")
NEEDS = ("video", "audio", "both", "neither")
COLUMNS = ("item_id", "subtask", "lifelog_id", "video", "start_sec", "end_sec", "question",
           "A", "B", "C", "D", "E", "answer", "verdict", "needs", "notes")


def curation_csv(items: Iterable[dict], logs: dict[str, dict]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for it in sorted(items, key=lambda it: it["item_id"]):
        ans = it["answer"]
        opts = list(ans.get("options") or [])
        span = video_seconds(logs[it["lifelog_id"]], it["evidence"]) \
            if it["lifelog_id"] in logs else None
        w.writerow({"item_id": it["item_id"], "subtask": it["subtask"],
                    "lifelog_id": it["lifelog_id"], "video": f"videos/{it['lifelog_id']}.mp4",
                    "start_sec": span[0] if span else "", "end_sec": span[1] if span else "",
                    "question": it.get("provenance", {}).get("question") or it["query"],
                    **{"ABCDE"[k]: o for k, o in enumerate(opts[:5])},
                    "answer": "ABCDE"[ans["label"]] if opts and ans.get("label") is not None
                    and ans["label"] < 5 else ans.get("text", ""),
                    "verdict": "", "needs": "", "notes": ""})
    return out.getvalue()


def read_verdicts(path: str | Path) -> dict[str, dict[str, str]]:
    """``{item_id: {verdict, needs}}`` of a filled sheet (blank cells: not rated). A missing
    column or an unknown value is an error naming the file, the row and what to write. Read
    once per version of the file (the filter asks for every item)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such rater sheet; export one with "
                          "export.formats=[curation] and give the filled-in CSV")
    st = p.stat()
    return _parsed(p.resolve(), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _parsed(p: Path, _mtime_ns: int, _size: int) -> dict[str, dict[str, str]]:
    rows = list(csv.DictReader(p.read_text(encoding="utf-8-sig").splitlines()))
    if not rows or not {"item_id", "verdict"} <= set(rows[0]):
        raise DataError(str(p), "header", "the columns item_id and verdict (and optionally "
                        "needs)", "as export/curation/items.csv has them")
    out: dict[str, dict[str, str]] = {}
    for k, row in enumerate(rows, start=2):
        verdict = (row.get("verdict") or "").strip().upper()
        needs = (row.get("needs") or "").strip().lower()
        if verdict and verdict not in VERDICTS:
            raise DataError(str(p), f"row {k}, verdict", f"one of {', '.join(VERDICTS)} or "
                            f"blank, got {verdict!r}")
        if needs and needs not in NEEDS:
            raise DataError(str(p), f"row {k}, needs", f"one of {', '.join(NEEDS)} or blank, "
                            f"got {needs!r}")
        if verdict or needs:
            out[row["item_id"]] = {"verdict": verdict, "needs": needs}
    return out
