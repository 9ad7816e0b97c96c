"""Output-time mapping and the WebVTT clock (no ffmpeg needed)."""

from __future__ import annotations

import re

import pytest

from xlebench.render.timeline import build_mapping, locate, webvtt

SEGS = [{"index": 0, "video_uid": "a", "start_s": 25925, "source_start_s": 0.0},
        {"index": 1, "video_uid": "b", "start_s": 30000, "source_start_s": 0.0},
        {"index": 2, "video_uid": "c", "start_s": 86390, "source_start_s": 10.0}]
DUR = [2.5, 3.2, 20.0]


def test_output_time_is_contiguous_and_exact() -> None:
    m = build_mapping(SEGS, DUR)
    assert [(p.out_start_s, p.out_end_s) for p in m] == [(0.0, 2.5), (2.5, 5.7), (5.7, 25.7)]
    pos = locate(m, 3.0)
    assert (pos.segment, pos.video_uid, pos.source_s, pos.virtual_s) == (1, "b", 0.5, 30000.5)
    assert locate(m, 25.7).source_s == 30.0, "the end point belongs to the last piece"
    assert locate(m, 5.7).video_uid == "c", "a boundary belongs to the next piece"
    with pytest.raises(ValueError):
        locate(m, 26.0)


def _cues(text: str) -> list[tuple[float, float, str]]:
    out = []
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if len(lines) == 3 and "-->" in lines[1]:
            a, b = (sum(float(x) * f for x, f in zip(t.split(":"), (3600, 60, 1), strict=True))
                    for t in lines[1].split(" --> "))
            out.append((a, b, lines[2]))
    return out


def test_webvtt_cues_tile_the_video_and_show_the_virtual_clock() -> None:
    m = build_mapping(SEGS, DUR)
    text = webvtt(m)
    assert text.startswith("WEBVTT\n")
    cues = _cues(text)
    assert cues[0] == (0.0, 1.0, "07:12:05 · segment 1/3 · a")
    assert all(abs(a[1] - b[0]) < 1e-9 for a, b in zip(cues, cues[1:], strict=False))
    assert abs(cues[-1][1] - 25.7) < 1e-9
    for start, _, label in cues:
        pos = locate(m, start)
        assert label.endswith(f"segment {pos.segment + 1}/3 · {pos.video_uid}")
    # Past midnight the clock carries a day marker instead of wrapping.
    assert any(re.match(r"\+1 00:00:0\d · segment 3/3", c[2]) for c in cues)
