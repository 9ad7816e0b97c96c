"""The questions-only view (``export/questions/``): what a system or a predictions submitter
reads, and nothing that holds an answer.

``annotations/*.jsonl`` carries answers, evidence and provenance (source video spans), and the
benchmark folder also holds plans, life-log traces and the library (whose summaries are the
summary answers). The view keeps per item only what a model is shown — the query, the options
of a multiple-choice item, the period and the video — under opaque ids: a life-log id spells
its persona (``colombia-enfj-…``), which a blind reader turns into a location prior, so items
are ``q-<hash>`` and videos ``v-<hash>.mp4`` (links to ``videos/``). Predictions may name
items by either id (`resolve_ids`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from xlebench.errors import DataError

#: What a question row holds; nothing else of an item leaves the benchmark through this view.
FIELDS = ("question_id", "subtask", "task", "category", "query", "options", "period",
          "video")


def _opaque(prefix: str, name: str) -> str:
    digest = hashlib.sha256(f"xlebench-{prefix}:{name}".encode()).hexdigest()
    return f"{prefix}-{digest[:16]}"


def question_id(item_id: str) -> str:
    """The item's id in the questions view."""
    return _opaque("q", item_id)


def video_name(lifelog_id: str) -> str:
    """The life log's video file in the questions view."""
    return _opaque("v", lifelog_id) + ".mp4"


def question_row(item: dict, rendered: bool) -> dict[str, Any]:
    options = item["answer"].get("options")
    return {"question_id": question_id(item["item_id"]), "subtask": item["subtask"],
            "task": item["task"], "category": item["category"], "query": item["query"],
            "options": list(options) if options else None,
            "period": {"start_s": item["period"]["start_s"], "end_s": item["period"]["end_s"]},
            "video": f"videos/{video_name(item['lifelog_id'])}" if rendered else None}


def question_files(items: Mapping[str, list[dict]], rendered: set[str]
                   ) -> dict[str, list[dict]]:
    """``<subtask>.jsonl`` rows, in question-id order (item-id order would group a life log's
    items, which their ids no longer name)."""
    return {f"{sub}.jsonl": sorted((question_row(it, it["lifelog_id"] in rendered)
                                    for it in its), key=lambda r: r["question_id"])
            for sub, its in items.items()}


def resolve_ids(path: Path, responses: Mapping[str, str], items: Iterable[dict]
                ) -> dict[str, str]:
    """Predictions keyed by item id, whichever id (item or question) each line names; an id
    that is neither stays as it is, for the unknown-id check to name. One item predicted
    under both of its ids is an error, never a silent choice."""
    alias = {question_id(it["item_id"]): it["item_id"] for it in items}
    out: dict[str, str] = {}
    for key, reply in responses.items():
        item_id = alias.get(key, key)
        if item_id in out:
            raise DataError(str(path), "item_id", f"{item_id!r} is predicted twice, under its "
                            f"item id and its question id {question_id(item_id)!r}",
                            "keep one prediction per item")
        out[item_id] = reply
    return out
