"""Rendering real media: stitch, probe, WebVTT and sampled frames against the timeline."""

from __future__ import annotations

import pytest

from tests.render.test_timeline import _cues
from xlebench.errors import ConfigError
from xlebench.library.records import LibraryVideo
from xlebench.media.probe import probe
from xlebench.media.synthetic import MediaSpec, SyntheticMediaStore
from xlebench.render.frames import FrameSpec
from xlebench.render.render import RenderSettings, render_log, sha256_file
from xlebench.render.stitch import EncodeSpec
from xlebench.render.timeline import build_mapping, locate

pytestmark = pytest.mark.ffmpeg
FPS = 2
VIDEOS = [LibraryVideo(f"vid-{i}", d, "USA", None, (s,), "daytime", "indoor", "C.")
          for i, (d, s) in enumerate([(7.3, "Cooking"), (4.1, "Hiking"), (5.6, "Eating")])]
SEGMENTS = [{"index": i, "video_uid": v.video_uid, "start_s": 8 * 3600 + 900 * i,
             "end_s": 8 * 3600 + 900 * i + 8, "source_start_s": 0.0,
             "source_end_s": v.duration_s} for i, v in enumerate(VIDEOS)]


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    store = SyntheticMediaStore(tmp_path_factory.mktemp("media"), MediaSpec(96, 72, FPS))
    by_uid = {v.video_uid: v for v in VIDEOS}
    return lambda uid: store.ensure(by_uid[uid])


@pytest.mark.parametrize("kind", ["concat", "reencode"])
def test_render_matches_the_timeline(kind, media, tmp_path) -> None:
    settings = RenderSettings(kind=kind, encode=EncodeSpec(112, 84, FPS, burn_clock=True),
                              uniform_frames=12, segment_fps=1.0,
                              frames=FrameSpec(56, 42, 1.0, 30.0))
    work = tmp_path / "work"
    work.mkdir()
    rec = render_log(SEGMENTS, media, settings, work, tmp_path / "frames")
    info = probe(work / "video.mp4")
    expected = sum(v.duration_s for v in VIDEOS)
    assert abs(info.duration_s - expected) <= len(VIDEOS) / FPS, "within a frame per segment"
    assert abs(rec["duration_s"] - info.duration_s) <= 1 / FPS
    assert info.n_video_streams == 1 and info.n_audio_streams == 0 and info.codec == "h264"
    assert (info.width, info.height) == ((96, 72) if kind == "concat" else (112, 84))
    assert rec["video"]["sha256"] == sha256_file(work / "video.mp4")
    mapping = build_mapping(SEGMENTS, [p["out_end_s"] - p["out_start_s"]
                                       for p in rec["mapping"]])
    cues = _cues((work / "clock.vtt").read_text())
    assert cues[0][2] == "08:00:00 · segment 1/3 · vid-0"
    for start, _, label in cues:
        assert label.endswith(f"segment {locate(mapping, start).segment + 1}/3 · "
                              f"{locate(mapping, start).video_uid}")
    frames = rec["frames"]
    assert len(frames["uniform_frames"]) == 12
    for f in frames["uniform_frames"]:
        pos = locate(mapping, f["out_s"])
        assert (f["video_uid"], f["source_s"], f["virtual_s"]) == \
            (pos.video_uid, pos.source_s, pos.virtual_s)
        assert (tmp_path / "frames" / f["file"]).is_file()
    seg = frames["segment_frames"]
    assert [f["source_s"] for f in seg if f["video_uid"] == "vid-0"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert all(f["virtual_s"] == SEGMENTS[f["segment"]]["start_s"] + f["source_s"] for f in seg)


def test_segment_frames_are_decoded_once_per_video(media, tmp_path) -> None:
    settings = RenderSettings(kind="concat", segment_fps=1.0, frames=FrameSpec(56, 42))
    for run in range(2):
        work = tmp_path / f"w{run}"
        work.mkdir()
        render_log(SEGMENTS[:1], media, settings, work, tmp_path / "frames")
        if run == 0:
            first = {p: p.stat().st_mtime_ns for p in (tmp_path / "frames").rglob("*.jpg")}
    again = {p: p.stat().st_mtime_ns for p in (tmp_path / "frames").rglob("*.jpg")}
    assert first and again == first


def test_concat_refuses_mixed_parameters(media, tmp_path) -> None:
    other = SyntheticMediaStore(tmp_path / "m2", MediaSpec(64, 48, FPS)).ensure(VIDEOS[1])
    paths = {VIDEOS[0].video_uid: media(VIDEOS[0].video_uid), VIDEOS[1].video_uid: other}
    with pytest.raises(ConfigError, match="render=reencode"):
        render_log(SEGMENTS[:2], paths.__getitem__, RenderSettings(kind="concat"), tmp_path)
