"""Reading a user's text file (a filled sheet) or a published one that may have been edited
by hand: one line naming the file when it is not UTF-8 text or not JSON, instead of a
`UnicodeDecodeError` or `JSONDecodeError` traceback."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from xlebench.errors import DataError


def read_utf8(path: Path) -> str:
    """The file's text (a byte-order mark dropped, as spreadsheet programs write one)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(str(path), "$", f"expected UTF-8 text ({exc.reason} at byte "
                        f"{exc.start})", "save the sheet as CSV UTF-8") from None
    except IsADirectoryError:
        raise DataError(str(path), "$", "is a folder, not a file",
                        "give the file itself") from None


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    """A CSV sheet's rows as dicts keyed by its header row (a quoted cell may hold line
    breaks, as a spreadsheet's notes do), in whatever dialect a spreadsheet saved it:
    `sheet_delimiter`, a byte-order mark, CRLF or LF line ends."""
    text = read_utf8(path)
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=sheet_delimiter(text)))


#: What a spreadsheet separates cells with: a comma, a semicolon where the decimal mark is
#: the comma (German, French, Brazilian locales), a tab for "text (tab delimited)".
_DELIMITERS = (",", ";", "\t")


def sheet_delimiter(text: str) -> str:
    """The delimiter of a sheet's header row: the one splitting it into the most cells
    outside quotes (a comma on a tie; a header names plain columns, so it never holds one)."""
    first = text.split("\n", 1)[0]
    return max(_DELIMITERS, key=lambda d: (first.count(d), d == ","))


#: What to do about a published file that does not read back.
_EDITED = ("a published file that does not read back was edited or replaced by hand; restore "
           "it, or recompile the benchmark with overwrite=true")


def read_published_json(path: Path) -> Any:
    """One JSON document xlebench published (a table, a record)."""
    try:
        return json.loads(read_utf8(path))
    except json.JSONDecodeError as exc:
        raise DataError(str(path), f"line {exc.lineno}", f"expected JSON ({exc.msg})",
                        _EDITED) from None


def read_published_jsonl(path: Path) -> list[Any]:
    """The JSON lines xlebench published (items, scores), blank lines skipped."""
    out = []
    for n, line in enumerate(read_utf8(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DataError(str(path), f"line {n}", f"expected one JSON object per line "
                            f"({exc.msg})", _EDITED) from None
    return out
