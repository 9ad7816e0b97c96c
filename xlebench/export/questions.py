"""The questions-only view (``export/questions/``): what a system or a predictions submitter
reads, and nothing that holds an answer.

``annotations/*.jsonl`` carries answers, evidence and provenance (source video spans), and the
benchmark folder also holds plans, life-log traces and the library (whose summaries are the
summary answers). The view keeps per item only what a model is shown — the query, the options
of a multiple-choice item, the period and the video — under opaque ids: a life-log id spells
its persona (``colombia-enfj-…``), which a blind reader turns into a location prior, so items
are ``q-<hash>`` and videos ``v-<hash>.mp4`` (links to ``videos/``). The hashes are keyed by
the benchmark's answers (`answer_key`): item ids are made of public parts (location, MBTI,
the seed's digest, subtask, index), so an unkeyed hash would be undone by trying them all,
while the key is known only to whoever holds the answers. Predictions may name items by
either id (`resolve_ids`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from xlebench.config.exports import ExportFormat
from xlebench.errors import DataError
from xlebench.export.job import ExportJob
from xlebench.runner.atomic import write_jsonl

#: What a question row holds; nothing else of an item leaves the benchmark through this view
#: (and ``split``, dev or test, in a benchmark with a held-out split: xlebench/split.py).
FIELDS = ("question_id", "subtask", "task", "category", "query", "options", "period",
          "video")


def answer_key(items: Iterable[dict]) -> str:
    """A digest of every item's id and answer: the same for every run of one benchmark,
    unknown to anyone who has only its questions."""
    h = hashlib.sha256(b"xlebench-answer-key")
    for it in sorted(items, key=lambda i: i["item_id"]):
        h.update(json.dumps([it["item_id"], it["answer"]], sort_keys=True).encode())
    return h.hexdigest()


def _opaque(prefix: str, name: str, key: str) -> str:
    digest = hmac.new(key.encode(), f"{prefix}:{name}".encode(), hashlib.sha256).hexdigest()
    return f"{prefix}-{digest[:16]}"


def question_id(item_id: str, key: str) -> str:
    """The item's id in the questions view (``key``: the benchmark's `answer_key`)."""
    return _opaque("q", item_id, key)


def video_name(lifelog_id: str, key: str) -> str:
    """The life log's video file in the questions view."""
    return _opaque("v", lifelog_id, key) + ".mp4"


def question_row(item: dict, rendered: bool, key: str) -> dict[str, Any]:
    options = item["answer"].get("options")
    return {"question_id": question_id(item["item_id"], key), "subtask": item["subtask"],
            "task": item["task"], "category": item["category"], "query": item["query"],
            "options": list(options) if options else None,
            "period": {"start_s": item["period"]["start_s"], "end_s": item["period"]["end_s"]},
            "video": f"videos/{video_name(item['lifelog_id'], key)}" if rendered else None,
            **({"split": item["split"]} if "split" in item else {})}


def question_files(items: Mapping[str, list[dict]], rendered: set[str], key: str
                   ) -> dict[str, list[dict]]:
    """``<subtask>.jsonl`` rows, in question-id order (item-id order would group a life log's
    items, which their ids no longer name); ``key``: the benchmark's `answer_key`."""
    return {f"{sub}.jsonl": sorted((question_row(it, it["lifelog_id"] in rendered, key)
                                    for it in its), key=lambda r: r["question_id"])
            for sub, its in items.items()}


def video_names(items: Mapping[str, list[dict]], key: str) -> dict[str, str]:
    """Per life log, its video's name in the questions view."""
    return {lid: video_name(lid, key) for lid in sorted({it["lifelog_id"] for its in
                                                        items.values() for it in its})}


def resolve_ids(path: Path, responses: Mapping[str, str], items: Iterable[dict]
                ) -> dict[str, str]:
    """Predictions keyed by item id, whichever id (item or question) each line names; an id
    that is neither stays as it is, for the unknown-id check to name. One item predicted
    under both of its ids is an error, never a silent choice."""
    items = list(items)
    key = answer_key(items)
    alias = {question_id(it["item_id"], key): it["item_id"] for it in items}
    out: dict[str, str] = {}
    for named, reply in responses.items():
        item_id = alias.get(named, named)
        if item_id in out:
            raise DataError(str(path), "item_id", f"{item_id!r} is predicted twice, under its "
                            f"item id and its question id {question_id(item_id, key)!r}",
                            "keep one prediction per item")
        out[item_id] = reply
    return out


FORMAT = ExportFormat("questions", "the questions-only view a system or a predictions "
                      "submitter reads: query, options, period and video under opaque ids, "
                      "no answer", order=0)


def write(out: Path, items: dict[str, list[dict]], logs: dict[str, dict],
          job: ExportJob) -> dict[str, Any]:
    key = answer_key(it for its in items.values() for it in its)
    for name, rows in question_files(items, set(job.upstream["render"].records), key).items():
        write_jsonl(out / name, rows)
    # kept in the cache for the links below, never written into the view
    return {"questions": {s: len(v) for s, v in items.items()},
            "video_names": video_names(items, key)}
