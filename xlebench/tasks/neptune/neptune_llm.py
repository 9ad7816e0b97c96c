"""Neptune's LLM generator (``generator=llm``): questions written by a model over a record's
timestamped captions in the paper's presentation (``QUESTION k: (capability) ...`` /
``CORRECT ANSWER: ...``), and decoys written by a model for a question and its answer."""

from __future__ import annotations

import re
from typing import Any

from xlebench.eval.scorers.short import parse_number
from xlebench.library.annotations import clean_narration
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_text
from xlebench.tasks.recipe.context import Built, Context

CAPABILITIES = {"TO": "temporal ordering", "CE": "cause and effect", "SC": "state changes",
                "VN": "visual narrative", "CI": "creator intent", "CT": "counting",
                "PR": "predictive", "GR": "goal reasoning", "CMP": "comparison",
                "ID": "identification", "SUM": "summarization", "OTH": "other"}
_QUESTION = re.compile(r"^\W*question\s*\d+\s*[:.)]\s*(?:\(([^)]*)\)\s*)?(.+?)\s*$",
                       re.IGNORECASE | re.MULTILINE)
_ANSWER = re.compile(r"^\W*correct\s+answer\s*[:.]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_WRONG = re.compile(r"^\W*wrong\s+answer\s*\d+\s*[:.)\-]\s*(.+?)\s*$",
                    re.IGNORECASE | re.MULTILINE)
#: Words of a generator's capability label -> Neptune's abbreviation (first match wins).
_LABELS = (("order", "TO"), ("timeline", "TO"), ("temporal ordering", "TO"), ("cause", "CE"),
           ("state", "SC"), ("visual narrative", "VN"), ("creator", "CI"), ("intent", "CI"),
           ("message", "CI"), ("count", "CT"), ("predict", "PR"), ("goal", "GR"),
           ("compar", "CMP"), ("identif", "ID"), ("visual-temporal", "ID"),
           ("visual reasoning", "VN"), ("summar", "SUM"))


def record_summary(ctx: Context, seg: dict) -> str:
    video = ctx.videos.get(seg["video_uid"])
    return video.summary if video else ""


def llm_decoys(ctx: Context, p: Any, q: str, answer: str, context: str,
                usage: Usage) -> list[str]:
    messages = load_prompt(p.prompts.decoys).render(
        question=q, answer=answer, context=context[:2000] or "(none)",
        decoy_number=str(p.decoys), words=str(max(1, len(answer.split()))))

    def parse(text: str) -> list[str]:
        found = [w for w in _WRONG.findall(text) if w.strip().lower() != answer.lower()]
        if len(found) < p.decoys:
            raise ValueError(f'expected {p.decoys} lines "WRONG ANSWER k: ...", '
                             f"found {len(found)}")
        return found[: p.decoys]
    return ask_text(ctx.llm, messages, parse, max_retries=ctx.llm.settings.max_retries,
                    usage=usage, what="neptune_qa decoys")


def captions(evs_text: list[tuple[float, str]], start: float) -> str:
    """Neptune's input: timestamped dense captions, one ``MM:SS - caption`` line each."""
    return "\n".join(f"{int(t - start) // 60:02d}:{int(t - start) % 60:02d} - {text}"
                     for t, text in evs_text)


def capability_code(label: str) -> str:
    low = label.lower()
    if label.strip().upper() in CAPABILITIES:
        return label.strip().upper()
    return next((code for word, code in _LABELS if word in low), "OTH")


def parse_qa(text: str, n: int) -> list[tuple[str, str, str]]:
    """``QUESTION k: (capability) question`` / ``CORRECT ANSWER: answer`` pairs, in order:
    (capability code, question, answer)."""
    qs = [(m.start(), m.group(1) or "", m.group(2)) for m in _QUESTION.finditer(text)]
    ans = [(m.start(), m.group(1)) for m in _ANSWER.finditer(text)]
    out = []
    for k, (at, label, q) in enumerate(qs):
        end = qs[k + 1][0] if k + 1 < len(qs) else len(text)
        a = next((a for pos, a in ans if at < pos < end), None)
        if a:
            out.append((capability_code(label), q.strip(), a.strip()))
    if not out:
        raise ValueError('expected "QUESTION 1: (capability) ..." lines, each followed by '
                         '"CORRECT ANSWER: ..."')
    return out[:n]


def llm_questions(ctx: Context, p: Any, out: Built) -> list[dict]:
    """Neptune's generator (stage C.2): per record, the model's questions over its
    timestamped captions (and, with ``visual_support``, the model's visual summary first)."""
    if ctx.llm is None:
        raise ValueError("tasks.neptune_qa.generator=llm needs llm=litellm (or llm=replay)")
    usage, found = Usage(), []
    kw = dict(max_retries=ctx.llm.settings.max_retries, usage=usage)
    for seg in ctx.log["segments"]:
        a = float(seg.get("source_start_s", 0.0))
        passes = ctx.ann.narrations.get(seg["video_uid"]) or [[]]
        lines = [(n.t, clean_narration(n.text)) for n in max(passes, key=len)
                 if a <= n.t < float(seg["source_end_s"])]
        if len(lines) < p.min_narrations:
            out.stats["records with too few narrations"] += 1
            continue
        captions_text = captions(lines, a)
        if p.visual_support:
            support = ask_text(ctx.llm, load_prompt(p.prompts.visual_support).render(
                story=record_summary(ctx, seg) or "(none)", captions=captions_text), str.strip,
                what="neptune_qa visual support", **kw)
            captions_text += f"\n\nVisual support: {support}"
        messages = load_prompt(p.prompts.question).render(
            target_number=str(p.n_questions), video_inputs_str=captions_text)
        for cap, q, ans in ask_text(ctx.llm, messages, lambda t: parse_qa(t, p.n_questions),
                                    what="neptune_qa questions", **kw):
            single = re.fullmatch(r"\W*\w+\W*", ans)  # a bare number: an exact count
            value = parse_number(ans) if cap == "CT" and single else None
            answer = ({"text": str(value), "shape": "count", "value": value, "at": []}
                      if value is not None else {"text": ans, "shape": "text", "at": []})
            found.append({"seg": seg, "cap": cap, "q": q, "answer": answer, "subject": {},
                          "evs": [], "context": captions_text, "usage": usage,
                          "prov": {"generator": "llm", "model": ctx.llm.settings.model,
                                   "prompts": {"question": p.prompts.question,
                                               **({"visual_support": p.prompts.visual_support}
                                                  if p.visual_support else {})}}})
    return found
