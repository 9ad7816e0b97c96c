"""Speech transcripts a filter or a baseline reads (``{video_uid: [{start_s, end_s, text}]}``,
Neptune's ASR), read once per file and checked whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError, DataError


def load_transcripts(path: str) -> dict[str, list]:
    """``{video_uid: [{start_s, end_s, text}]}`` (read once per file)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such transcript file (transcript_only filter); give "
                          "JSON {video_uid: [{start_s, end_s, text}]}")
    key = (p.resolve(), p.stat().st_mtime_ns, p.stat().st_size)
    if key not in _TRANSCRIPTS:
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise DataError(str(p), f"line {exc.lineno}", "valid JSON") from None
        if not isinstance(data, dict) or not all(
                isinstance(v, list) and all({"start_s", "end_s", "text"} <= set(t) for t in v)
                for v in data.values()):
            raise DataError(str(p), "$", "an object {video_uid: [{start_s, end_s, text}]}")
        _TRANSCRIPTS[key] = data
    return _TRANSCRIPTS[key]


_TRANSCRIPTS: dict[Any, dict[str, list]] = {}
