"""EgoSchema's certificates used to choose frames: a VLM answers each item from frames of its
evidence spans only — the subclips its certificate says the answer needs — instead of the
whole day. It reads where the answer is, so it is an oracle (``oracle_certificate_frames``):
the gap between it and ``end_to_end`` is what finding the moment costs a model, the gap between
it and 100 what seeing it does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlebench.config.backends import vlm_backend
from xlebench.systems.base import Made, SystemKind, Systems, frames_system
from xlebench.systems.baselines.end_to_end import PROMPT, replies
from xlebench.vlm.messages import Frame


class CertificateFrames:
    name = "oracle_certificate_frames"
    reads = "each item's evidence spans (its certificate), to choose the frames shown"
    version = "1"

    def __init__(self, vlm: Any, frames: Callable[[dict, dict], list[Frame]]) -> None:
        self.vlm, self.frames = vlm, frames

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        return replies(self.vlm, items, recipes, log,
                       lambda it: self.frames(it, log)[: self.vlm.max_images])


def make(name: str, cfg: Any, out: Systems) -> Made:
    from xlebench.systems.frames import evidence_frames

    out.network |= vlm_backend(cfg.vlm.backend).remote
    return frames_system(name, cfg, out, CertificateFrames, lambda media, root, n, spec: (
        lambda it, log: evidence_frames(it, log, n, media, root, spec)), PROMPT)


SYSTEMS = (SystemKind("oracle_certificate_frames", make, frames=True),)
