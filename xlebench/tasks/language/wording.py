"""The query and answer wording of the 8 X-LeBench subtasks (the paper's Table 4).

One function per shape, so every recipe, the baselines' parsers and the exports use the same
words, and `tests/tasks/test_wording.py` pins them against literal examples. Times in queries
are ``HH:MM`` on the virtual clock; answer spans are ``[HH:MM:SS - HH:MM:SS]``; "C" is the
camera wearer. Counting lists separate their actions with commas as Table 4 does; counting
answers end every entry with ``;``. Queries written by people (Ego4D NLQ) lose their own final
punctuation before the period suffix ("Where is the dog." -> "Where is the dog in the record
provided ...?").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from xlebench.clock import fmt_hhmm, fmt_hhmmss

# the counting query's window is read where replies are parsed, by the scorers too
from xlebench.eval.parse import counting_window as counting_window

#: How the three summary recipes ask for an answer, and where their references come from.
SUMMARY_FORMAT = "Answer with a short summary."
SUMMARY_SOURCE = "library summaries"


def period_text(start_s: float, end_s: float) -> str:
    """``07:00 - 07:30``: the clock's minutes, floored as the release prints them, except
    that a period shorter than its minute (a sub-minute video on a whole-minute start) ends
    on the next minute rather than reading ``05:10 - 05:10``."""
    start, end = fmt_hhmm(start_s), fmt_hhmm(end_s)
    if end == start and end_s > start_s:
        end = fmt_hhmm(int(start_s) // 60 * 60 + 60)
    return f"{start} - {end}"


def span_text(spans: Sequence[Sequence[float]]) -> str:
    """``[07:30:12 - 07:30:19], [08:01:00 - 08:01:09]``"""
    return ", ".join(f"[{fmt_hhmmss(a)} - {fmt_hhmmss(b)}]" for a, b in spans)


def retrieval_query(nlq: str, start_s: float, end_s: float) -> str:
    """``Where did I put the towel in the record provided for the 07:00 - 07:30 time
    period?`` (the Ego4D query, its question mark moved to the end)."""
    return (f"{nlq.rstrip(' ?.!;,:')} in the record provided for the "
            f"{period_text(start_s, end_s)} time period?")


def moment_words(label: str) -> str:
    """``converse_/_interact_with_someone`` -> ``converse / interact with someone``."""
    return " ".join(label.replace("_/_", " / ").replace("_", " ").split())


def moment_query(label: str, start_s: float, end_s: float) -> str:
    return (f"When did I ({moment_words(label)}) in the record provided for the "
            f"{period_text(start_s, end_s)} time period?")


def single_summary_query(start_s: float, end_s: float) -> str:
    return ("Summarize the activities performed in the recordings provided for the time "
            f"period {period_text(start_s, end_s)}.")


def multi_summary_query(phrase: str) -> str:
    """``phrase``: ``in the morning (before 12:00)``, ``in the afternoon (12:00-17:00)``..."""
    return f"Summarize the activities performed in the recordings provided {phrase}."


def multi_summary_phrase(query: str) -> str:
    """The period phrase a `multi_summary_query` names (what its summary was aggregated for)."""
    return query.removeprefix(multi_summary_query("")[:-1]).rstrip(".").strip()


HOLISTIC_QUERY = "Summarize the activities performed in all provided life-log recordings."


def holistic_day_query(day: int) -> str:
    """A multi-day log's summary of one day (1-based)."""
    return ("Summarize the activities performed in the life-log recordings provided for "
            f"day {day}.")


def counting_query(start_s: float, end_s: float, a: int, b: int,
                   actions: Sequence[str]) -> str:
    listing = ", ".join(f"{i + 1}. {act}" for i, act in enumerate(actions))
    return (f"In the record provided for the {period_text(start_s, end_s)} time period, how "
            "many times have each of the actions in the following list been performed in "
            f"the {a}-{b} second record of the period? Action list: {listing}")


def counting_actions(query: str) -> list[str]:
    """The actions listed by a `counting_query` (for systems that read the question): comma
    separated, or ``;``-terminated as xlebench wrote them before 2026-11-24."""
    listing = query.split("Action list:", 1)[-1]
    return [a.strip() for a in re.findall(r"\d+\.\s*([^;,]+?)\s*(?:[;,]|$)", listing.strip())]


def counting_answer(actions: Sequence[str], counts: Mapping[str, int]) -> str:
    """``cut onion: 2; wash pan: 1;``"""
    return " ".join(f"{act}: {counts[act]};" for act in actions)


def ordering_query(summaries: Sequence[str]) -> str:
    listing = " ".join(f"Summary {i}: {text}" for i, text in enumerate(summaries))
    return ("Please rank the following summaries of camera wearer C's activities in order of "
            f"presentation of the life-log recordings. {listing}")


def clip_ordering_query(summaries: Sequence[str], start_s: float, end_s: float) -> str:
    """The clips of one record to be put in order (`summary_ordering` with ``across=record``)."""
    listing = " ".join(f"Summary {i}: {text}" for i, text in enumerate(summaries))
    return ("Please rank the following summaries of parts of camera wearer C's record provided "
            f"for the {period_text(start_s, end_s)} time period in the order they happen. "
            f"{listing}")


def ordering_answer(order: Sequence[int]) -> str:
    """``Correct order of the summaries: 2, 0, 1.`` (the paper's answer, its final stop
    included)."""
    return "Correct order of the summaries: " + ", ".join(map(str, order)) + "."
