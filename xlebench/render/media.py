"""Finding the media file of every library video a life log uses.

* synthetic corpus: generated on demand (`SyntheticMediaStore`), only for videos rendered;
* Ego4D: ``<root>/v2/full_scale/<video_uid>.mp4`` (``render.media_root`` overrides the root,
  e.g. for the X-LeBench release, which ships no media).

Missing files are collected over *all* requested uids first; the error lists them and writes
them to ``missing_uids.txt`` (one uid per line, the Ego4D downloader's ``--video_uid_file``
format) before anything is rendered.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from xlebench.errors import UserError
from xlebench.library.records import LibraryVideo
from xlebench.media.ffmpeg import safe_uid
from xlebench.media.synthetic import SyntheticMediaStore
from xlebench.runner.atomic import write_text


class MissingMediaError(UserError):
    def __init__(self, missing: list[str], where: Path, listing: Path) -> None:
        self.missing = missing
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10
                                          else "")
        super().__init__(
            f"{len(missing)} video file(s) missing under {where}: {shown}. The uids are in "
            f"{listing}; fetch them with the Ego4D CLI, e.g. `ego4d --output_directory <root> "
            f"--datasets full_scale --video_uid_file {listing}`, or point render.media_root at "
            "your copy")


class MediaResolver:
    def __init__(self, *, synthetic: SyntheticMediaStore | None = None,
                 root: Path | None = None, report_dir: Path | None = None) -> None:
        if synthetic is None and root is None:
            raise UserError("rendering needs media: set render.media_root to a folder with "
                            "v2/full_scale/<video_uid>.mp4 (your Ego4D download)")
        self.synthetic, self.root, self.report_dir = synthetic, root, report_dir

    def path(self, uid: str) -> Path:
        uid = safe_uid(uid)
        if self.synthetic is not None:
            return self.synthetic.path(uid)
        return Path(self.root) / "v2" / "full_scale" / f"{uid}.mp4"

    def check(self, uids: Iterable[str]) -> None:
        """Raise MissingMediaError listing every absent file (synthetic media is never absent:
        it is generated on demand)."""
        if self.synthetic is not None:
            return
        missing = sorted({u for u in uids if not self.path(u).is_file()})
        if missing:
            listing = Path(self.report_dir or ".") / "missing_uids.txt"
            write_text(listing, "\n".join(missing) + "\n")
            raise MissingMediaError(missing, Path(self.root) / "v2" / "full_scale", listing)

    def ensure(self, video: LibraryVideo) -> Path:
        if self.synthetic is not None:
            return self.synthetic.ensure(video)
        path = self.path(video.video_uid)
        if not path.is_file():
            self.check([video.video_uid])
        return path
