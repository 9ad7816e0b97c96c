"""Crash points for resume tests: ``XLEBENCH_KILL_AT=<stage>:<point>[:<n>]`` kills the process
with SIGKILL the n-th time (default 1) it reaches that point, so a test can interrupt a run
at an exact, repeatable place instead of racing a timer.

Points: ``unit`` (a unit's folder is published, its completion marker not yet written),
``export`` (the stage's old outputs are removed from the staging folder, its new ones not yet
written), ``publish`` (the staged benchmark is complete, not yet swapped in; stage ``*``).
``XLEBENCH_HOLD_AT=<stage>:<point>:<folder>`` instead pauses there: it creates
``<folder>/reached`` and waits (at most two minutes) for ``<folder>/release``, so a test can
make two runs overlap exactly (one stages, the other publishes, then the first goes on).
Unset (always, outside tests), a point costs two dictionary lookups.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

ENV = "XLEBENCH_KILL_AT"
HOLD = "XLEBENCH_HOLD_AT"
_seen: Counter = Counter()


def crash_point(stage: str, point: str) -> None:
    hold = os.environ.get(HOLD)
    if hold:
        _hold(hold, stage, point)
    spec = os.environ.get(ENV)
    if not spec:
        return
    want_stage, want_point, *rest = spec.split(":")
    if (want_stage, want_point) != (stage, point):
        return
    _seen[(stage, point)] += 1
    if _seen[(stage, point)] == int(rest[0] if rest else 1):
        os.kill(os.getpid(), signal.SIGKILL)


def _hold(spec: str, stage: str, point: str) -> None:
    want_stage, want_point, folder = spec.split(":", 2)
    if (want_stage, want_point) != (stage, point):
        return
    (Path(folder) / "reached").touch()
    deadline = time.monotonic() + 120
    while not (Path(folder) / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
