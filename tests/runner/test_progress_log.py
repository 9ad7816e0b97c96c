"""Long stages log progress lines (count, rate, ETA) where no bar is drawn."""

from __future__ import annotations

import logging

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
