"""Narrations -> verb-noun actions for action counting.

``#C C picks up a cup from the table`` -> ``pick up cup``. Only the camera wearer's lines
(``#C C``) count; ``#O`` lines (other people) and ``#unsure`` ones are ignored. The two
narration passes of a video are independent descriptions of the same events, so counts come
from one pass only (the one with more narrations in the window), never from their sum.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from xlebench.library.language import base_form
from xlebench.tasks.source import Narration

_C_LINE = re.compile(r"^#c\s+c\s+(.*)$", re.IGNORECASE)
_STOP = {"a", "an", "the", "his", "her", "their", "some", "its", "my", "of", "with", "from",
         "in", "on", "into", "onto", "to", "at", "by", "for", "and", "using", "inside"}
_PARTICLES = {"up", "down", "off", "out", "away", "back", "over"}


def action_of(text: str) -> str | None:
    """``pick up cup`` from a ``#C C`` narration, or None for other lines."""
    if "#unsure" in text.lower():
        return None
    m = _C_LINE.match(text.strip())
    if not m:
        return None
    words = re.findall(r"[a-z]+", m.group(1).lower())
    if not words:
        return None
    verb = [base_form(words[0])]
    rest = words[1:]
    if rest and rest[0] in _PARTICLES:
        verb.append(rest.pop(0))
    noun = None
    for w in rest:
        if w in _STOP:
            if noun:
                break
            continue
        noun = w  # the head noun: last content word before a preposition
    return " ".join(verb + ([noun] if noun else []))


def count_actions(passes: Sequence[Sequence[Narration]], start: float, end: float
                  ) -> tuple[Counter, int]:
    """(action counts in [start, end) from the richest pass, index of that pass)."""
    best, best_pass = Counter(), -1
    for k, p in enumerate(passes):
        c = Counter(a for n in p if start <= n.t < end and (a := action_of(n.text)))
        if sum(c.values()) > sum(best.values()):
            best, best_pass = c, k
    return best, best_pass
