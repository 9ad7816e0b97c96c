"""EgoSchema's certificates used to choose frames: a VLM answers each item from frames of its
evidence spans only — the subclips its certificate says the answer needs — instead of the
whole day. It reads where the answer is, so it is an oracle (``oracle_certificate_frames``):
the gap between it and ``end_to_end`` is what finding the moment costs a model, the gap between
it and 100 what seeing it does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlebench.eval.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame


class CertificateFrames:
    name = "oracle_certificate_frames"
    reads = "each item's evidence spans (its certificate), to choose the frames shown"
    version = "1"

    def __init__(self, vlm: Any, frames: Callable[[dict, dict], list[Frame]]) -> None:
        self.vlm, self.frames = vlm, frames

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        requests = []
        for it in items:
            shown = self.frames(it, log)[: self.vlm.max_images]
            requests.append(_with_frames(PROMPT, blocks(shown, log), question=it["query"],
                                         answer_format=recipes[it["subtask"]].answer_format))
        return {it["item_id"]: c.text for it, c in
                zip(items, answer_all(self.vlm, requests), strict=True)}
