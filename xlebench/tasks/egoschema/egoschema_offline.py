"""EgoSchema-style questions written without a model, about one window of a record (at most
``window_s``, EgoSchema's three minutes), whose answers need several moments of it.

A window's *phases* are three acts C repeats in it (at least ``min_repeats`` times each) whose
runs do not interleave: all of one before the next begins. Two kinds of question read the
phases, so a single frame never decides:

========  ===========================================================  =========================
kind      question                                                     wrong answers
========  ===========================================================  =========================
sequence  which best describes the order of what C does                the same three acts in
                                                                       other orders, each built
                                                                       as the answer is
between   what C does after the first phase and before the last one    other acts of the window
                                                                       (outside that stretch),
                                                                       then of the record
========  ===========================================================  =========================

Windows slide over the video (`clear_windows`) until one holds three clear phases, and never
overlap. A window is asked one question, of a kind drawn at random: two about one window would answer
each other. Every wrong answer is about the same record (EgoSchema's hard negatives), so the words of the
options do not tell the right one apart: a reader of the window's narrations must place them in
time. The certificate is the stretch each phase runs over (sequence) or the stretch between the
two named phases (between); EgoSchema's condition D asks for at least 30 seconds. No question
asks how often (condition E). The full-information oracle re-derives the answer from the
narrations with the same functions (`solve`).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from xlebench.tasks.language.events import STATES, Event, events, phrase

KINDS = ("sequence", "between")
#: Seconds an act's narration stands for around its timestamp (Ego4D narrations are points).
BEFORE_S, AFTER_S = 2.0, 4.0


@dataclass(frozen=True)
class WindowRules:
    window_s: float = 180.0
    min_events: int = 20
    min_repeats: int = 2
    #: How far a window slides when it does not qualify (``window_s``: a fixed grid).
    step_s: float = 180.0


@dataclass(frozen=True)
class Phase:
    action: str
    times: tuple[float, ...]

    @property
    def span(self) -> tuple[float, float]:
        return self.times[0] - BEFORE_S, self.times[-1] + AFTER_S


def windows(evs: Sequence[Event], a: float, b: float, r: WindowRules,
            keep: Callable[[tuple[float, float]], bool] | None = None
            ) -> list[tuple[float, float]]:
    """Non-overlapping ``window_s`` windows of [a, b) with at least ``min_events`` acts (and
    that ``keep``): from ``a``, a window that qualifies is taken and the next one starts where
    it ends; one that does not slides by ``step_s``. A fixed grid (``step_s = window_s``) left
    most windows with three clear phases cut in two (151 on the 152 videos of the validity
    script's egoschema benchmark; sliding by 10 s finds 427)."""
    times = sorted(e.t for e in evs)  # a window's acts counted by bisection: it slides often
    out, start = [], a
    while start + r.window_s <= b + 1e-9:
        w = (start, start + r.window_s)
        dense = bisect_left(times, w[1]) - bisect_left(times, w[0]) >= r.min_events
        if dense and (keep is None or keep(w)):
            out.append(w)
            start += r.window_s
        else:
            start += r.step_s
    return out


def video_acts(passes: Sequence) -> list[Event]:
    """C's acts in the whole video, from its richest narration pass over the whole video:
    windows slide from the video's start, not a segment's, so a window is the same window
    (one source key) with the same phases in every log that shows it."""
    return events(passes, 0.0, math.inf)


def in_segment(evs: Sequence[Event], seg: dict) -> list[Event]:
    """The acts inside a log segment's stretch of its video."""
    a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    return [e for e in evs if a <= e.t < b]


def clear_windows(evs: Sequence[Event], seg: dict, r: WindowRules) -> list[tuple[float, float]]:
    """The video's windows (`windows` over its acts, `video_acts`) with three clear phases
    that lie inside the segment."""
    if not evs:
        return []
    wins = windows(evs, 0.0, evs[-1].t + r.window_s, r,
                   keep=lambda w: phases(evs, *w, r) is not None)
    a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    return [w for w in wins if a <= w[0] and w[1] <= b + 1e-9]


def phases(evs: Sequence[Event], lo: float, hi: float, r: WindowRules) -> list[Phase] | None:
    """Three acts C repeats in [lo, hi) (at least ``min_repeats`` times each, never a state)
    whose runs do not interleave — every time of one before the next one's first — the three
    with the longest runs together (then the earliest); None when no three qualify."""
    runs: dict[str, list[float]] = {}
    for e in evs:
        if lo <= e.t < hi and e.action.split()[0] not in STATES:
            runs.setdefault(e.action, []).append(e.t)
    cands = sorted((tuple(ts), a) for a, ts in runs.items() if len(ts) >= r.min_repeats)
    best, key = None, None
    for trio in combinations(cands, 3):
        (x, _), (y, _), (z, _) = trio
        if not (x[-1] < y[0] and y[-1] < z[0]):
            continue
        k = (-sum(ts[-1] - ts[0] for ts, _ in trio), x[0])
        if key is None or k < key:
            best, key = trio, k
    return [Phase(a, ts) for ts, a in best] if best else None


def said(actions: Sequence[str]) -> str:
    """``C washes the plate, then cuts the onion, then stirs the pot``."""
    return "C " + ", then ".join(phrase(a, "3sg") for a in actions)


def question(kind: str, ph: Sequence[Phase]) -> str:
    if kind == "sequence":
        return "Which of the following best describes the order of what C does"
    return (f"What does C do after {phrase(ph[0].action, 'ing')} and before "
            f"{phrase(ph[2].action, 'ing')}")


def solve(kind: str, evs: Sequence[Event], window: tuple[float, float], r: WindowRules
          ) -> dict | None:
    """The answer of a kind's question about a window: its text and certificate spans (video
    seconds); None when the window's phases are not clear."""
    ph = phases(evs, *window, r)
    if ph is None:
        return None
    if kind == "sequence":
        text, spans = said([p.action for p in ph]), [p.span for p in ph]
    else:
        text = said([ph[1].action])
        spans = [(ph[0].times[-1] - BEFORE_S, ph[2].times[0] + AFTER_S)]
    lo, hi = window
    return {"text": text, "spans": [(max(lo, a), min(hi, b)) for a, b in spans],
            "phases": [p.action for p in ph]}


def decoys(kind: str, answer: dict, evs: Sequence[Event], window: tuple[float, float],
           n: int, rng: random.Random) -> list[str]:
    """``n`` wrong answers about the same record (see the module table); fewer when the
    record has too few other acts."""
    acts = answer["phases"]
    lo, hi = window
    in_window = {e.action for e in evs if lo <= e.t < hi}
    record = sorted({e.action for e in evs} - in_window)
    if kind == "sequence":
        # every wrong order holds the answer's three acts: an option with another act was the
        # only one whose set differed, and the one order agreeing with it in two places was
        # the answer, every time (a reader of the options alone scored 72.8 against 22.2)
        orders = [said(o) for o in permutations(acts) if list(o) != acts]
        return rng.sample(orders, min(n, len(orders)))
    a, b = answer["spans"][0]
    during = {e.action for e in evs if a <= e.t <= b}
    window_only = sorted(in_window - during - set(acts[1:2]))
    pool = rng.sample(window_only, min(n, len(window_only)))
    pool += rng.sample(record, min(n - len(pool), len(record)))
    return [said([x]) for x in pool][:n]
