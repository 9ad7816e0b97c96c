"""Turning free-form model responses into spans, counts and orders; spotting refusals.

Parsers are forgiving about format (brackets or not, ``-`` or ``to`` or an en dash, HH:MM or
HH:MM:SS, numbered lists) and strict about meaning: a response they cannot read is reported
as unparseable, never silently scored as an empty answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xlebench.llm.nonanswer import transport_error

_TIME = r"(?:\+\d\s+)?\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
_SPAN = re.compile(rf"({_TIME})\s*(?:-|–|—|to|~)\s*({_TIME})")

def clock_seconds(text: str) -> float:
    day = 0
    text = text.strip()
    if text.startswith("+"):
        d, _, text = text[1:].partition(" ")
        day = int(d)
    parts = [float(p) for p in text.split(":")]
    h, m, s = (parts + [0.0])[:3]
    return day * 86400 + h * 3600 + m * 60 + s


def parse_spans(text: str) -> list[tuple[float, float]]:
    """Every ``start - end`` clock span in reading order (order is the ranking)."""
    return [(clock_seconds(a), clock_seconds(b)) for a, b in _SPAN.findall(text or "")]


_PAPER = re.compile(r"###\s*(Answer|Evidence|Rationale)\s*:?", re.IGNORECASE)


def paper_parts(reply: str) -> dict[str, str] | None:
    """MultiHop-EgoQA's reply (its Tables 10 and 16): ``###Answer`` / ``###Evidence`` /
    ``###Rationale`` sections by name; None for a reply without an ``###Answer`` section."""
    marks = list(_PAPER.finditer(reply))
    parts = {m.group(1).lower(): reply[m.end(): marks[k + 1].start() if k + 1 < len(marks)
                                       else len(reply)].strip() for k, m in enumerate(marks)}
    return parts if "answer" in parts else None


def grounded_reply(answer: str, spans: str) -> str:
    """A grounded answer in MultiHop-EgoQA's layout: ``###Answer:`` the prose, ``###Evidence:``
    the clock spans — how references are written, systems asked and exports carry it."""
    return f"###Answer: {answer}\n###Evidence: {spans}"


def clock_spans(spans: Sequence[tuple[float, float]]) -> str:
    """``[07:30:12 - 07:30:19], ...``: a system's evidence on the clock, each span at least a
    second long (a point on the clock would print as an empty span)."""
    from xlebench.clock import fmt_hhmmss

    return ", ".join(f"[{fmt_hhmmss(a)} - {fmt_hhmmss(max(b, a + 1))}]" for a, b in spans)


def answer_part(text: str) -> str:
    """The prose of a grounded text: its ``###Answer`` section, or what precedes an
    ``Evidence:`` line (the earlier layout, still read), or the whole text."""
    parts = paper_parts(text)
    if parts is not None:
        return parts["answer"]
    head, marker, _ = text.rpartition("Evidence:")
    return head if marker and head else text


