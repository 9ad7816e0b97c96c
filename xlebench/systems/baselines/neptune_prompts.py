"""``end_to_end_neptune``: the end-to-end baseline asked in Neptune's own evaluation prompts (its
appendix C.5.6, the GPT-4o prompts): a multiple-choice item with the "identify the correct
CHOICE … Output Format: [CHOICE]: [REASON]" template, any other item with the open-ended one;
with ``eval.transcripts`` (JSON ``{video_uid: [{start_s, end_s, text}]}``, as the transcript
filter reads) the "with transcript" variants, the life log's speech on the day's clock in the
``Video Transcript`` slot.

Frames are the end-to-end baseline's (``eval.e2e_frames`` over the whole log, in its
time-labelled blocks, ``vlm.max_images`` of them sent). The open-ended templates end with the
recipe's answer format (a count list, a grounded reply): Neptune's answers are free text, and
xlebench's recipes score a shape. A multiple-choice query's options are read from the query
text itself (``… Option 0: … Option 1: …``), the part a submitter sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.config.backends import vlm_backend
from xlebench.llm.setup import prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.systems.base import Made, SystemKind, Systems, frame_source, vlm_model
from xlebench.systems.baselines.end_to_end import _with_frames, blocks
from xlebench.systems.captioners import evenly
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame

PROMPTS = {(True, False): "eval/neptune_mcq.v1", (True, True): "eval/neptune_mcq_transcript.v1",
           (False, False): "eval/neptune_open.v1",
           (False, True): "eval/neptune_open_transcript.v1"}
_FIRST_OPTION = re.compile(r"\s+Option 0:\s")


def split_choices(query: str) -> tuple[str, str] | None:
    """(question, choices) of a multiple-choice query as the recipes print it; None for a
    query without options."""
    found = _FIRST_OPTION.search(query)
    return (query[: found.start()], query[found.start():].strip()) if found else None


def log_transcript(log: dict, transcripts: Mapping[str, list]) -> str:
    """The speech of each record of the log, inside the part of its video the log plays, one
    ``[HH:MM:SS] text`` line each on the day's clock."""
    lines = []
    for seg in log["segments"]:
        a = float(seg.get("source_start_s", 0.0))
        b = float(seg["source_end_s"])
        for t in transcripts.get(seg["video_uid"], []):
            if a <= float(t["start_s"]) < b:
                at = float(seg["start_s"]) + float(t["start_s"]) - a
                lines.append(f"[{fmt_hhmmss(at)}] {t['text']}")
    return "\n".join(lines) or "(no speech)"


class EndToEndNeptune:
    name = "end_to_end_neptune"
    reads = None

    def __init__(self, vlm: Any, frames: Callable[[dict], list[Frame]],
                 transcripts: Mapping[str, list] | None) -> None:
        self.vlm, self.frames, self.transcripts = vlm, frames, transcripts

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        shown = blocks(evenly(self.frames(log), self.vlm.max_images), log)
        speech = None if self.transcripts is None else log_transcript(log, self.transcripts)
        requests = [self._request(it, recipes[it["subtask"]], shown, speech) for it in items]
        return {it["item_id"]: c.text
                for it, c in zip(items, answer_all(self.vlm, requests), strict=True)}

    @staticmethod
    def _request(item: dict, recipe: Any, shown: list, speech: str | None) -> list[dict]:
        split = split_choices(item["query"])
        slots = {"transcript": speech} if speech is not None else {}
        prompt = PROMPTS[(split is not None, speech is not None)]
        if split is not None:
            return _with_frames(prompt, shown, question=split[0], choices=split[1], **slots)
        return _with_frames(prompt, shown, question=item["query"],
                            answer_format=recipe.answer_format, **slots)


def make(name: str, cfg: Any, out: Systems) -> Made:
    from xlebench.systems.frames import log_frames
    from xlebench.tasks.screening.transcripts import load_transcripts

    media, root, n, spec = frame_source(cfg, out)
    out.network |= vlm_backend(cfg.vlm.backend).remote
    path = cfg.eval.get("transcripts")
    transcripts = load_transcripts(str(path)) if path else None

    def frames(log: dict) -> list:
        got = log_frames(log, n, media, root, spec)
        out.report("frames", len(got))
        return got
    identity = {"system": name, "vlm": out.vlm.fingerprint(), "frames": n, "spec": spec.key,
                "prompts": [file_digest(p) for p in prompt_files(list(PROMPTS.values()))],
                "transcripts": file_digest(path) if path else None}
    return EndToEndNeptune(out.vlm, frames, transcripts), identity, vlm_model(cfg)


SYSTEMS = (SystemKind("end_to_end_neptune", make, frames=True),)
