"""Long stages log progress lines (count, rate, ETA) where no bar is drawn."""

from __future__ import annotations

import logging

import pytest

from xlebench.runner.progress_log import ProgressLog


def test_a_long_stage_logs_count_rate_and_eta_every_interval(caplog) -> None:
    now = [0.0]
    activity = {"frames": 0}
    ticker = ProgressLog("respond", 144, done=4, every_s=30, activity=activity,
                         clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="xlebench.progress"):
        for _ in range(20):  # one unit every 10 s
            now[0] += 10
            activity["frames"] += 1200
            ticker.advance()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 6  # at 30, 60, ... 180 s
    assert lines[0].startswith("stage respond: 7/144 units (5%), 0.1 units/s, ETA 23 min")
    assert lines[0].endswith("; frames 3600")


def test_short_stages_and_drawn_bars_stay_silent(caplog) -> None:
    now = [0.0]
    quick = ProgressLog("plan", 10, every_s=30, clock=lambda: now[0])
    drawn = ProgressLog("plan", 10, every_s=30, enabled=False, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="xlebench.progress"):
        for _ in range(10):
            now[0] += 1
            quick.advance()
        for _ in range(10):
            now[0] += 100
            drawn.advance()
    assert not caplog.records


def _lines(first_s: float, then_s: float, total: int, workers: int = 1) -> list[tuple]:
    """(time, line) of a stage whose first unit per worker takes ``first_s`` (it builds what
    the rest share) and the others ``then_s`` each, with ``workers`` working side by side."""
    now = [0.0]
    ticker = ProgressLog("annotate", total, every_s=30, workers=workers, clock=lambda: now[0])
    finish = sorted([first_s] * workers + [first_s + then_s * (k // workers + 1)
                                           for k in range(total - workers)])
    out, last = [], 0.0
    for t in finish:
        now[0] = t
        ticker.advance()
        if ticker._last != last:  # a line was logged
            last = ticker._last
            out.append((t, ticker.line(t)))
    return out


def _eta(line: str) -> float | None:
    import re

    found = re.search(r"ETA (\d+(?:\.\d+)?) (s|min|h)\b", line)
    if found is None:
        return None
    return float(found.group(1)) * {"s": 1, "min": 60, "h": 3600}[found.group(2)]


@pytest.mark.parametrize("workers", [1, 2])
def test_the_eta_is_not_taken_from_a_first_unit_that_pays_for_the_rest(workers: int) -> None:
    """The VidSitu compile: the first unit took three minutes (every life log's shared
    context), the other 431 about a second each. Every ETA printed is within 3x of the time
    the stage then takes; before a unit finishes after the first ones, it says unknown."""
    total, first_s, then_s = 432, 180.0, 1.0
    lines = _lines(first_s, then_s, total, workers)
    end = first_s + then_s * -(-(total - workers) // workers)
    assert lines
    etas = [(t, _eta(line)) for t, line in lines]
    assert "ETA unknown" in lines[0][1]  # at 180 s: one unit done, nothing to rate yet
    for t, eta in etas:
        if eta is None:
            continue
        left = end - t
        assert left / 3 <= eta <= 3 * left, (t, eta, left)
    assert sum(e is not None for _, e in etas) >= len(etas) - 1