def _norm(s: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", s.lower()))


def parse_counts(text: str, actions: Sequence[str]) -> dict[str, int]:
    """``action: n`` pairs for the queried actions (names matched case- and
    punctuation-insensitively; numbered list prefixes ignored)."""
    wanted = {_norm(a): a for a in actions}
    out: dict[str, int] = {}
    for part in re.split(r"[;\n]|,(?=\s*\D)", text or ""):
        m = re.match(r"^\s*(?:\d+[.)]\s*)?(.+?)\s*[:=-]\s*(\d+)\b", part)
        if m and _norm(m.group(1)) in wanted:
            out.setdefault(wanted[_norm(m.group(1))], int(m.group(2)))
    return out


def counting_window(query: str) -> tuple[int, int] | None:
    """The ``a-b`` seconds of a counting query, relative to the period's start."""
    m = re.search(r"in the (\d+)-(\d+) second record", query)
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_order(text: str) -> list[int]:
    """The integers after the last colon (``Correct order of the summaries: 7, 2, ...``), or
    every integer when there is no colon; clock times (``07:12:05``) are ignored."""
    text = re.sub(_TIME, " ", text or "")  # clock times are not summary numbers
    tail = text.rsplit(":", 1)[-1] if ":" in text else text
    return [int(x) for x in re.findall(r"\d+", tail)]


def reply_status(text: str | None, refusal: Sequence[str] = (),
                 no_information: Sequence[str] = ()) -> str | None:
    """``missing`` (no reply), ``unparseable`` (an empty one), ``transport_error`` (an HTTP
    error page or markup without text, `xlebench.llm.nonanswer`), ``no_information`` or
    ``refusal`` (by pattern — ``eval.no_information_patterns`` / ``eval.refusal_patterns`` —
    checked in that order), or None for a reply to parse."""
    if text is None:
        return "missing"
    if not text.strip():
        return "unparseable"
    if transport_error(text):
        return "transport_error"
    low = text.lower()
    for status, patterns in (("no_information", no_information), ("refusal", refusal)):
        if any(re.search(p, low, re.MULTILINE) for p in patterns):
            return status
    return None


#: "Option 2", "option B", "(option C)": a letter only where no word goes on ("optional",
#: "option e.g." are no choice), as lmms-eval's Neptune parser reads "OPTION B"
_OPTION = re.compile(r"\boption\s*\(?(\d|[A-E](?=[^\w.]|\.(?!\w)|$))\)?", re.IGNORECASE)
_BARE = re.compile(r"^\W*(?:(?:the\s+)?(?:correct\s+)?(?:answer|choice)\s*(?:is)?\s*[:\-]?\s*)?"
                   r"\(?([0-9]|[A-E])\)?\W*$", re.IGNORECASE)
_ANSWER_IS = re.compile(r"\b(?:answer|choice)\s*(?:is)?\s*[:\-]?\s*\(?([0-9]|[A-E])\)?(?=\W|$)")
#: Neptune's ``[CHOICE]: [REASON]`` reply: the choice first, then a colon and the reason.
_LEADING = re.compile(r"^\W*(?:option\s*)?\(?([0-9]|[A-E])\)?\s*:\s+\S", re.IGNORECASE)


def parse_choice(text: str, options: Sequence[str]) -> int | None:
    """The option a reply picks: ``Option 2``, a bare ``2`` or ``C`` (or ``(C)``, ``Answer: C``),
    a choice leading the reply before a colon (Neptune's ``[CHOICE]: [REASON]``: ``B: C pours
    the water because …``), or an option's text, exactly or contained in the rest of the
    reply. A reply that is exactly one option's text picks that option, before any number in it
    is read as a position ("4" to the options of a count, one of which says "4"). Several
    different options, or none, give None (unparseable): a reply that names two options has
    not chosen one.

    Letters count only in those anchored forms, never inside a sentence ("C washes a cup" is
    the camera wearer, not option C)."""
    n = len(options)

    def index(tok: str) -> int | None:
        k = int(tok) if tok.isdigit() else "ABCDE".find(tok.upper())
        return k if 0 <= k < n else None

    leading = _LEADING.match(text.strip())
    if leading and index(leading.group(1)) is not None:
        return index(leading.group(1))  # the choice named first; the reason may quote others
    whole = [k for k, o in enumerate(options) if _norm(o) and _norm(o) == _norm(text)]
    if len(whole) == 1:  # the reply is an option's text: "4" to a count's options names the
        return whole[0]  # option that says 4, as a person (and lmms-eval's parser) reads it
    picked = {index(m) for m in _OPTION.findall(text)}
    bare = _BARE.match(text.strip())
    if bare:
        picked.add(index(bare.group(1)))
    picked |= {index(m) for m in _ANSWER_IS.findall(text)}
    # an option's text is looked for in what the reply says besides "Option k": "Option 4"
    # names option 4 even where another option's text is "4" (counts)
    reply = _norm(_ANSWER_IS.sub(" ", _OPTION.sub(" ", text)))
    exact = [k for k, o in enumerate(options) if _norm(o) and _norm(o) == reply]
    if exact:
        picked.add(exact[0])
    else:
        picked |= {k for k, o in enumerate(options) if _norm(o) and _norm(o) in reply}
    picked.discard(None)
    return picked.pop() if len(picked) == 1 else None
