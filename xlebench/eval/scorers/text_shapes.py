"""What text scorers and their blind members read of an item: its query's shape, its reference
text, and the reply that says nothing."""

from __future__ import annotations

import re
from functools import lru_cache

from xlebench.eval.parse import answer_part

#: A reply that says nothing about the video (one member of the panel).
GENERIC_SUMMARY = "C carries out everyday activities and moves around."

_TOKEN = re.compile(r"</?T\d*>")
_DIGITS = re.compile(r"\d+")


def strip_tokens(text: str) -> str:
    """``You <T1>opened the fridge</T1> 3 times.`` -> ``You opened the fridge 3 times.``"""
    return " ".join(_TOKEN.sub("", text).split())


def query_shape(item: dict) -> str:
    """The query without its numbers: items of one shape ask the same thing of other times."""
    return _shape(item["query"])


@lru_cache(maxsize=1 << 16)
def _shape(query: str) -> str:  # asked of each training item at every fit, like `reference`
    return _DIGITS.sub("#", query)


def reference(item: dict) -> str:
    """The reference text a reply is scored against."""
    return _reference(item["answer"]["text"])


@lru_cache(maxsize=1 << 16)
def _reference(text: str) -> str:  # the panel asks it of each training item at every fit
    return strip_tokens(answer_part(text))
