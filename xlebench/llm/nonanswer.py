"""Replies that are not answers: a proxy's error page, markup without text, nothing at all.

A server (or a proxy in front of it) can answer 200 with the body of an HTTP error page
(``<html><body><h1>502 Bad Gateway</h1>...``). Stored as the model's reply it would be scored
as a wrong answer, cached, and replayed by every rerun against a healthy server. The clients
retry such replies and never cache them; the scorer gives them the status ``transport_error``
(`xlebench.eval.score`), counted per cell, should a predictions file hold them.
"""

from __future__ import annotations

import re

_TAG = re.compile(r"<[^>]{0,2000}>")
_PAGE = re.compile(r"^\s*(?:<!doctype\s+html|<html\b|<head\b|<body\b)", re.IGNORECASE)
#: Status lines of the HTTP errors proxies and servers print in their pages.
_STATUS = re.compile(
    r"\b(?:50[0-4]|429|408)\s+(?:bad gateway|service (?:temporarily )?unavailable|gateway "
    r"time-?out|internal server error|too many requests|request time-?out|not implemented)\b",
    re.IGNORECASE)


def transport_error(text: str | None) -> str | None:
    """Why ``text`` is not a model's answer (None when it may be one)."""
    if text is None or not text.strip():
        return "an empty reply"
    stripped = _TAG.sub(" ", text)
    if _PAGE.match(text):
        status = _STATUS.search(stripped)
        return f"an HTML page{f' ({status.group(0)})' if status else ''}"
    if not stripped.strip():
        return "markup without text"
    if len(stripped) < 200 and _STATUS.search(stripped) and stripped != text:
        return f"an error page ({_STATUS.search(stripped).group(0)})"
    return None
