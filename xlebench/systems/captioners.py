"""Captions from a vision-language model: one per 30-second source segment (the paper's
Socratic records), from its frames at ``segment_fps`` and 560x420.

Captions are cached per (source video, segment, captioner fingerprint) under
``cache/captions/``, so a video reused by many life logs is captioned once; they are placed on
each log's clock when a prompt is built. The uncached segments of a log are captioned together
(``vlm.batch_size`` at a time in-process, ``vlm.max_concurrency`` at once over an API).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from xlebench.llm.prompts import load_prompt, prompt_path
from xlebench.render.frames import FrameSpec
from xlebench.runner.atomic import dumps, write_text
from xlebench.runner.fingerprint import file_digest
from xlebench.systems.baselines.captions import Caption
from xlebench.systems.frames import Media, segment_sets
from xlebench.tasks.recipe.items import to_day
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame, message

PROMPT = "eval/caption.v1"


def evenly(frames: list[Frame], k: int) -> list[Frame]:
    """At most k frames spread evenly over the list (first and last kept)."""
    if len(frames) <= k:
        return frames
    if k == 1:
        return [frames[len(frames) // 2]]
    return [frames[round(i * (len(frames) - 1) / (k - 1))] for i in range(k)]


def caption_line(reply: str) -> str:
    """The caption of a reply: the sentence after its last ``Caption:`` (the attribute prompt
    answers its questions first, eval/caption_attributes.v1), else the whole reply."""
    text = reply.strip()
    at = text.lower().rfind("caption:")
    return text[at + len("caption:"):].strip() if at >= 0 else text


class VLMCaptioner:
    name = "vlm"
    reads = None  # it reads frames, not annotations: no oracle

    def __init__(self, vlm: Any, media: Media, frames_root: Path, spec: FrameSpec,
                 cache_dir: Path, prompt: str = PROMPT, report=None) -> None:
        self.vlm, self.media, self.root, self.spec = vlm, media, frames_root, spec
        self.prompt = prompt
        blob = json.dumps({"vlm": vlm.fingerprint(), "spec": spec.key,
                           "segment_s": spec.segment_s,
                           "prompt": file_digest(prompt_path(prompt))}, sort_keys=True)
        self.key = hashlib.sha256(blob.encode()).hexdigest()[:16]
        self.cache_dir = Path(cache_dir) / self.key
        self.report = report or (lambda name, n: None)

    def fingerprint(self) -> dict[str, Any]:
        return {"captioner": "vlm", "key": self.key}

    def _path(self, uid: str, k: int) -> Path:
        return self.cache_dir / uid / f"{k:05d}.json"

    def _request(self, frames: list[Frame]) -> list[dict]:
        system, user = load_prompt(self.prompt).render(n_frames=str(len(frames)))
        parts: list = [user["content"]]
        for f in evenly(frames, self.vlm.max_images):
            parts += [f"\n{f.clock}: ", f]
        return [message("system", system["content"]), message("user", *parts)]

    def captions(self, log: dict) -> list[Caption]:
        todo: dict[tuple[str, int], list[Frame]] = {}
        placed: list[tuple[dict, str, int]] = []
        for seg in log["segments"]:
            sets = segment_sets(seg, self.media, self.root, self.spec)
            self.report("frames", sum(len(v) for v in sets.values()))
            for k, frames in sorted(sets.items()):
                placed.append((seg, seg["video_uid"], k))
                if not self._path(seg["video_uid"], k).is_file():
                    todo[(seg["video_uid"], k)] = frames
        keys = list(todo)
        for (uid, k), done in zip(keys, answer_all(self.vlm, [self._request(todo[x])
                                                               for x in keys]), strict=True):
            write_text(self._path(uid, k), dumps({"video_uid": uid, "segment": k,
                                                  "text": caption_line(done.text),
                                                  "reply": done.text.strip()}))
        self.report("captions", len(keys))
        out = []
        for seg, uid, k in placed:
            text = json.loads(self._path(uid, k).read_text("utf-8"))["text"]
            source = max(k * self.spec.segment_s, float(seg.get("source_start_s", 0.0)))
            out.append(Caption(to_day(seg, source), uid, source, text))
        return sorted(out, key=lambda c: c.virtual_s)
