"""Reading a predictions file (``{"item_id", "response"}`` per line) and checking it covers
the benchmark it is scored on: shared by the evaluate stage and ``xlebench-score``."""

from __future__ import annotations

import json
from pathlib import Path

from xlebench.errors import ConfigError, DataError


def load_predictions(path: Path) -> dict[str, str]:
    """``{"item_id": ..., "response": ...}`` per line; clear errors naming file and line.

    An empty file and a second line for the same item are errors, not silent choices.
    """
    if not path.is_file():
        raise ConfigError(f"eval.predictions={path}: file not found")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(str(path), "$", f"expected UTF-8 text ({exc.reason})") from None
    out: dict[str, str] = {}
    first_line: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(str(path), f"line {n}", f"expected a JSON object ({exc.msg})") \
                from None
        if not isinstance(row, dict) or not isinstance(row.get("item_id"), str) \
                or not isinstance(row.get("response"), str):
            raise DataError(str(path), f"line {n}", 'expected an object with string fields '
                            '"item_id" and "response"')
        item = row["item_id"]
        if item in first_line:
            raise DataError(str(path), f"line {n}.item_id", f"{item!r} was already predicted on "
                            f"line {first_line[item]}", "keep one prediction per item")
        first_line[item] = n
        out[item] = row["response"]
    if not out:
        raise DataError(str(path), "$", "expected one JSON object per line, found none",
                        'write {"item_id": ..., "response": ...} for each question of '
                        "export/questions/*.jsonl (its question_id) or item of "
                        "annotations/*.jsonl")
    return out


def check_covers(path: Path, responses: dict[str, str], items: list[dict]) -> None:
    """A file that leaves items out would be scored on what it chose to answer: refused."""
    missing = [it["item_id"] for it in items if it["item_id"] not in responses]
    if missing:
        raise DataError(str(path), "item_id", f"covers {len(items) - len(missing)} of "
                        f"{len(items)} items of this benchmark (missing e.g. "
                        f"{', '.join(missing[:3])})", "predict every question of "
                        "export/questions/*.jsonl, or set eval.allow_partial=true to score "
                        "the missing ones as wrong answers")


def check_known(path: Path, responses: dict[str, str], known: set[str]) -> None:
    """Predictions for items this benchmark does not have are an error (a file from another
    benchmark or another seed), never silently ignored."""
    unknown = sorted(set(responses) - known)
    if unknown:
        raise DataError(str(path), "item_id", f"{len(unknown)} of {len(responses)} ids are not "
                        f"items of this benchmark (e.g. {', '.join(unknown[:3])})",
                        "predict the questions of this benchmark's export/questions/*.jsonl")
