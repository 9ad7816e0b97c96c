"""The virtual clock: seconds from the day's 00:00, second resolution.

Times past midnight are kept as seconds >= 86400 (the day overflows) and printed with a
``+1`` day marker, e.g. ``+1 00:40``; nothing wraps silently.
"""

from __future__ import annotations

DAY = 86_400


def parse_hhmm(text: str) -> int:
    h, _, m = text.strip().partition(":")
    return int(h) * 3600 + int(m) * 60


def fmt_hhmm(seconds: int) -> str:
    day, rest = divmod(int(seconds), DAY)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}"
    return f"+{day} {text}" if day else text


def fmt_hhmmss(seconds: float) -> str:
    s = int(seconds)
    day, rest = divmod(s, DAY)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"+{day} {text}" if day else text


def time_class(seconds: int, daytime: tuple[int, int], twilight: tuple[int, int]) -> str:
    """Authors' rule: daytime if 06:00 < t < 17:00, twilight if 17:00 <= t < 19:00, else night."""
    t = int(seconds) % DAY
    if daytime[0] < t < daytime[1]:
        return "daytime"
    if twilight[0] <= t < twilight[1]:
        return "twilight"
    return "nighttime"
