"""Crash points for resume tests: ``XLEBENCH_KILL_AT=<stage>:<point>[:<n>]`` kills the process
with SIGKILL the n-th time (default 1) it reaches that point, so a test can interrupt a run
at an exact, repeatable place instead of racing a timer.

Points: ``unit`` (a unit's folder is published, its completion marker not yet written),
``export`` (the stage's old outputs are removed from the staging folder, its new ones not yet
written), ``publish`` (the staged benchmark is complete, not yet swapped in; stage ``*``).
Unset (always, outside tests), a point costs one dictionary lookup.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

ENV = "XLEBENCH_KILL_AT"
_seen: Counter = Counter()


def crash_point(stage: str, point: str) -> None:
    spec = os.environ.get(ENV)
    if not spec:
        return
    want_stage, want_point, *rest = spec.split(":")
    if (want_stage, want_point) != (stage, point):
        return
    _seen[(stage, point)] += 1
    if _seen[(stage, point)] == int(rest[0] if rest else 1):
        os.kill(os.getpid(), signal.SIGKILL)
