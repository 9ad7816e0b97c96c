"""``end_to_end``, the end-to-end baseline (paper section 4): a multimodal model answers each question from N
frames spread uniformly over the whole life log (paper: 1200, temperature 0.1), each frame
preceded by its time on the day's clock, grouped in the paper's time-stamped blocks.

A backend takes at most ``vlm.max_images`` images per request. ``vlm.frames_strategy``:
``subsample`` sends that many of the N frames, spread evenly (what a model with a small image
budget can see of the day); ``notes`` splits the N frames into consecutive chunks, asks for
time-stamped notes on each (``eval/notes.v1``), and answers from all the notes in one last,
text-only request; the notes of every question on one chunk are asked together, so the
chunk's frames are encoded once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.config.backends import vlm_backend
from xlebench.llm.prompts import load_prompt
from xlebench.llm.setup import prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.systems.base import Made, SystemKind, Systems, frame_source, vlm_model
from xlebench.systems.captioners import evenly
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame, message

PROMPT, NOTES = "eval/end_to_end.v1", "eval/notes.v1"
_CUT = "\x00frames\x00"


def blocks(frames: Sequence[Frame], log: dict) -> list:
    """``The following frames are recorded during time of [start – end]:`` then each frame
    after its clock label, one block per segment of the log."""
    parts: list = []
    for seg in log["segments"]:
        inside = [f for f in frames if seg["start_s"] <= f.virtual_s <= seg["end_s"]]
        if not inside:
            continue
        parts.append(f"The following frames are recorded during time of "
                     f"[{fmt_hhmmss(seg['start_s'])} – {fmt_hhmmss(seg['end_s'])}]:")
        for f in inside:
            parts += [f"\n{f.clock}: ", f]
        parts.append("\n")
    return parts


def _with_frames(prompt: str, frame_parts: list, **slots: str) -> list[dict]:
    system, user = load_prompt(prompt).render(frames=_CUT, **slots)
    head, _, tail = user["content"].partition(_CUT)
    return [message("system", system["content"]), message("user", head, *frame_parts, tail)]


def replies(vlm: Any, items: Sequence[dict], recipes: dict, log: dict,
            frames_of: Callable[[dict], list[Frame]]) -> dict[str, str]:
    """Each item asked with the frames ``frames_of(item)`` gives it, in the paper's blocks,
    one batch for the log."""
    requests = [_with_frames(PROMPT, blocks(frames_of(it), log), question=it["query"],
                             answer_format=recipes[it["subtask"]].answer_format)
                for it in items]
    return {it["item_id"]: c.text for it, c in
            zip(items, answer_all(vlm, requests), strict=True)}


class EndToEnd:
    name = "end_to_end"
    reads = None

    def __init__(self, vlm: Any, frames: Callable[[dict], list[Frame]]) -> None:
        self.vlm, self.frames = vlm, frames

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        frames = self.frames(log)
        if self.vlm.settings.frames_strategy == "notes":
            return self._with_notes(items, recipes, log, frames)
        shown = evenly(frames, self.vlm.max_images)
        return replies(self.vlm, items, recipes, log, lambda _it: shown)

    def _with_notes(self, items: Sequence[dict], recipes: dict, log: dict,
                    frames: list[Frame]) -> dict[str, str]:
        """Every item's notes on every chunk in one call, ordered chunk by chunk (the
        questions on one chunk share its frames' prefix: encoded once in-process, a prefix
        cache hit on a server), then every item's answer from its notes in a second call."""
        k = self.vlm.max_images
        chunks = [frames[i:i + k] for i in range(0, len(frames), k)]
        asks = [_with_frames(NOTES, blocks(c, log), question=it["query"])
                for c in chunks for it in items]
        notes = [n.text.strip() for n in answer_all(self.vlm, asks)]
        finals = []
        for j, it in enumerate(items):
            text = "\n".join(notes[c * len(items) + j] for c in range(len(chunks)))
            finals.append(_with_frames(PROMPT, [f"Notes taken from all the frames:\n{text}\n"],
                                       question=it["query"],
                                       answer_format=recipes[it["subtask"]].answer_format))
        return {it["item_id"]: c.text
                for it, c in zip(items, answer_all(self.vlm, finals), strict=True)}


def make(name: str, cfg: Any, out: Systems) -> Made:
    from xlebench.systems.frames import log_frames

    media, root, n, spec = frame_source(cfg, out)
    out.network |= vlm_backend(cfg.vlm.backend).remote
    def frames(log: dict) -> list:
        got = log_frames(log, n, media, root, spec)
        out.report("frames", len(got))
        return got
    return EndToEnd(out.vlm, frames), {
        "system": name, "vlm": out.vlm.fingerprint(), "frames": n, "spec": spec.key,
        "prompts": [file_digest(p) for p in prompt_files([PROMPT, NOTES])]}, vlm_model(cfg)


SYSTEMS = (SystemKind("end_to_end", make, frames=True),)
