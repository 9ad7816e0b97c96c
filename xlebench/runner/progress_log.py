"""Progress as log lines, for output that is not a terminal.

Rich's bars draw only on a terminal; a job under a scheduler, ``nohup`` or ``| tee`` would
otherwise print nothing between a stage's start and its end, however long it runs (the
documented end-to-end evaluation (docs/evaluation.md) is most of an hour). A stage that runs longer than
``every_s`` logs one line per ``every_s``: units done of all, rate, ETA, and its live counters
(frames, captions, model calls), to the console and the run log file
(``runs/<date>/<time>/xlebench.log``). Short stages stay silent, and where the bars are drawn
(a terminal with ``progress=true``) the lines are not written over them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger("xlebench.progress")


class ProgressLog:
    """Count a stage's finished units and log a line at most every ``every_s`` seconds."""

    def __init__(self, stage: str, total: int, done: int = 0, *, every_s: float = 30.0,
                 activity: Mapping[str, int] | None = None, enabled: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stage, self.total, self.enabled = stage, total, enabled
        self.every_s = every_s
        self.activity = activity if activity is not None else {}
        self._clock, self._lock = clock, threading.Lock()
        self._start = self._last = clock()
        self._first, self.done = done, done

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            now = self._clock()
            if not self.enabled or now - self._last < self.every_s or self.done >= self.total:
                return
            self._last = now
            log.info(self.line(now))

    def line(self, now: float) -> str:
        """``stage respond: 12/144 units (8%), 0.05 units/s, ETA 44 min; frames 14400``."""
        ran, elapsed = self.done - self._first, max(now - self._start, 1e-9)
        rate = ran / elapsed
        left = (self.total - self.done) / rate if rate > 0 else None
        eta = "ETA unknown" if left is None else f"ETA {_duration(left)}"
        counters = "; ".join(f"{k} {v}" for k, v in sorted(self.activity.items()))
        return (f"stage {self.stage}: {self.done}/{self.total} units "
                f"({100 * self.done / max(self.total, 1):.0f}%), {rate:.3g} units/s, {eta}, "
                f"{_duration(elapsed)} so far" + (f"; {counters}" if counters else ""))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
