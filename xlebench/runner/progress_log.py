"""Progress as log lines, for output that is not a terminal.

Rich's bars draw only on a terminal; a job under a scheduler, ``nohup`` or ``| tee`` would
otherwise print nothing between a stage's start and its end, however long it runs (the
documented end-to-end evaluation (docs/evaluation.md) is most of an hour). A stage that runs longer than
``every_s`` logs one line per ``every_s``: units done of all, rate, ETA, and its live counters
(frames, captions, model calls), to the console and the run log file
(``runs/<date>/<time>/xlebench.log``). Short stages stay silent, and where the bars are drawn
(a terminal with ``progress=true``) the lines are not written over them.

The rate is taken from the units finished after each worker's first: a stage's first unit
in a process often builds what every later unit reads (the annotate stage's view of every
life log, a model's weights), so a rate over it promised a VidSitu compile of eight minutes an
ETA of 23 hours. Until a unit finishes after those, the ETA is "unknown".
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
                 workers: int = 1, clock: Callable[[], float] = time.monotonic) -> None:
        self.stage, self.total, self.enabled = stage, total, enabled
        self.every_s = every_s
        self.activity = activity if activity is not None else {}
        self._clock, self._lock = clock, threading.Lock()
        self._start = self._last = clock()
        self._first, self.done = done, done
        #: The rate is measured from the moment each worker has finished its first unit.
        self._warm = max(1, min(int(workers), total - done))
        self._base: tuple[float, int] | None = None

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            now = self._clock()
            if self._base is None and self.done - self._first >= self._warm:
                self._base = (now, self.done)
            if not self.enabled or now - self._last < self.every_s or self.done >= self.total:
                return
            self._last = now
            log.info(self.line(now))

    def rate(self, now: float) -> float | None:
        """Units per second after the workers' first units (None: none finished since)."""
        if self._base is None or self.done <= self._base[1] or now <= self._base[0]:
            return None
        return (self.done - self._base[1]) / (now - self._base[0])

    def line(self, now: float) -> str:
        """``stage respond: 12/144 units (8%), 0.05 units/s, ETA 44 min; frames 14400``."""
        elapsed, rate = max(now - self._start, 1e-9), self.rate(now)
        eta = ("ETA unknown (the first units build what the rest share; the rate is taken "
               "from the units after them)" if rate is None
               else f"{rate:.3g} units/s, ETA {_duration((self.total - self.done) / rate)}")
        counters = "; ".join(f"{k} {v}" for k, v in sorted(self.activity.items()))
        return (f"stage {self.stage}: {self.done}/{self.total} units "
                f"({100 * self.done / max(self.total, 1):.0f}%), {eta}, "
                f"{_duration(elapsed)} so far" + (f"; {counters}" if counters else ""))


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
