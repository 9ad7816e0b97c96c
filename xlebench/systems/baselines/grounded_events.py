"""The offline text-retrieval baseline's replies to MultiHop-EgoQA's event questions (E: what
followed each time; F: which came first), read from the period's captions by word overlap."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from xlebench.clock import fmt_hhmmss
from xlebench.eval.parse import grounded_reply
from xlebench.systems.baselines.captions import Caption

_AFTER = re.compile(r"^What did I do right after I (.+) each time$")
_FIRST = re.compile(r"^Did I (.+) or (.+) first$")


def _hits(pool: Sequence[Caption], text: str, words: Callable[[str], frozenset]) -> list[int]:
    q = words(text)
    return [k for k, c in enumerate(pool) if q and q <= words(c.text)]


def _span(c: Caption, width: float) -> str:
    return f"[{fmt_hhmmss(c.virtual_s)} - {fmt_hhmmss(c.virtual_s + width)}]"


def answer_event(question: str, pool: Sequence[Caption], words: Callable[[str], frozenset],
                 width: float) -> str | None:
    """A grounded reply, or None when the question is not an E or F question (or its
    actions are not in the captions)."""
    if m := _AFTER.match(question):
        after = [pool[k + 1] for k in _hits(pool, m.group(1), words) if k + 1 < len(pool)]
        if not after:
            return None
        text = "; ".join(c.text.rstrip(".") for c in after) + "."
        return grounded_reply(text, ", ".join(_span(c, width) for c in after))
    if m := _FIRST.match(question):
        a, b = _hits(pool, m.group(1), words), _hits(pool, m.group(2), words)
        if not a or not b:
            return None
        first, second = (m.group(1), m.group(2)) if min(a) < min(b) else (m.group(2), m.group(1))
        shown = [pool[k] for k in sorted(a + b)]
        return grounded_reply(f"You did {first} first, then {second}.",
                              ", ".join(_span(c, width) for c in shown))
    return None
