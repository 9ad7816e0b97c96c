"""A sheet for human raters (EgoSchema's curation; Neptune's rater test), and its verdicts
read back.

``export/curation/items.csv`` has one row per item: where to watch (the life-log video and the
seconds of the evidence in it), the question, options A-E where the item has them, the answer,
the measured certificate, and columns for the rater to fill:

* ``A`` .. ``E`` conditions (EgoSchema's curation instructions), ``Y`` or ``N``:
  ``cond_A`` answerable from the video and needing more than a second of it, ``cond_B`` the
  marked answer is correct, ``cond_C`` every wrong answer is wrong, ``cond_D`` the
  certificate is at least 30 s, ``cond_E`` not a boring frequency ("how many times")
  question. Any ``N`` makes the set BAD, whatever its verdict.
* ``verdict`` (GOOD / BAD / MAYBE) and ``verdict_2``, the second round: EgoSchema re-curates
  the sets the first round passed (and fixes its MAYBEs); a second-round verdict, where given,
  replaces the first.
* ``duplicate_of``: pre-filled with an earlier item asking the same question with the same
  answer (the rater may clear or fill it); a filled cell marks the item a duplicate.
* ``needs`` (what answering took, Neptune's rater test: video / audio / both / neither) and
  ``notes``.

Any spreadsheet opens it; save it as CSV with the same header. The ``raters`` filter
(`xlebench.tasks.filters`) reads the filled sheet back and drops items by verdict, need or
duplicate (``drop: [BAD, MAYBE, audio, duplicate]``), counting the items no rater saw.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from xlebench.errors import ConfigError, DataError
from xlebench.export.egoschema import video_seconds

VERDICTS = ("GOOD", "BAD", "MAYBE")
NEEDS = ("video", "audio", "both", "neither")
CONDITIONS = ("cond_A", "cond_B", "cond_C", "cond_D", "cond_E")
#: What ``drop`` of the raters filter may name besides verdicts and needs.
DUPLICATE = "duplicate"
COLUMNS = ("item_id", "subtask", "lifelog_id", "video", "start_sec", "end_sec", "question",
           "A", "B", "C", "D", "E", "answer", "certificate_s", *CONDITIONS, "verdict",
           "verdict_2", "duplicate_of", "needs", "notes")


def curation_csv(items: Iterable[dict], logs: dict[str, dict]) -> str:
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    first: dict[tuple[str, str], str] = {}
    for it in sorted(items, key=lambda it: it["item_id"]):
        ans = it["answer"]
        opts = list(ans.get("options") or [])
        span = video_seconds(logs[it["lifelog_id"]], it["evidence"]) \
            if it["lifelog_id"] in logs else None
        question = it.get("provenance", {}).get("question") or it["query"]
        answer = opts[ans["label"]] if opts and ans.get("label") is not None else \
            ans.get("text", "")
        same = first.setdefault((_bare(question), _bare(answer)), it["item_id"])
        w.writerow({"item_id": it["item_id"], "subtask": it["subtask"],
                    "lifelog_id": it["lifelog_id"], "video": f"videos/{it['lifelog_id']}.mp4",
                    "start_sec": span[0] if span else "", "end_sec": span[1] if span else "",
                    "question": question,
                    **{"ABCDE"[k]: o for k, o in enumerate(opts[:5])},
                    "answer": "ABCDE"[ans["label"]] if opts and ans.get("label") is not None
                    and ans["label"] < 5 else ans.get("text", ""),
                    "certificate_s": (it.get("certificate") or {}).get("seconds", ""),
                    **dict.fromkeys(CONDITIONS, ""), "verdict": "", "verdict_2": "",
                    "duplicate_of": same if same != it["item_id"] else "", "needs": "",
                    "notes": ""})
    return out.getvalue()


def _bare(text: str) -> str:
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
