"""Parsing free-form responses; detecting failed replies."""

from __future__ import annotations

import pytest

from xlebench.config.schema import EvalConfig
from xlebench.eval.parse import parse_counts, parse_order, parse_spans, reply_status

PATTERNS = {"refusal": EvalConfig().refusal_patterns,
            "no_information": EvalConfig().no_information_patterns}


@pytest.mark.parametrize("text, spans", [
    ("[07:12:05 - 07:12:30]", [(25925, 25950)]),
    ("It happened at 07:12 to 07:14, and maybe [08:00:00 – 08:00:10].",
     [(25920, 26040), (28800, 28810)]),
    ("[+1 00:10:00 - +1 00:11:00]", [(87000, 87060)]),
    ("[10:00:10 - 10:00:00]", [(36010, 36000)]),  # reversed kept as given: scores 0
    ("no times here", []),
])
def test_parse_spans(text, spans) -> None:
    assert parse_spans(text) == spans


def test_parse_counts() -> None:
    actions = ["pick up cup", "wash dishes", "open door"]
    text = "1. Pick up cup: 3\n2. wash dishes = 1; open door - 0"
    assert parse_counts(text, actions) == {"pick up cup": 3, "wash dishes": 1, "open door": 0}
    assert parse_counts("pick up cup: 2; fly: 9", actions) == {"pick up cup": 2}


def test_parse_order() -> None:
    assert parse_order("Correct order of the summaries: 7, 2, 0, 1") == [7, 2, 0, 1]
    assert parse_order("3 1 2") == [3, 1, 2]
    assert parse_order("I cannot tell") == []
    assert parse_order("[07:28:30 - 07:29:00]") == [], "clock times are not an order"


@pytest.mark.parametrize("text,status", [
    (None, "missing"), ("", "unparseable"), ("   ", "unparseable"),
    ("There is no information available about that.", "no_information"),
    ("This is not mentioned in the records.", "no_information"),
    ("I'm sorry, but I cannot determine the time.", "refusal"),
    ("As an AI, I can't help with that.", "refusal"),
])
def test_reply_status(text, status) -> None:
    assert reply_status(text, **PATTERNS) == status


def test_answers_are_replies_to_parse() -> None:
    assert reply_status("[07:12:05 - 07:12:30]", **PATTERNS) is None
    assert reply_status("C cooks pasta and then washes the dishes.", **PATTERNS) is None
    assert reply_status("n/a", refusal=[r"^n/a$"]) == "refusal"
