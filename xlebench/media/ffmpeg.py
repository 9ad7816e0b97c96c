"""The ffmpeg binary and safe invocation.

The system ``ffmpeg`` is used when it is on PATH, else the static binary shipped by
``imageio-ffmpeg``. Commands are argument lists handed to `subprocess.run` (never a shell), and
every name that comes from an input file (video uids) is checked by `safe_uid` before it is
used in a path or an argument.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path

from xlebench.errors import ConfigError, DataError
from xlebench.library.uids import UID_RULE, is_safe_uid


class FFmpegError(RuntimeError):
    """ffmpeg exited non-zero; the message holds the command and the end of its stderr."""


@cache
def ffmpeg_exe() -> str:
    found = shutil.which("ffmpeg")
    if found:
        return found
    try:
        import imageio_ffmpeg
    except ImportError:  # pragma: no cover - a declared dependency
        raise ConfigError("no ffmpeg: install ffmpeg, or the imageio-ffmpeg package") from None
    return imageio_ffmpeg.get_ffmpeg_exe()


def safe_uid(uid: str, source: str = "library") -> str:
    """A video uid usable as a file name and an ffmpeg argument, or a DataError."""
    if not is_safe_uid(uid):
        raise DataError(source, "video_uid", f"expected {UID_RULE}, got {uid!r}",
                        "refusing to use it in a path or a command")
    return uid


def run_ffmpeg(args: list[str], *, timeout: float | None = None, cwd: Path | None = None
               ) -> None:
    """Run ffmpeg with `args` (no shell); raise FFmpegError with its stderr on failure."""
    cmd = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                          cwd=cwd)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
        raise FFmpegError(f"ffmpeg failed ({proc.returncode}): {' '.join(cmd[1:])}\n{tail}")


def font_file() -> Path:
    """A TrueType font for drawtext: matplotlib's bundled DejaVu Sans (always installed)."""
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


def filter_path(path: Path) -> str:
    """A path quoted for use inside an ffmpeg filter argument."""
    text = str(path)
    for ch in ("\\", ":", "'", ",", "[", "]", ";", "="):
        text = text.replace(ch, "\\" + ch)
    return text
