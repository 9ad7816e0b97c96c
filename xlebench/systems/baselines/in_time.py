"""Reading EgoSchema's offline question forms in time: options that only the narrations'
times tell apart (the order of three acts; what C does between two acts), scored from the
captions' timestamps by the offline text-retrieval baseline."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from xlebench.systems.baselines.words import word_set

#: EgoSchema's offline forms (`xlebench.tasks.egoschema.egoschema_offline.question`); Neptune's
#: own ordered forms are read by `answer_short`.
_ORDER = "the order of what C does"
_BETWEEN = re.compile(r"^What does C do after (.+?) and before (.+?)(?: in the record\b|\?|$)")
_THEN = ", then "


def in_time(question: str, options: Sequence[str], line: Sequence[tuple[float, frozenset]]
             ) -> list[float] | None:
    """Scores for options that only the narrations' times tell apart (EgoSchema's offline
    forms), or None for other questions. *The order of what C does* (options ``C a, then
    b, then c``): how many of an option's consecutive acts the captions show in that
    order (each act at the median time of the captions holding its words; an act no caption
    holds scores nothing). *What C does after X and before Y*: how many captions between
    the last one holding X and the first later one holding Y hold the option's words."""
    def times(act: str) -> list[float]:
        need = _undoubled(word_set(act) - {"c"})
        return [t for t, ws in line if need and need <= _undoubled(ws)]
    parts = [o.strip().removeprefix("C ").split(_THEN) for o in options]
    if _ORDER in question and all(len(p) > 1 for p in parts):
        def ordered(acts: list[str]) -> float:
            when = [sorted(times(a)) for a in acts]
            if not all(when):
                return 0.0
            mid = [w[len(w) // 2] for w in when]
            return float(sum(a < b for a, b in zip(mid, mid[1:], strict=False)) + 1)
        return [ordered(p) for p in parts]
    m = _BETWEEN.search(question)
    if m is None:
        return None
    first, last = times(m.group(1)), times(m.group(2))
    if not first:
        return None
    start = max(first)
    end = min((t for t in last if t > start), default=math.inf)
    inside = [ws for t, ws in line if start < t < end]
    return [float(sum(_undoubled(word_set(o) - {"c"}) <= _undoubled(ws) for ws in inside))
            for o in options]


@lru_cache(maxsize=1 << 14)
def _undoubled(ws: frozenset[str]) -> frozenset[str]:
    """Stems with a doubled last consonant undone, on both sides of a match ("stirring"
    stems to "stirr", "stirs" to "stir")."""
    return frozenset(w[:-1] if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou" else w
                     for w in ws)
