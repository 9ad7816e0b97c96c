"""The frame cache (`xlebench.render.frames`): frames answer for the media file they were
decoded from, and an unreadable file is one line naming it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from xlebench.errors import DataError
from xlebench.library.records import LibraryVideo
from xlebench.media.synthetic import MediaSpec, SyntheticMediaStore
from xlebench.render.frames import FrameSpec, frames_at, segment_frames


def _media(tmp_path: Path, scenario: str) -> Path:
    """A 3-s video of ``scenario``'s colour at ``<tmp>/<scenario>/v2/full_scale/same-uid.mp4``."""
    store = SyntheticMediaStore(tmp_path / f"store-{scenario}", MediaSpec(96, 72, 2))
    made = store.ensure(LibraryVideo("same-uid", 3.0, "USA", None, (scenario,), "daytime",
                                     "indoor", "C cooks."))
    path = tmp_path / scenario / "v2" / "full_scale" / "same-uid.mp4"
    path.parent.mkdir(parents=True)
    shutil.copyfile(made, path)
    return path


def _mean(path: Path) -> np.ndarray:
    import cv2

    return cv2.imread(str(path)).reshape(-1, 3).mean(axis=0)


def test_frames_of_other_media_under_the_same_uid_are_never_served(tmp_path: Path) -> None:
    cache, spec = tmp_path / "frames", FrameSpec(64, 48)
    cooking, hiking = _media(tmp_path, "Cooking"), _media(tmp_path, "Hiking")
    first = cache / frames_at(cooking, "same-uid", [1.0], cache, spec)[1.0]
    before = _mean(first)
    again = cache / frames_at(hiking, "same-uid", [1.0], cache, spec)[1.0]
    assert np.abs(_mean(again) - before).max() > 10, "the old media's frame answered"
    fresh = tmp_path / "fresh"
    alone = fresh / frames_at(hiking, "same-uid", [1.0], fresh, spec)[1.0]
    assert np.abs(_mean(again) - _mean(alone)).max() < 1
    seg = segment_frames(cooking, "same-uid", cache, FrameSpec(64, 48, 1.0))
    assert seg and (cache / "same-uid" / "64x48@1" / seg[0]["file"]).is_file()


@pytest.mark.parametrize("damage", ["empty", "garbage", "truncated"])
def test_an_unreadable_media_file_is_one_line_naming_it(tmp_path: Path, damage: str) -> None:
    path = _media(tmp_path, "Cooking")
    data = path.read_bytes()
    path.write_bytes({"empty": b"", "garbage": b"not a video at all" * 100,
                      "truncated": data[:200]}[damage])
    with pytest.raises(DataError) as caught:
        frames_at(path, "same-uid", [1.0, 2.0], tmp_path / "frames", FrameSpec(64, 48))
    message = str(caught.value)
    assert message.startswith(f"{path}: $:") and "\n" not in message
    assert "render.media_root" in message


def _cached(folder: Path) -> Path:
    (folder / "64x48@1").mkdir(parents=True, exist_ok=True)
    (folder / "64x48@1" / "index.json").write_text('{"frames": []}')
    return folder / "64x48@1" / "index.json"


def test_a_media_file_replaced_with_its_size_and_mtime_kept_is_decoded_again(tmp_path) -> None:
    """``cp -p`` / ``rsync -t`` keep size and mtime: the stamp reads the file's ends too."""
    import os

    from xlebench.render.frames import STAMP_BLOCK, media_folder

    video, root = tmp_path / "v.mp4", tmp_path / "frames"
    for size in (1000, 3 * STAMP_BLOCK):
        video.write_bytes(b"a" * size)
        index = _cached(media_folder(root, "uid", video))
        stat = video.stat()
        video.write_bytes(b"a" * (size - 1) + b"b")  # same size, another tail
        os.utime(video, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert not media_folder(root, "uid", video).joinpath("64x48@1").exists() \
            and not index.exists()
        index = _cached(media_folder(root, "uid", video))
        assert media_folder(root, "uid", video) and index.is_file(), "the same file is kept"


def test_frames_from_before_the_stamp_are_rebuilt_never_adopted(tmp_path: Path) -> None:
    import json

    from xlebench.render.frames import media_folder

    video, root = tmp_path / "v.mp4", tmp_path / "frames"
    video.write_bytes(b"x" * 100)
    index = _cached(root / "uid")  # an upgrade's cache: frames, no media.json
    folder = media_folder(root, "uid", video)
    assert not index.exists() and json.loads((folder / "media.json").read_text())["size"] == 100
    old = {"size": 100, "mtime_ns": video.stat().st_mtime_ns}  # a stamp of the last version
    (folder / "media.json").write_text(json.dumps(old))
    index = _cached(folder)
    media_folder(root, "uid", video)
    assert not index.exists()
