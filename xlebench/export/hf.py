"""A Hugging Face dataset of a compiled benchmark: one parquet file per subtask, all with one
explicit Arrow schema, a life-log table, and a dataset card.

Why an explicit schema: Arrow infers types from the values it sees, so the annotation JSONL
turns counting answers into a struct with one field per action ever counted and a time that
happens to be whole into an integer; files of different subtasks then cannot be concatenated.
Here every answer kind has its typed column (spans ``list<list<double>>``, counts
``list<struct<action, count>>``, order ``list<int64>``, options/label for multiple choice),
times are always ``double`` seconds on the life log's clock, and what has no column of its own
(event roles, relations, grounding tokens, provenance, recipe-specific fields) is JSON text.
`row_to_item` inverts `item_to_row` exactly (tested).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from xlebench import __version__
from xlebench.config.exports import ExportFormat
from xlebench.export.arrow_schema import ITEMS, LIFELOGS
from xlebench.export.card import dataset_card, dataset_id
from xlebench.export.job import ExportJob
from xlebench.runner.atomic import write_text

#: Answer fields with a column of their own; any other answer field goes to ``answer_extra``.
ANSWER_COLUMNS = ("text", "spans", "counts", "order", "options", "label")
#: Item fields with a column of their own; any other goes to ``extra``.
ITEM_COLUMNS = ("item_id", "task", "subtask", "lifelog_id", "category", "query", "answer",
                "period", "evidence", "certificate", "provenance")

def _json(obj: Any) -> str | None:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False) if obj else None


def item_to_row(item: dict) -> dict[str, Any]:
    ans = item["answer"]
    extra_ans = {k: v for k, v in ans.items() if k not in ANSWER_COLUMNS}
    extra = {k: v for k, v in item.items() if k not in ITEM_COLUMNS}
    return {
        **{k: item[k] for k in ITEM_COLUMNS[:6]},
        "answer_text": ans.get("text", ""),
        "answer_spans": [[float(a), float(b)] for a, b in ans.get("spans", [])],
        "answer_counts": [{"action": a, "count": int(c)} for a, c in ans.get("counts", {}).items()],
        "answer_order": [int(i) for i in ans.get("order", [])],
        "options": list(ans["options"]) if "options" in ans else None,
        "label": ans.get("label"),
        "answer_extra": _json(extra_ans),
        "period_start_s": float(item["period"]["start_s"]),
        "period_end_s": float(item["period"]["end_s"]),
        "evidence": [{"video_uid": e["video_uid"], "source_start_s": float(e["source_start_s"]),
                      "source_end_s": float(e["source_end_s"])} for e in item["evidence"]],
        "certificate": item.get("certificate"),
        "provenance": _json(item.get("provenance")) or "{}",
        "extra": _json(extra),
        "video": f"videos/{item['lifelog_id']}.mp4",
    }


def row_to_item(row: dict[str, Any]) -> dict[str, Any]:
    """The xlebench item a row was made from (what scorers and `xlebench-score` read)."""
    answer: dict[str, Any] = {"text": row["answer_text"],
                              "spans": [list(s) for s in row["answer_spans"]],
                              "counts": {c["action"]: c["count"] for c in row["answer_counts"]},
                              "order": list(row["answer_order"])}
    if row["options"] is not None:
        answer["options"] = list(row["options"])
    if row["label"] is not None:
        answer["label"] = row["label"]
    answer.update(json.loads(row["answer_extra"] or "{}"))
    item = {k: row[k] for k in ITEM_COLUMNS[:6]}
    item.update(answer=answer, period={"start_s": row["period_start_s"],
                                       "end_s": row["period_end_s"]},
                evidence=[dict(e) for e in row["evidence"]],
                provenance=json.loads(row["provenance"]))
    if row["certificate"] is not None:
        item["certificate"] = dict(row["certificate"])
    item.update(json.loads(row["extra"] or "{}"))
    return item


def items_table(items: Iterable[dict]) -> pa.Table:
    return pa.Table.from_pylist([item_to_row(it) for it in items], schema=ITEMS)


def lifelogs_table(logs: Iterable[dict]) -> pa.Table:
    rows = []
    for log in logs:
        segs = log["segments"]
        rows.append({
            "lifelog_id": log["lifelog_id"], "persona_id": log["persona_id"],
            "category": log["category"], "n_chunks": log["n_chunks"],
            "start_s": float(segs[0]["start_s"]) if segs else None,
            "end_s": float(segs[-1]["end_s"]) if segs else None,
            "video_s": float(sum(s["source_end_s"] - s.get("source_start_s", 0.0)
                                 for s in segs)),
            "segments": [{"index": s["index"], "video_uid": s["video_uid"],
                          "start_s": float(s["start_s"]), "end_s": float(s["end_s"]),
                          "source_start_s": float(s.get("source_start_s", 0.0)),
                          "source_end_s": float(s["source_end_s"]),
                          "relaxation": s.get("match", {}).get("relaxation"),
                          "score": s.get("match", {}).get("score")} for s in segs],
            "video": f"videos/{log['lifelog_id']}.mp4"})
    return pa.Table.from_pylist(rows, schema=LIFELOGS)


def write_table(table: pa.Table, path: Path) -> None:
    """Deterministic bytes: no pandas metadata, fixed writer settings."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table.replace_schema_metadata(None), path, compression="zstd",
                   write_statistics=False, store_schema=True)


def read_items(path: Path) -> list[dict]:
    return [row_to_item(r) for r in pq.read_table(path, schema=ITEMS).to_pylist()]


FORMAT = ExportFormat("hf", "one parquet file per subtask with one Arrow schema, the life-log "
                      "table, the dataset card", order=1)


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    sizes = {}
    for sub, its in items.items():
        table = items_table(its)
        write_table(table, out / "data" / f"{sub}.parquet")
        sizes[sub] = table.nbytes
    table = lifelogs_table(logs.values())
    write_table(table, out / "lifelogs.parquet")
    sizes["lifelogs"] = table.nbytes
    fps = {s: job.upstream[s].fingerprint for s in ("simulate", "annotate")}
    write_text(out / "README.md", dataset_card(
        name=job.bench_name, items=items, logs=list(logs.values()),
        config_yaml=job.config_yaml, fingerprints=fps, version=__version__,
        library_kind=job.library_kind, rendered=len(job.upstream["render"].records),
        num_bytes=sizes))
    return {"rows": {s: len(v) for s, v in items.items()},
            "dataset": dataset_id(job.bench_name, fps)}
