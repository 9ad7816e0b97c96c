"""ffmpeg invocation, uid safety, probing and synthetic media on demand."""

from __future__ import annotations

import pytest

from xlebench.errors import DataError
from xlebench.library.records import LibraryVideo
from xlebench.media.ffmpeg import FFmpegError, filter_path, run_ffmpeg, safe_uid
from xlebench.media.probe import probe
from xlebench.media.synthetic import MediaSpec, SyntheticMediaStore, scenario_colour


def _video(uid: str = "abc-123", duration: float = 7.3, scenario: str = "Cooking"):
    return LibraryVideo(uid, duration, "USA", None, (scenario,), "daytime", "indoor", "C cooks.")


@pytest.mark.parametrize("uid", ["../etc/passwd", "a;rm -rf ~", "$(reboot)", "a b", "", ".x",
                                 "x/../../y", "-vf"])
def test_unsafe_uids_are_refused(uid: str) -> None:
    with pytest.raises(DataError, match="refusing"):
        safe_uid(uid)


def test_real_uids_pass() -> None:
    assert safe_uid("1e3b9a2c-4f6e-4bf1-9c1a-0e5b2d7a8f90") == "1e3b9a2c-4f6e-4bf1-9c1a-0e5b2d7a8f90"


def test_filter_paths_are_escaped() -> None:
    assert filter_path("/a:b/c'd,e") == "/a\\:b/c\\'d\\,e"


def test_ffmpeg_failure_is_reported_with_stderr(tmp_path) -> None:
    with pytest.raises(FFmpegError, match="No such file"):
        run_ffmpeg(["-i", str(tmp_path / "missing.mp4"), str(tmp_path / "out.mp4")])


def test_synthetic_media_has_the_real_duration_and_is_cached(tmp_path) -> None:
    spec = MediaSpec(96, 72, 2)
    store = SyntheticMediaStore(tmp_path, spec)
    path = store.ensure(_video())
    info = probe(path)
    assert abs(info.duration_s - 7.3) <= 1 / spec.fps
    assert (info.width, info.height, info.codec, info.n_video_streams) == (96, 72, "h264", 1)
    mtime = path.stat().st_mtime_ns
    assert store.ensure(_video()) == path and path.stat().st_mtime_ns == mtime
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")], "no temp left"


def test_frames_show_the_scenario_colour(tmp_path) -> None:
    import av
    import numpy as np

    store = SyntheticMediaStore(tmp_path, MediaSpec(96, 72, 2))
    means = []
    for scenario in ("Cooking", "Hiking"):
        path = store.ensure(_video(uid=f"v-{scenario}", duration=3, scenario=scenario))
        with av.open(str(path)) as c:
            frame = next(c.decode(video=0)).to_ndarray(format="rgb24")
        means.append(frame[30:50, 40:90].reshape(-1, 3).mean(axis=0))
    assert np.abs(means[0] - means[1]).max() > 10, "scenarios must look different"
    assert scenario_colour(["Cooking"]) != scenario_colour(["Hiking"])
