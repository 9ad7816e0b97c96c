"""MultiHop-EgoQA's two sets (its section 4): an automatically generated training set and a
test set refined before it is trusted — here by the full-information oracle instead of the
paper's human refinement: a test item is kept only where the narrations, read afresh, give
its evidence exactly (and, for template answers, its text).

Source videos are split, never items: a video's items all fall on one side (``test_share`` of
the videos, by a hash of the video id, the same in every benchmark), so no test video is
seen in training.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

SPLITS = ("all", "train", "test")
#: The oracle must reproduce a test item this closely (IoU of its evidence; ROUGE-L of its
#: text for template answers).
EXACT = 0.999


def video_split(uid: str, test_share: float) -> str:
    """``test`` for a share of the videos, ``train`` for the rest (stable per video)."""
    h = int(hashlib.sha256(f"multihop-split:{uid}".encode()).hexdigest()[:8], 16)
    return "test" if h / 0xFFFFFFFF < test_share else "train"


def refined(item: dict, reply: str) -> bool:
    """Whether the oracle's ``reply`` reproduces the item (its spans; its text when a
    template wrote it)."""
    from xlebench.eval.scorers import GroundedAnswer, ScoreSettings

    scores = GroundedAnswer().score(item, reply, ScoreSettings(bertscore=False))
    if not scores or scores["iou_merged"] < EXACT:
        return False
    template = item["provenance"].get("generator", "template") == "template"
    return item["answer"].get("time_only") or not template or scores["rougeL"] >= EXACT


def keep_split(items: list[dict], split: str, test_share: float,
               oracle: Callable[[dict], str], stats: dict) -> list[dict]:
    """The items of ``split`` (all of them for ``all``), each marked with its side; test
    items the oracle does not reproduce are left out and counted."""
    kept = []
    for it in items:
        side = video_split(it["evidence"][0]["video_uid"], test_share)
        it["provenance"]["hop_split"] = side
        if split not in ("all", side):
            stats[f"items of {side} videos (split={split})"] += 1
        elif split == "test" and not refined(it, oracle(it)):
            stats["test items the full-information oracle does not reproduce"] += 1
        else:
            kept.append(it)
    return kept
