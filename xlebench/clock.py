"""The virtual clock: seconds from the day's 00:00, second resolution.

Times past midnight are kept as seconds >= 86400 (the day overflows) and printed with a
``+1`` day marker, e.g. ``+1 00:40``; nothing wraps silently.
"""

from __future__ import annotations

import re

DAY = 86_400
_CLOCK = re.compile(r"^\s*(?:\+(\d)\s+)?(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$")


def parse_hhmm(text: str) -> int:
    h, _, m = text.strip().partition(":")
    return int(h) * 3600 + int(m) * 60


def parse_clock(text: str) -> int:
    """Seconds from 00:00 of ``HH:MM``, ``HH:MM:SS`` or ``+1 HH:MM[:SS]`` (next day); 24:00 ok."""
    m = _CLOCK.match(str(text))
    if not m:
        raise ValueError(f"time {text!r} is not HH:MM or HH:MM:SS")
    day, h, mi, s = (int(g) if g else 0 for g in m.groups())
    if mi > 59 or s > 59 or h > 24 or (h == 24 and (mi or s)):
        raise ValueError(f"time {text!r} is not a valid 24-hour clock time")
    return day * DAY + h * 3600 + mi * 60 + s


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
