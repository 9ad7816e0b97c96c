"""The rater sheet's columns and values, and its verdicts read back (the ``raters`` filter).

`xlebench.export.curation` writes the sheet (its docstring says what each column means); this
module reads a filled one: a missing column or an unknown value is an error naming the file,
the row and what to write.

Neptune's rater workflow: each question is rated by three raters independently (rater
replication: one row per rater and item, told apart by ``rater``), a question is discarded by
a rater who leaves any of the four "is the question valuable" checks unticked (``valuable_*``:
``N``), and the raters' marks are combined by an agreement rule (``majority``: a mark counts
where more than half of the item's raters give it; ``any``: where one does). Neptune discarded
70% of its 11,030 generated questions this way; `rating_summary` gives the same statistics
for a sheet. The paper's UI names its four checks only in a screenshot; xlebench's are the
reasons its question prompt gives for a bad question — answerable by common sense, a trivial
detail, subjective or ambiguous — and a wrong marked answer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError, DataError
from xlebench.runner.textfile import read_csv_rows

VERDICTS = ("GOOD", "BAD", "MAYBE")
NEEDS = ("video", "audio", "both", "neither")
CONDITIONS = ("cond_A", "cond_B", "cond_C", "cond_D", "cond_E")
#: Neptune's four "is the question valuable" checks (``Y`` or ``N``; an ``N`` discards):
#: the video is needed (not common sense), not a trivial detail, objective and unambiguous,
#: the marked answer right.
VALUABLE = ("valuable_video", "valuable_detail", "valuable_objective", "valuable_correct")
#: How the marks of an item's raters combine (`agreed`).
AGREEMENT = ("majority", "any")
#: What ``drop`` of the raters filter may name besides verdicts and needs.
DUPLICATE = "duplicate"
COLUMNS = ("item_id", "rater", "subtask", "lifelog_id", "video", "start_sec", "end_sec",
           "question", "A", "B", "C", "D", "E", "answer", "certificate_s", *CONDITIONS,
           *VALUABLE, "verdict", "verdict_2", "duplicate_of", "needs", "notes")


def bare(text: str) -> str:
    """A question or answer without its period and case (a duplicate asks the same thing)."""
    return " ".join(re.sub(r" in the record provided for the .*$", "", text.lower()).split())


def read_verdicts(path: str | Path, agreement: str = "majority") -> dict[str, dict[str, Any]]:
    """``{item_id: {verdict, needs, duplicate, failed, raters, marks}}`` of a filled sheet,
    each item's raters combined by ``agreement`` (`agreed`; blank rows: not rated). A missing
    column or an unknown value is an error naming the file, the row and what to write."""
    return {item: agreed(rows, agreement) for item, rows in read_ratings(path).items()}


def read_ratings(path: str | Path) -> dict[str, list[dict[str, str]]]:
    """Each item's rated rows, one per rater, in the sheet's order. Read once per version of
    the file (the filter asks for every item)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such rater sheet; export one with "
                          "export.formats=[curation] and give the filled-in CSV")
    st = p.stat()
    return _parsed(p.resolve(), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _parsed(p: Path, _mtime_ns: int, _size: int) -> dict[str, list[dict[str, str]]]:
    rows = read_csv_rows(p)
    if not rows or not {"item_id", "verdict"} <= set(rows[0]):
        raise DataError(str(p), "header", "the columns item_id and verdict (and optionally "
                        "rater, verdict_2, cond_A..cond_E, valuable_*, duplicate_of, needs)",
                        "as export/curation/items.csv has them")
    out: dict[str, list[dict[str, str]]] = {}
    seen: dict[tuple[str, str], int] = {}
    for k, row in enumerate(rows, start=2):
        rated = _row(p, k, row)
        if not any(rated.values()):
            continue
        who = (row["item_id"], (row.get("rater") or "").strip())
        if who in seen:
            raise DataError(str(p), f"row {k}, rater", f"{who[0]} was rated by rater "
                            f"{who[1]!r} already (row {seen[who]})",
                            "give each rater's row its own rater name")
        seen[who] = k
        out.setdefault(row["item_id"], []).append(rated)
    return out


def agreed(rows: Sequence[dict[str, str]], agreement: str = "majority") -> dict[str, Any]:
    """One item's raters combined: each mark (a verdict, a need, ``duplicate``) that more
    than half of them give (``majority``) or that any of them gives (``any``); the verdict
    is the worst agreed one (BAD, then MAYBE, then GOOD)."""
    need = len(rows) / 2 if agreement == "majority" else 0
    tally = Counter(m for r in rows for m in {r["verdict"], r["needs"], r["duplicate"]} if m)
    marks = sorted(m for m, n in tally.items() if n > need)
    verdict = next((v for v in ("BAD", "MAYBE", "GOOD") if v in marks), "")
    failed = sorted({f for r in rows for f in r["failed"].split(",") if f})
    return {"verdict": verdict, "needs": next((n for n in NEEDS if n in marks), ""),
            "duplicate": DUPLICATE if DUPLICATE in marks else "",
            "failed": ",".join(failed), "raters": len(rows), "marks": marks}


def rating_summary(path: str | Path, agreement: str, drop: Sequence[str],
                   known: Collection[str] | None = None, where: str = "recipe"
                   ) -> dict[str, Any]:
    """Neptune's discard statistics for a sheet: items rated, raters per item, how many the
    ``drop`` marks discard under the agreement rule (and by which mark), and how often an
    item's raters agree on keeping it or not. ``known``: the item ids the filter judged; a
    sheet rating any other item is refused (it belongs to another benchmark or another
    recipe), naming them (``where``: the recipe filtered)."""
    ratings = read_ratings(path)
    if known is not None:
        check_known(Path(path), ratings, known, where)
    dropping = {str(d).strip().lower() for d in drop}
    discarded, by_mark, unanimous = 0, Counter(), 0
    for rows in ratings.values():
        hit = [m for m in agreed(rows, agreement)["marks"] if m.lower() in dropping]
        discarded += bool(hit)
        by_mark.update(hit)
        alone = {bool({m.lower() for m in (r["verdict"], r["needs"], r["duplicate"]) if m}
                      & dropping) for r in rows}
        unanimous += len(alone) == 1
    n = len(ratings)
    per_item = Counter(len(rows) for rows in ratings.values())
    return {"items_rated": n, "raters_per_item": dict(sorted(per_item.items())),
            "agreement": agreement, "discarded": discarded,
            "discarded_share": round(discarded / n, 4) if n else None,
            "discarded_by_mark": dict(sorted(by_mark.items())),
            "raters_unanimous_share": round(unanimous / n, 4) if n else None}


def check_known(path: Path, ratings: Mapping[str, Any], known: Collection[str],
                where: str) -> None:
    """Every rated item is one the recipe generated: one line naming those that are not."""
    unknown = sorted(set(ratings) - set(known))
    if unknown:
        shown = ", ".join(unknown[:3]) + (f" and {len(unknown) - 3} more" if len(unknown) > 3
                                          else "")
        raise DataError(str(path), "item_id", f"{len(unknown)} of its {len(ratings)} rated "
                        f"items are not items of this benchmark's {where} ({shown})",
                        "a sheet of another benchmark or recipe? export this one's with "
                        "export.formats=[curation] and rate that")


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
    failed = [c for c in (*CONDITIONS, *VALUABLE) if _cell(p, k, row, c, ("Y", "N")) == "N"]
    if failed:
        verdict = "BAD"
    return {"verdict": verdict, "needs": _cell(p, k, row, "needs", NEEDS),
            "duplicate": DUPLICATE if (row.get("duplicate_of") or "").strip() else "",
            "failed": ",".join(c.removeprefix("cond_") for c in failed)}
