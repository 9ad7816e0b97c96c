"""The rater sheet's columns and values, and its verdicts read back (the ``raters`` filter).

`xlebench.export.curation` writes the sheet (its docstring says what each column means); this
module reads a filled one: a missing column or an unknown value is an error naming the file,
the row and what to write.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path

from xlebench.errors import ConfigError, DataError

VERDICTS = ("GOOD", "BAD", "MAYBE")
NEEDS = ("video", "audio", "both", "neither")
CONDITIONS = ("cond_A", "cond_B", "cond_C", "cond_D", "cond_E")
#: What ``drop`` of the raters filter may name besides verdicts and needs.
DUPLICATE = "duplicate"
COLUMNS = ("item_id", "subtask", "lifelog_id", "video", "start_sec", "end_sec", "question",
           "A", "B", "C", "D", "E", "answer", "certificate_s", *CONDITIONS, "verdict",
           "verdict_2", "duplicate_of", "needs", "notes")


def bare(text: str) -> str:
    """A question or answer without its period and case (a duplicate asks the same thing)."""
    return " ".join(re.sub(r" in the record provided for the .*$", "", text.lower()).split())


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
                        "verdict_2, cond_A..cond_E, duplicate_of, needs)",
                        "as export/curation/items.csv has them")
    out: dict[str, dict[str, str]] = {}
    for k, row in enumerate(rows, start=2):
        rated = _row(p, k, row)
        if any(rated.values()):
            out[row["item_id"]] = rated
    return out


def _cell(p: Path, k: int, row: dict, column: str, allowed: tuple[str, ...]) -> str:
    value = (row.get(column) or "").strip()
    value = value.lower() if allowed == NEEDS else value.upper()
    if value and value not in allowed:
        raise DataError(str(p), f"row {k}, {column}", f"one of {', '.join(allowed)} or "
                        f"blank, got {value!r}")
    return value


def _row(p: Path, k: int, row: dict) -> dict[str, str]:
    """One rated row: the verdict of the last round given, BAD where a condition failed."""
    verdict = (_cell(p, k, row, "verdict_2", VERDICTS) or _cell(p, k, row, "verdict", VERDICTS))
    failed = [c for c in CONDITIONS if _cell(p, k, row, c, ("Y", "N")) == "N"]
    if failed:
        verdict = "BAD"
    return {"verdict": verdict, "needs": _cell(p, k, row, "needs", NEEDS),
            "duplicate": DUPLICATE if (row.get("duplicate_of") or "").strip() else "",
            "failed": ",".join(c.removeprefix("cond_") for c in failed)}
