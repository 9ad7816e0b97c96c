"""Reading outside JSON with errors that name the file, the JSON path and the expectation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from xlebench.errors import DataError


def load_json(path: Path) -> Any:
    """Parse a JSON file; a truncated or invalid file is a `DataError` with line and column."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise DataError(str(path), "$", "file not found") from None
    except IsADirectoryError:
        raise DataError(str(path), "$", "is a folder, not a JSON file",
                        hint="give the file itself (e.g. <folder>/xlebench_video_info.json)"
                        ) from None
    except RecursionError:
        raise DataError(str(path), "$", "expected valid JSON of a sane depth; its arrays or "
                        "objects nest too deeply to read", hint="the file is not a library "
                        "file: check the path") from None
    except json.JSONDecodeError as exc:
        raise DataError(
            str(path), "$",
            f"expected valid JSON; parsing stopped at line {exc.lineno} column {exc.colno}: "
            f"{exc.msg}", hint="the file may be truncated: download it again",
        ) from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), "$", f"expected UTF-8 text ({exc.reason})") from None


def json_path(prefix: str, loc: tuple) -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def validate(adapter: TypeAdapter, value: Any, file: Path, where: str, hint: str = "") -> Any:
    """Validate one value with pydantic; the first error becomes a `DataError` (``hint``:
    what the user can do about it)."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        got = err.get("input")
        shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
        raise DataError(str(file), json_path(where, tuple(err["loc"])),
                        f"{err['msg']} (got {shown[:80]})", hint) from None


def expect(cond: bool, file: Path, where: str, expected: str) -> None:
    if not cond:
        raise DataError(str(file), where, expected)


def objects(value: Any, file: Path, where: str) -> Iterator[tuple[str, dict]]:
    """``(JSON path, object)`` of each element of a list of objects (absent or null: none); a
    list of anything else, or no list, is a `DataError` naming the path (``clips: "abc"``)."""
    if value is None:
        return
    expect(isinstance(value, list), file, where, "expected a list of objects")
    for k, element in enumerate(value):
        expect(isinstance(element, dict), file, f"{where}[{k}]",
               f"expected an object, got {type(element).__name__}")
        yield f"{where}[{k}]", element
