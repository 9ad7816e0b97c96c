"""An offline, deterministic stand-in for a vision-language model.

It cannot see, but it answers every request in the shape asked for — a caption naming the
frames' times, notes, or an answer in the question's format built from the first frames'
clock labels — so every frame-based system (end-to-end, VLM-captioned Socratic) runs in tests
and demos with no model and no server, and its calls go through the same cache.
"""

from __future__ import annotations

import re

from xlebench.config.backends import VLMBackend
from xlebench.tasks.language.wording import counting_actions
from xlebench.vlm.cached import CachedVLM
from xlebench.vlm.messages import Frame

_TASK = re.compile(r"Task:\s*([a-z_]+)")


def _texts(messages: list[dict]) -> str:
    return "\n".join(p for m in messages for p in m["content"] if isinstance(p, str))


def _clocks(messages: list[dict]) -> list[str]:
    return [p.clock for m in messages for p in m["content"] if isinstance(p, Frame) and p.clock]


def reply(messages: list[dict]) -> str:
    text, clocks = _texts(messages), _clocks(messages)
    task = (_TASK.search(text) or [None, ""])[1]
    first, last = (clocks[0], clocks[-1]) if clocks else ("00:00:00", "00:00:01")
    if task == "caption":
        return f"C is busy in the recording, seen in {len(clocks)} frames from {first} to {last}."
    if task == "notes":
        return f"[{first} - {last}] C is busy."
    span = _first_span(text) or f"[{first} - {last}]"
    if "###Evidence:" in text:
        return f"###Answer: You did it.\n###Evidence: {span}"
    if "Evidence:" in text:
        return f"You did it.\nEvidence: {span}"
    if "Event <k>" in text:
        return "\n".join(f"Event {k}: verbs: do; Arg0: C" for k in range(1, 6))
    if "Correct order of the summaries" in text:
        n = len(re.findall(r"Summary \d+:", text))
        return "Correct order of the summaries: " + ", ".join(map(str, range(n)))
    if "<action>: <count>" in text:
        listing = text.split("Action list:", 1)[-1].split("\n")[0]
        return " ".join(f"{a}: 1;" for a in counting_actions("Action list:" + listing))
    if "[HH:MM:SS - HH:MM:SS]" in text:
        return span
    return "C carries out everyday activities during the day."


def _first_span(text: str) -> str | None:
    m = re.search(r"\[(\d{2}:\d{2}:\d{2}) [–-] (\d{2}:\d{2}:\d{2})\]", text)
    return f"[{m.group(1)} - {m.group(2)}]" if m else None


#: This backend's declaration (read by `xlebench.config.backends` without importing it).
BACKEND = VLMBackend("scripted", "xlebench.vlm.scripted:ScriptedVLM")


class ScriptedVLM(CachedVLM):
    def _generate(self, batch: list[list[dict]]) -> list[str]:
        return [reply(m) for m in batch]
