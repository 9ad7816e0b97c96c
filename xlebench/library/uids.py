"""What a video uid may look like, checked when a file is loaded.

Uids become file names (``<uid>.mp4``, cache folders) and ffmpeg arguments. Ego4D's are UUIDs;
anything beyond letters, digits, ``_``, ``-`` and ``.`` (a ``/``, ``..``, a shell
metacharacter) is refused where it enters — at load, naming the file and the record — rather
than when it reaches a path.
"""

from __future__ import annotations

import re

UID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
_UID = re.compile(UID_PATTERN)
UID_RULE = "a plain identifier (letters, digits, '_', '-', '.'; no '..'; at most 128 characters)"
#: Longest video a library may hold: a segment has to fit on one day's clock.
MAX_VIDEO_S = 86_400.0


def is_safe_uid(uid: object) -> bool:
    return isinstance(uid, str) and bool(_UID.match(uid)) and ".." not in uid


def check_uid(uid: str) -> str:
    """For pydantic validators: the uid, or ValueError with the rule."""
    if not is_safe_uid(uid):
        raise ValueError(f"expected {UID_RULE}")
    return uid
