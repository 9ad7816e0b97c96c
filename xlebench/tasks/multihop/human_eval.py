"""MultiHop-EgoQA's human baseline: people who did not curate the benchmark answer a random 10%
of the test split and mark the time spans that support each answer, and their replies are
scored like a system's (the paper's "Human" row).

`sample` draws the items (by the items' own ids, which come from the inputs and the seed: a
benchmark's draw is fixed and another seed's benchmark draws anew); `xlebench.export.human_eval`
writes the sheet people fill (``COLUMNS``); `read_sheet` turns a filled sheet into replies in the paper's reply layout (``###Answer`` /
``###Evidence`` with seconds from the clip's start, which `GroundedAnswer` reads), and the
evaluate stage scores them with the recipe's own scorer (``eval.human_sheet``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable
from pathlib import Path

from xlebench.errors import ConfigError, DataError
from xlebench.eval.parse import grounded_reply
from xlebench.runner.textfile import read_csv_rows

SUBTASK = "multihop_qa"
#: The paper's share of the test split.
SHARE = 0.10
COLUMNS = ("item_id", "lifelog_id", "video", "clip_start_sec", "clip_end_sec", "question",
           "answer", "evidence", "notes")
_PAIR = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\]")


def sample(items: Iterable[dict], share: float = SHARE) -> list[dict]:
    """The test-split MultiHop items people answer: each item whose id hashes below ``share``
    (all MultiHop items where the benchmark keeps no split). A draw per item rather than a
    fixed count, so that any part of a benchmark (its dev logs, one evaluation's life logs)
    draws exactly the sampled items it holds: the sheet and the evaluation agree."""
    return sorted((it for it in items if it["subtask"] == SUBTASK
                   and it.get("provenance", {}).get("hop_split", "test") == "test"
                   and _draw(it["item_id"]) < share), key=lambda it: it["item_id"])


def _draw(item_id: str) -> float:
    digest = hashlib.sha256(f"multihop-human-eval:{item_id}".encode()).hexdigest()
    return int(digest[:15], 16) / 16 ** 15


def read_sheet(path: str | Path, known: Collection[str] | None) -> dict[str, str]:
    """``{item_id: reply}`` of a filled sheet's answered rows, in the paper's reply layout.
    A missing column, an item answered on two rows, an unknown item or evidence that is not
    ``[start, end]`` pairs of seconds from the clip's start is an error naming the file, the
    row and what to write (``known``: the item ids the sheet may answer, the benchmark's
    sampled items; None reads the sheet's form alone)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"eval.human_sheet={p}: no such file; export the sheet with "
                          "export.formats=[human_eval] and give it back filled in")
    rows = read_csv_rows(p)
    if not rows or not {"item_id", "answer", "evidence"} <= set(rows[0]):
        raise DataError(str(p), "header", "the columns item_id, answer and evidence",
                        "as export/human_eval/sheet.csv has them")
    out: dict[str, str] = {}
    first: dict[str, int] = {}
    for k, row in enumerate(rows, start=2):
        answer, evidence = (row.get("answer") or "").strip(), (row.get("evidence") or "").strip()
        if not answer:
            continue
        item = (row.get("item_id") or "").strip()
        if item in first:
            raise DataError(str(p), f"row {k}.item_id", f"{item!r} is answered on row "
                            f"{first[item]} already", "keep one answered row per item")
        first[item] = k
        if known is not None and item not in known:
            raise DataError(str(p), f"row {k}.item_id", f"{item!r} is not an item of this "
                            "benchmark's human-evaluation sample",
                            "keep the item_id the exported sheet gives")
        pairs = _PAIR.findall(evidence)
        if evidence and (not pairs or any(float(a) > float(b) for a, b in pairs)):
            raise DataError(str(p), f"row {k}.evidence", f"{evidence!r} is not a list of "
                            "[start, end] seconds from the clip's start",
                            "write e.g. [12, 20], [95.5, 110]")
        spans = ", ".join(f"[{a}, {b}]" for a, b in pairs)
        out[item] = grounded_reply(answer, f"[{spans}]")
    return out
