"""A sheet for human raters (EgoSchema's curation; Neptune's rater test); its verdicts are read
back by `xlebench.tasks.screening.rater_sheet`.

``export/curation/items.csv`` has one row per item: where to watch (the life-log video and the
seconds of the evidence in it), the question, options A-E where the item has them, the answer,
the measured certificate, and columns for the rater to fill:

* ``A`` .. ``E`` conditions (EgoSchema's curation instructions), ``Y`` or ``N``:
  ``cond_A`` answerable from the video and needing more than a second of it, ``cond_B`` the
  marked answer is correct, ``cond_C`` every wrong answer is wrong, ``cond_D`` the
  certificate is at least 30 s, ``cond_E`` not a boring frequency ("how many times")
  question. Any ``N`` makes the set BAD, whatever its verdict.
* ``valuable_video`` .. ``valuable_correct``: Neptune's four "is the question valuable"
  checks, ``Y`` or ``N`` (`xlebench.tasks.screening.rater_sheet.VALUABLE`); an ``N`` makes
  it BAD too.
* ``rater``: who rated the row. Several raters per item (Neptune used three) each fill a copy
  of the row with their name; the ``raters`` filter combines them (``agreement``).
* ``verdict`` (GOOD / BAD / MAYBE) and ``verdict_2``, the second round: EgoSchema re-curates
  the sets the first round passed (and fixes its MAYBEs); a second-round verdict, where given,
  replaces the first.
* ``duplicate_of``: pre-filled with an earlier item asking the same question with the same
  answer (the rater may clear or fill it); a filled cell marks the item a duplicate.
* ``needs`` (what answering took, Neptune's rater test: video / audio / both / neither) and
  ``notes``.

Any spreadsheet opens it; save it as CSV with the same header. The ``raters`` filter
(`xlebench.tasks.screening.filters`) reads the filled sheet back and drops items by verdict, need or
duplicate (``drop: [BAD, MAYBE, audio, duplicate]``), counting the items no rater saw.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xlebench.config.exports import ExportFormat
from xlebench.export.egoschema import video_seconds
from xlebench.export.job import ExportJob
from xlebench.runner.atomic import write_text
from xlebench.tasks.screening.rater_sheet import COLUMNS, CONDITIONS, VALUABLE, bare


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
        same = first.setdefault((bare(question), bare(answer)), it["item_id"])
        w.writerow({"item_id": it["item_id"], "subtask": it["subtask"],
                    "lifelog_id": it["lifelog_id"], "video": f"videos/{it['lifelog_id']}.mp4",
                    "start_sec": span[0] if span else "", "end_sec": span[1] if span else "",
                    "question": question,
                    **{"ABCDE"[k]: o for k, o in enumerate(opts[:5])},
                    "answer": "ABCDE"[ans["label"]] if opts and ans.get("label") is not None
                    and ans["label"] < 5 else ans.get("text", ""),
                    "certificate_s": (it.get("certificate") or {}).get("seconds", ""),
                    "rater": "", **dict.fromkeys((*CONDITIONS, *VALUABLE), ""),
                    "verdict": "", "verdict_2": "",
                    "duplicate_of": same if same != it["item_id"] else "", "needs": "",
                    "notes": ""})
    return out.getvalue()


FORMAT = ExportFormat("curation", "a sheet for raters (on request)", order=5, default=False)


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    every = [it for v in items.values() for it in v]
    write_text(out / "items.csv", curation_csv(every, logs))
    return {"items": len(every)}
