"""MultiHop-EgoQA's LLM path: the paper's generation prompt per attribute, the validator of
what comes back (balanced, sequential tokens, one span per token, inside the window), re-asked
with the exact problem, and the optional reasonableness judge."""

from __future__ import annotations

import json
import re
from typing import Any

from xlebench.eval.parse import answer_part
from xlebench.eval.scorers import strip_tokens
from xlebench.library.annotations import clean_narration
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json
from xlebench.tasks.multihop.multihop_items import (
    ATTRIBUTE,
    Candidate,
    MultiHopParams,
    make_item,
    whole_seconds,
)
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day

_TOKENS = re.compile(r"<(/?)T(\d+)>")


def validate_generated(value: Any, window_s: float) -> tuple[str, str, dict]:
    """The paper's JSON {Question, Answer, Timespan}, checked: balanced and sequentially
    numbered ``<Tk>`` pairs, exactly one Timespan entry per pair, every span inside the
    window, no timestamp in the question. A ValueError names the problem for the model."""
    if not isinstance(value, dict) or not {"Question", "Answer", "Timespan"} <= set(value):
        raise ValueError('expected an object with "Question", "Answer" and "Timespan"')
    q, a, ts = str(value["Question"]), str(value["Answer"]), value["Timespan"]
    if re.search(r"\d{1,2}:\d{2}|\bsecond", q):
        raise ValueError("the question must not contain a timestamp")
    tokens = _TOKENS.findall(a)
    opens = [int(n) for s, n in tokens if not s]
    closes = [int(n) for s, n in tokens if s]
    expect = list(range(1, len(opens) + 1))
    if not opens or opens != expect or closes != expect or not _nested_right(tokens):
        raise ValueError("the answer's tokens must be balanced pairs numbered <T1></T1>, "
                         "<T2></T2>, ... in order")
    if not isinstance(ts, dict) or set(ts) != {f"<T{n}>" for n in expect}:
        raise ValueError(f"Timespan must have exactly one entry per token pair: "
                         f"{[f'<T{n}>' for n in expect]}")
    spans = {k: _as_spans(v, window_s, k) for k, v in ts.items()}
    return q, a, spans


def _nested_right(tokens: list[tuple[str, str]]) -> bool:
    open_now: int | None = None
    for slash, n in tokens:
        if not slash:
            if open_now is not None:
                return False
            open_now = int(n)
        elif open_now != int(n):
            return False
        else:
            open_now = None
    return open_now is None


def _as_spans(v: Any, window_s: float, key: str) -> list[list[float]]:
    pairs = [v] if v and not isinstance(v[0], list) else v
    out = []
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ValueError(f"{key}: expected [start, end] or a list of them")
        s, e = float(pair[0]), float(pair[1])
        if not 0 <= s <= e <= window_s:
            raise ValueError(f"{key}: [{s:g}, {e:g}] is not inside 0..{window_s:g} seconds")
        out.append([s, e])
    return out


def _descriptions(c: Candidate, origin: float) -> str:
    return "\n".join(f"{o.start - origin:.0f},{o.end - origin:.0f},{clean_narration(o.text)}."
                     for _, occ in c.parts for _, o in occ)


def from_llm(ctx: Context, p: MultiHopParams, c: Candidate, k: int, usage: Usage) -> dict:
    if ctx.llm is None:
        raise ValueError("tasks.multihop_qa.generator=llm needs llm=litellm (or llm=replay)")
    seg = c.parts[0][1][0][0]
    origin = c.window[0] if c.window else float(seg.get("source_start_s", 0.0))
    span = c.window[1] - c.window[0] if c.window else float(seg["source_end_s"]) - origin
    prompt = (p.prompts[f"generate_{ATTRIBUTE[c.node_kind]}"] if p.attribute_prompts
              else p.prompts["generate"])
    messages = load_prompt(prompt).render(
        window_s=f"{span:g}", node=c.node, descriptions=_descriptions(c, origin))
    q, a, spans = ask_json(ctx.llm, messages, lambda v: validate_generated(v, span),
                           max_retries=ctx.llm.settings.max_retries, usage=usage,
                           what=f"multihop_qa {c.node}")
    grounding = {key.strip("<>"): whole_seconds([(to_day(seg, origin + s),
                                                   to_day(seg, origin + e)) for s, e in v])
                 for key, v in sorted(spans.items())}
    return make_item(ctx, p, c, k, q, a, grounding,
                 {"generator": "llm", "model": ctx.llm.settings.model,
                  "prompt_ids": {"generate": prompt}})


def reasonable(ctx: Context, p: MultiHopParams, item: dict, usage: Usage, out: Built
                ) -> bool:
    if ctx.llm is None:
        raise ValueError("tasks.multihop_qa.llm_filter=true needs llm=litellm (or llm=replay)")
    qa = {"Q": item["query"].split(" in the record provided")[0] + "?",
          "A": strip_tokens(answer_part(item["answer"]["text"]))}
    messages = load_prompt(p.prompts["filter"]).render(qa=json.dumps(qa))
    verdict = ask_json(ctx.llm, messages, _judgement, max_retries=ctx.llm.settings.max_retries,
                       usage=usage, what="multihop_qa filter")
    item["provenance"]["filter"] = {"judgement": verdict[0], "rationale": verdict[1],
                                    "prompt": p.prompts["filter"]}
    if verdict[0] == 1:
        out.stats["dropped as unreasonable by the LLM judge"] += 1
    return verdict[0] == 0


def _judgement(value: Any) -> tuple[int, str]:
    if not isinstance(value, dict) or value.get("Judgement") not in (0, 1):
        raise ValueError('expected {"Judgement": 0 or 1, "Rationale": "..."}')
    return int(value["Judgement"]), str(value.get("Rationale", ""))
