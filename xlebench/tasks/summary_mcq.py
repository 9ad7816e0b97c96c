"""Multiple choice from the summary subtasks, with Neptune's decoys and QAD filter
(RECIPES.md R4).

The open-ended items of the ``from`` recipes (single and multi-record summaries) become
questions whose right option is their reference summary. Decoys, offline: *confusing
similarity* — summaries of other records and periods of the same person's day (a real activity,
the wrong time) — and *subtle tweaks* — the right summary with one object or place swapped for
one seen elsewhere that day; each decoy's length is kept within ``length_ratio`` of the right
answer's where candidates allow (otherwise the item records how many fell outside). Or by the
LLM with Neptune's decoy prompt (similar length and style). Then the ``qad_rank`` filter (a
text-only model ranks the five options; dropped when solvable in at least 2 of 3 seeds) keeps
text-only shortcuts out. ``provenance.source_item`` links each item to its open-ended source so
both scores can be shown side by side.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from xlebench.config.knobs import knob
from xlebench.eval.scorers import ChoiceAccuracy
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_text
from xlebench.tasks.actions import parse_narration
from xlebench.tasks.context import Built, Context
from xlebench.tasks.filters import QAD_PROMPT, RecipeParams
from xlebench.tasks.mcq import FORMAT, mcq_answer, mcq_query, shuffled
from xlebench.tasks.registry import Recipe, load_recipe

DECOY_PROMPT = "tasks/neptune_decoys.v1"
_WRONG = re.compile(r"^\W*wrong\s+answer\s*\d+\s*[:.)\-]\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_DET = re.compile(r"\b(?:the|a|an|his|her|some)\s+([a-z]{3,})\b", re.IGNORECASE)


@dataclass
class Decoys:
    n: int = knob(4, ge=1, le=9)
    generator: str = knob("offline", choices=("offline", "llm"))
    techniques: list[str] = knob(factory=lambda: ["confusing_similarity", "subtle_tweak"],
                                 choices=("confusing_similarity", "subtle_tweak"), each=True)
    prompt: str = DECOY_PROMPT
    length_ratio: list[float] = knob(factory=lambda: [0.8, 1.25], gt=0, le=10, each=True)


@dataclass
class SummaryMCQParams(RecipeParams):
    #: Open-ended recipes whose items become questions (their reference = the right option).
    source: list[str] = field(default_factory=lambda: ["single_summary", "multi_summary"])
    decoys: Decoys = field(default_factory=Decoys)
    max_items_per_log: int | None = knob(8, ge=1)


def _words(text: str) -> int:
    return max(1, len(text.split()))


def _nouns(ctx: Context, uids: set[str]) -> set[str]:
    """Objects and places C handles in these records (narration parse), else the nouns after
    a determiner in their library summaries."""
    found: set[str] = set()
    for uid in uids:
        for n in (ctx.ann.narrations.get(uid) or [[]])[0]:
            parsed = parse_narration(n.text)
            if parsed:
                found |= {w for w in (parsed.dobj, parsed.pobj) if w}
        if uid in ctx.videos:
            found |= {m.lower() for m in _DET.findall(ctx.videos[uid].summary)}
    return found


def _tweaks(text: str, own: set[str], other: set[str], rng: random.Random) -> list[str]:
    """The text with one of its own nouns swapped for one seen elsewhere that day."""
    words = {m.group(1).lower() for m in _DET.finditer(text)} & (own | other)
    out = []
    for w in sorted(words):
        swaps = sorted(other - own - {w})
        if swaps:
            new = rng.choice(swaps)
            out.append(re.sub(rf"\b{re.escape(w)}\b", new, text, count=1, flags=re.IGNORECASE))
    return out


def _offline(ctx: Context, p: Decoys, item: dict, others: list[dict]) -> tuple[list[str], dict]:
    answer = item["answer"]["text"]
    own = {e["video_uid"] for e in item["evidence"]}
    pool: list[str] = []
    if "confusing_similarity" in p.techniques:
        pool += [o["answer"]["text"] for o in others if o["item_id"] != item["item_id"]]
        pool += [ctx.videos[s["video_uid"]].summary for s in ctx.log["segments"]
                 if s["video_uid"] not in own and s["video_uid"] in ctx.videos]
    if "subtle_tweak" in p.techniques:
        all_uids = {s["video_uid"] for s in ctx.log["segments"]}
        pool += _tweaks(answer, _nouns(ctx, own), _nouns(ctx, all_uids - own), ctx.rng)
    lo, hi = p.length_ratio
    pool = sorted({c for c in pool if c.strip() and c.strip().lower() != answer.strip().lower()})
    ratio = {c: _words(c) / _words(answer) for c in pool}
    inside = [c for c in pool if lo <= ratio[c] <= hi]
    ctx.rng.shuffle(inside)
    outside = sorted((c for c in pool if c not in inside), key=lambda c: abs(ratio[c] - 1))
    picked = (inside + outside)[: p.n]
    return picked, {"generator": "offline", "candidates": len(pool),
                    "outside_length_ratio": sum(c not in inside for c in picked),
                    "length_ratios": [round(ratio[c], 3) for c in picked]}


def _llm(ctx: Context, p: Decoys, item: dict, others: list[dict], usage: Usage
         ) -> tuple[list[str], dict]:
    if ctx.llm is None:
        raise ValueError("tasks.summary_mcq.decoys.generator=llm needs llm=litellm (or replay)")
    answer = item["answer"]["text"]
    context = " ".join(o["answer"]["text"] for o in others if o["item_id"] != item["item_id"])
    messages = load_prompt(p.prompt).render(
        question=item["query"], answer=answer, context=context[:2000] or "(none)",
        decoy_number=str(p.n), words=str(_words(answer)))

    def parse(text: str) -> list[str]:
        found = [w for w in _WRONG.findall(text) if w.strip().lower() != answer.lower()]
        if len(found) < p.n:
            raise ValueError(f'expected {p.n} lines "WRONG ANSWER k: ...", found {len(found)}')
        return found[: p.n]
    decoys = ask_text(ctx.llm, messages, parse, max_retries=ctx.llm.settings.max_retries,
                      usage=usage, what="summary_mcq decoys")
    return decoys, {"generator": "llm", "model": ctx.llm.settings.model, "prompt": p.prompt,
                    "length_ratios": [round(_words(d) / _words(answer), 3) for d in decoys]}


def _sources(ctx: Context, names: list[str]) -> list[dict]:
    items = []
    for name in names:
        recipe = load_recipe(name)
        sctx = Context(name, recipe.task, ctx.log, ctx.videos, ctx.ann, random.Random(0),
                       ctx.aggregate, ctx.llm, ctx.encode)
        items += recipe.build(sctx, recipe.params({})).items
    return items


def build(ctx: Context, p: SummaryMCQParams) -> Built:
    out, usage = Built(), Usage()
    sources = _sources(ctx, list(p.source))
    made = []
    for src in sources:
        if p.decoys.generator == "llm":
            decoys, info = _llm(ctx, p.decoys, src, sources, usage)
        else:
            decoys, info = _offline(ctx, p.decoys, src, sources)
        if len(decoys) < p.decoys.n:
            out.stats["source items with too few decoy candidates"] += 1
            continue
        made.append((src, decoys, info))
    if p.max_items_per_log is not None and len(made) > p.max_items_per_log:
        keep = sorted(ctx.rng.sample(range(len(made)), p.max_items_per_log))
        made = [made[i] for i in keep]
    for k, (src, decoys, info) in enumerate(made):
        options, label = shuffled(src["answer"]["text"], decoys, ctx.rng)
        question = src["query"]
        period = (src["period"]["start_s"], src["period"]["end_s"])
        out.items.append(ctx.item(
            k=k, query=mcq_query(question, options), period=period, text=options[label],
            answer={k2: v for k2, v in mcq_answer(options, label).items() if k2 != "text"},
            evidence=src["evidence"],
            provenance={"question": question, "source_item": src["item_id"],
                        "source_subtask": src["subtask"], "decoys": info,
                        "source_file": src["provenance"].get("source_file", "")}))
    return out


RECIPE = Recipe(
    name="summary_mcq", task="multiple_choice", schema=SummaryMCQParams, build=build,
    scorer=ChoiceAccuracy(), primary="acc", answer_format=FORMAT,
    answer_source="library summaries (the summary subtasks' references) with decoys",
    prompts=(DECOY_PROMPT, QAD_PROMPT), needs=("summaries",), group="multiple choice",
    description="Which summary is right for a record or period, among four decoys (Neptune).")
