"""Neptune's stage C.1 video filters, on decoded frames: talking heads and static videos.

Neptune dropped source videos before asking anything of them: a talking head (a face box
taller than 20% of the frame in more than 30% of the frames sampled at 1 fps) and a static
video (one visual cluster over the clip). Faces are found with OpenCV's frontal-face Haar
cascade, which its PyPI wheel ships and which runs offline (``pip install
'xlebench[faces]'``); the clusters are those of small grey thumbnails, a new cluster starting
where a frame's small colour thumbnail is farther than ``threshold`` (root-mean-square
difference, 0..1) from every cluster's first frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from xlebench.errors import ConfigError

#: Neptune's talking-head line: a face box taller than this share of the frame.
MIN_FACE_HEIGHT = 0.2
#: OpenCV's frontal-face cascade, in ``cv2.data.haarcascades``.
FACE_CASCADE = "haarcascade_frontalface_default.xml"


def _cv2() -> Any:
    try:
        import cv2
    except ImportError:
        raise ConfigError("the talking_head filter finds faces with OpenCV: pip install "
                          "'xlebench[faces]' (opencv-python-headless)") from None
    return cv2


@lru_cache(maxsize=1)
def _cascade() -> Any:
    cv2 = _cv2()
    return cv2.CascadeClassifier(cv2.data.haarcascades + FACE_CASCADE)


def face_heights(image: np.ndarray) -> list[float]:
    """The heights of the frontal faces in a frame (BGR or grey), as shares of its height."""
    cv2 = _cv2()
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    boxes = _cascade().detectMultiScale(grey, scaleFactor=1.1, minNeighbors=5)
    return [float(h) / grey.shape[0] for (_x, _y, _w, h) in boxes]


def face_share(images: Sequence[np.ndarray], min_height: float = MIN_FACE_HEIGHT) -> float:
    """The share of frames holding a face box taller than ``min_height`` of the frame."""
    if not images:
        return 0.0
    return sum(any(h > min_height for h in face_heights(im)) for im in images) / len(images)


def _thumbnail(image: np.ndarray, side: int = 16) -> np.ndarray:
    """A small colour thumbnail in 0..1 (colour tells apart scenes of the same brightness)."""
    cv2 = _cv2()
    return cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA).astype(np.float64) / 255


def visual_clusters(images: Sequence[np.ndarray], threshold: float = 0.08) -> int:
    """How many visual clusters the frames fall in (leader clustering of colour thumbnails by
    root-mean-square difference): 1 is a static video."""
    leaders: list[np.ndarray] = []
    for image in images:
        thumb = _thumbnail(image)
        if not any(float(np.sqrt(np.mean((thumb - lead) ** 2))) <= threshold
                   for lead in leaders):
            leaders.append(thumb)
    return len(leaders)
