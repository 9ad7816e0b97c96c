"""The paper's Socratic and Retrieve-Socratic baselines (``socratic``, ``retrieve_socratic``):
prompt builders + a litellm answerer (``eval.captioner=oracle_narrations`` makes them
``oracle_socratic``).

The context is the paper's time-stamped format: one block per 30-second record,
``The following records are recorded during time of [HH:MM:SS – HH:MM:SS]: <captions>``,
then the task question and the answer format. Socratic gives the model the whole day;
Retrieve-Socratic first keeps only the records inside the queried period (its rule filter).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.config.backends import vlm_backend
from xlebench.llm.prompts import load_prompt
from xlebench.llm.setup import llm_fingerprint, prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.systems.base import (
    Made,
    SystemKind,
    Systems,
    answer_model,
    caption_source,
    text_answerer,
    vlm_client,
)
from xlebench.systems.baselines.captions import Caption


def records(captions: Sequence[Caption], record_s: float = 30.0) -> list[tuple[float, str]]:
    """Captions grouped into fixed records on the virtual clock: (record start, text)."""
    grouped: dict[float, list[str]] = defaultdict(list)
    for c in captions:
        grouped[c.virtual_s - c.virtual_s % record_s].append(c.text)
    return [(t, " ".join(texts)) for t, texts in sorted(grouped.items())]


def build_context(item: dict, captions: Sequence[Caption], *, retrieve: bool,
                  record_s: float = 30.0) -> str:
    lo, hi = item["period"]["start_s"], item["period"]["end_s"]
    blocks = []
    for t, text in records(captions, record_s):
        if retrieve and not (lo <= t + record_s and t <= hi):
            continue
        blocks.append(f"The following records are recorded during time of "
                      f"[{fmt_hhmmss(t)} – {fmt_hhmmss(t + record_s)}]: {text}")
    return "\n".join(blocks) or "(no records)"


def build_messages(item: dict, answer_format: str, captions: Sequence[Caption], *,
                   retrieve: bool, record_s: float = 30.0, prompt: str = "eval/socratic.v1"
                   ) -> list[dict]:
    """The paper's time-stamped context, the question, and the recipe's answer format."""
    return load_prompt(prompt).render(
        context=build_context(item, captions, retrieve=retrieve, record_s=record_s),
        question=item["query"], answer_format=answer_format)


class SocraticBaseline:
    """Captions of the day (``captions``: oracle narrations or a VLM captioner) assembled in
    the paper's time-stamped records and answered by a language model (``complete``: the
    text LLM client, or the VLM asked in text). A system reading oracle captions is an oracle
    and named so."""

    def __init__(self, complete: Callable[[list[dict]], str], captions: Any, *,
                 retrieve: bool, record_s: float = 30.0) -> None:
        self.complete, self.captions = complete, captions
        self.retrieve, self.record_s = retrieve, record_s
        self.reads = getattr(captions, "reads", None)
        base = "retrieve_socratic" if retrieve else "socratic"
        self.name = f"oracle_{base}" if self.reads else base

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        caps = self.captions.captions(log)
        return {it["item_id"]: self.answer(it, recipes[it["subtask"]], log, caps)
                for it in items}

    def answer(self, item: dict, recipe: Any, log: dict, captions: Sequence[Caption]) -> str:
        messages = build_messages(item, recipe.answer_format, captions,
                                  retrieve=self.retrieve, record_s=self.record_s)
        return self.complete(messages)


def make(name: str, cfg: Any, out: Systems) -> Made:
    out.vlm = out.vlm or vlm_client(cfg)
    captions = caption_source(cfg, out)
    system = SocraticBaseline(text_answerer(cfg, out, f"eval.systems=[{name}]"), captions,
                              retrieve=name == "retrieve_socratic",
                              record_s=float(cfg.eval.record_s))
    out.network |= cfg.answerer.backend != "offline" or vlm_backend(cfg.vlm.backend).remote
    answerer = (llm_fingerprint(cfg, ["eval/socratic.v1"], section="answerer")
                if cfg.answerer.backend != "offline" else {"vlm": out.vlm.fingerprint()})
    captioner = captions.fingerprint() if hasattr(captions, "fingerprint") else {
        "captioner": "oracle_narrations"}
    return system, {"system": name, "answerer": answerer, "captioner": captioner,
                    "record_s": float(cfg.eval.record_s),
                    "prompt": file_digest(prompt_files(["eval/socratic.v1"])[0])}, \
        answer_model(cfg)


SYSTEMS = (SystemKind("socratic", make), SystemKind("retrieve_socratic", make))
