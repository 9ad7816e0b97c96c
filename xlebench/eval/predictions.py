"""Reading a predictions file (``{"item_id", "response"}`` per line) and checking it covers
the benchmark it is scored on: shared by the evaluate stage and ``xlebench-score``."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError, DataError

#: Replies longer than this (characters) are cut before scoring and counted: a reply is an
#: answer, and a megabyte pasted into one would be copied into every file that shows it.
MAX_REPLY_CHARS = 20_000


def cut_note(coverage: Mapping[str, Any]) -> str | None:
    """The line every door prints when replies were cut to `MAX_REPLY_CHARS` (the table's
    ``coverage``), so that nobody reads a cut reply's score as the whole reply's."""
    if not coverage.get("truncated"):
        return None
    return (f"{coverage['truncated']} replies longer than {coverage['max_reply_chars']} "
            "characters were cut to that length before scoring.")


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


def check_covers(path: Path, responses: dict[str, str], items: list[dict],
                 partial: str = "eval.allow_partial=true") -> None:
    """A file that leaves items out would be scored on what it chose to answer: refused
    (``partial``: how the command at hand scores the missing ones as wrong instead)."""
    missing = [it["item_id"] for it in items if it["item_id"] not in responses]
    if missing:
        raise DataError(str(path), "item_id", f"covers {len(items) - len(missing)} of "
                        f"{len(items)} items of this benchmark (missing e.g. "
                        f"{', '.join(missing[:3])})", "predict every question of "
                        f"export/questions/*.jsonl, or pass {partial} to score the missing "
                        "ones as wrong answers")


def check_known(path: Path, responses: dict[str, str], known: set[str]) -> None:
    """Predictions for items this benchmark does not have are an error (a file from another
    benchmark or another seed), never silently ignored."""
    unknown = sorted(set(responses) - known)
    if unknown:
        raise DataError(str(path), "item_id", f"{len(unknown)} of {len(responses)} ids are not "
                        f"items of this benchmark (e.g. {', '.join(unknown[:3])})",
                        "predict the questions of this benchmark's export/questions/*.jsonl")


def declared_model(path: Path) -> str | None:
    """The ``model`` the file's lines declare (optional; one model per file)."""
    seen: dict[str, int] = {}
    for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        model = json.loads(line).get("model") if line.strip() else None
        if model is None:
            continue
        if not isinstance(model, str) or not model.strip():
            raise DataError(str(path), f"line {n}.model", "expected the answering model's "
                            "name as a non-empty string")
        seen.setdefault(model, n)
    if len(seen) > 1:
        (a, la), (b, lb) = list(seen.items())[:2]
        raise DataError(str(path), f"line {lb}.model", f"{b!r} differs from {a!r} (line {la})",
                        "keep one model's replies per file")
    return next(iter(seen), None)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def predictions_key(path: Path, name: str | None, published: Path, sha: str,
                    claimed: Mapping[str, str] | None = None) -> str:
    """The results folder of a predictions file: ``predictions-<name>``, named by
    ``eval.name``, else by the model its lines declare, else by the file's stem.

    A folder of that key that holds another file's scores, published or claimed by a run
    writing it now (``claimed``: ``{key: digest}``, `xlebench.publish.claim_name`), is never
    replaced by a name the user did not choose: the file gets ``predictions-<name>-<digest>``
    beside it (``runs/a/preds.jsonl`` and ``runs/b/preds.jsonl``). A chosen ``eval.name`` that
    is taken is refused (`check_name_free`). ``sha``: the file's `digest`."""
    base = "predictions-" + folder_slug(name or declared_model(path) or path.stem)
    held = {published_digest(published / base), (claimed or {}).get(base)} - {None}
    if name is not None or held <= {sha}:
        return base
    return f"{base}-{sha[:8]}"


def check_name_free(key: str, sha: str, published: Path, replace: bool,
                    claimed: Mapping[str, str] | None = None) -> None:
    """``eval.name`` names a folder holding another predictions file's scores, or one another
    run is writing now: one line (``eval.replace=true`` replaces published scores, never a
    running evaluation's)."""
    writing = (claimed or {}).get(key)
    if writing is not None and writing != sha:
        raise ConfigError(f"eval.name: {published / key} is being written by another "
                          f"evaluation now (predictions sha256 {writing[:12]}, this one "
                          f"{sha[:12]}); choose another eval.name, or rerun when it is done")
    held = published_digest(published / key)
    if held is not None and held != sha and not replace:
        raise ConfigError(f"eval.name: {published / key} holds the scores of another "
                          f"predictions file (sha256 {held[:12]}, this one {sha[:12]}); "
                          "choose another eval.name, or set eval.replace=true to replace them")


def published_digest(folder: Path) -> str | None:
    """The predictions digest a published results folder was scored from (None: none)."""
    try:
        record = json.loads((folder / "evaluation.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return (record.get("fingerprints") or {}).get("predictions_sha256")


def capped(responses: dict[str, str], limit: int = MAX_REPLY_CHARS
           ) -> tuple[dict[str, str], int]:
    """Replies cut to ``limit`` characters, and how many were cut."""
    cut = sum(len(v) > limit for v in responses.values())
    return {k: v[:limit] for k, v in responses.items()}, cut


def folder_slug(identity: str, salt: str = "") -> str:
    """``identity`` as a folder name, readable and collision-free: ``/`` becomes ``--``
    (``openai--Qwen--Qwen2-VL-7B-Instruct``); when that cannot be read back (other characters,
    a ``--`` already there, a salt such as a local path, a very long name) a digest of
    identity and salt is appended, so two identities never share a folder."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", identity.replace("/", "--")).strip("-.")
    if not salt and "--" not in identity and readable == identity.replace("/", "--") \
            and 0 < len(readable) <= 96:
        return readable
    digest = hashlib.sha256(f"{identity}\0{salt}".encode()).hexdigest()[:8]
    return f"{readable[:80] or 'model'}-{digest}"


def write_predictions(path: Path, responses: Mapping[str, str]) -> Path:
    """A predictions file (``{"item_id", "response"}`` per line, in id order) of replies held
    in memory, as `load_predictions` reads it back."""
    from xlebench.runner.atomic import write_jsonl

    write_jsonl(path, [{"item_id": str(k), "response": str(v)}
                       for k, v in sorted(responses.items())])
    return path
