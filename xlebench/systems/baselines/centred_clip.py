"""``centred_clip``: Neptune's growing clip (its appendix's model-based certificate). A VLM
answers each item from N frames spread over a clip of N / ``eval.clip_fps`` seconds of the
day centred on the period the question names (the middle of the day for a question that
names none). It reads what a submitter reads, nothing of the annotations.

With ``eval.frames_sweep=[5,10,20,40,80,160]`` the clip grows from 5 s to 160 s at the same
frame rate, one results folder per length (``centred_clip@<model>@frames=<n>``);
``eval.clip_seconds`` gives each count its own length instead, so length and frame rate grow
together (``frames_sweep=[4,10,40] clip_seconds=[8,10,20]``: 0.5, 1 and 2 frames a second, as
Neptune's probe widens both). The
leaderboard's sweep table gives what Neptune's probe reports: per subtask the accuracy at each
length, the effort score (the largest clip answering wrongly over the smallest answering
right) and the model-based certificate, the smallest clip answering right, in frames and in
seconds. ``eval.clip_seeds=k`` asks each clip k times (samples 0..k-1; Neptune confirms with
two more verifier seeds): the reply stands only when every sample gives it, otherwise the
reply is ``UNCONFIRMED`` and the item counts as not answered at that length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlebench.config.backends import vlm_backend
from xlebench.eval.frames_sweep import clip_length
from xlebench.systems.base import (
    Made,
    SystemKind,
    Systems,
    frame_source,
    frames_identity,
    vlm_model,
)
from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame

#: The reply of a clip whose samples disagree (scores as wrong).
UNCONFIRMED = "UNCONFIRMED"


def centre_of(item: dict, log: dict) -> float:
    """The middle of the period the question names; the middle of the day without one."""
    period = item.get("period")
    if period:
        return (float(period["start_s"]) + float(period["end_s"])) / 2
    segs = log["segments"]
    return (float(segs[0]["start_s"]) + float(segs[-1]["end_s"])) / 2


class CentredClip:
    name = "centred_clip"
    reads = None
    version = "1"

    def __init__(self, vlm: Any, frames: Callable[[dict, float], list[Frame]],
                 seeds: int = 1) -> None:
        self.vlm, self.frames, self.seeds = vlm, frames, seeds

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        requests = [_with_frames(PROMPT, blocks(
            self.frames(log, centre_of(it, log))[: self.vlm.max_images], log),
            question=it["query"], answer_format=recipes[it["subtask"]].answer_format)
            for it in items]
        samples = [[c.text for c in answer_all(self.vlm, requests, k)]
                   for k in range(self.seeds)]
        return {it["item_id"]: (texts[0] if len(set(texts)) == 1 else UNCONFIRMED)
                for it, texts in zip(items, zip(*samples, strict=True), strict=True)}


def make(name: str, cfg: Any, out: Systems) -> Made:
    from xlebench.systems.frames import clip_frames

    media, root, n, spec = frame_source(cfg, out)
    out.network |= vlm_backend(cfg.vlm.backend).remote
    seconds, seeds = clip_length(cfg.eval, n), int(cfg.eval.clip_seeds)

    def frames(log: dict, centre: float) -> list[Frame]:
        got = clip_frames(log, centre, seconds, n, media, root, spec)
        out.report("frames", len(got))
        return got
    identity = frames_identity(name, CentredClip.version, out, n, spec, PROMPT)
    return CentredClip(out.vlm, frames, seeds), {**identity, "clip_s": seconds,
                                                 "seeds": seeds}, vlm_model(cfg)


SYSTEMS = (SystemKind("centred_clip", make, frames=True),)
