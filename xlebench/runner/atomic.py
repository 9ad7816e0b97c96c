"""Atomic file writes: write a temporary sibling, then rename over the target.

A reader (or a resumed run) therefore sees either the old file or the complete new one,
never a torn write, even when the process is killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def dumps(obj: Any) -> str:
    """Canonical JSON used for every record we write: sorted keys, stable floats, UTF-8."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    write_text(path, dumps(obj))


def write_jsonl(path: Path, rows: Iterable[Any]) -> int:
    """Write one compact canonical JSON object per line; returns the row count."""
    lines = [json.dumps(r, sort_keys=True, ensure_ascii=False, allow_nan=False) for r in rows]
    write_text(path, "".join(line + "\n" for line in lines))
    return len(lines)


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)
