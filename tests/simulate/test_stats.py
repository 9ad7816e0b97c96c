"""Day ends in the simulation statistics: days past midnight counted per day of a log."""

from __future__ import annotations

from xlebench.simulate.stats import day_ends


def _seg(start: int, end: int, day: int = 0) -> dict:
    return {"start_s": start, "end_s": end, "chunk": {"day": day} if day else {}}


def test_each_day_of_a_log_ends_on_its_own_clock() -> None:
    logs = [
        {"segments": [_seg(7 * 3600, 8 * 3600), _seg(22 * 3600, 23 * 3600)]},
        {"segments": [_seg(7 * 3600, 8 * 3600), _seg(23 * 3600, 24 * 3600 + 1800)]},
        # two days: day 1 ends at 21:00, day 2 (86400 s later) at 00:10 of day 3
        {"segments": [_seg(8 * 3600, 9 * 3600), _seg(20 * 3600, 21 * 3600),
                      _seg(86400 + 8 * 3600, 86400 + 9 * 3600, 1),
                      _seg(86400 + 23 * 3600, 2 * 86400 + 600, 1)]},
    ]
    out = day_ends(logs)
    assert out["days"] == 4 and out["past_midnight"] == 2
    assert out["past_midnight_share"] == 0.5
    assert out["end"]["p10"].startswith("21:") and out["end"]["p90"].startswith("+1 00:")
    assert out["span_hours"]["p50"] == 16.08  # spans 13, 16, 16.17, 17.5 hours
    assert day_ends([]) == {"days": 0}


def test_durations_per_category_carry_the_median_beside_table_2s_three() -> None:
    """A skewed category (one long day among short ones) moves its mean, not its median."""
    from xlebench.simulate.stats import simulation_stats

    def log(minutes: float) -> dict:
        seg = {"video_uid": "v", "start_s": 0, "end_s": 60, "chunk": {},
               "match": {"relaxation": "strict", "same_country": True}}
        return {"category": "short", "total_duration_s": 60 * minutes, "segments": [seg],
                "reflections": []}
    cell = simulation_stats([log(m) for m in (20, 30, 40, 50, 500)])["duration_minutes"]["short"]
    assert (cell["min"], cell["median"], cell["mean"], cell["max"]) == (20.0, 40.0, 128.0, 500.0)
    assert cell["paper"] == {"max": 580, "mean": 142, "min": 23}
