"""Neptune's multiple-choice view (seed 001, Table 6): the ``neptune_qa`` questions of a life log,
exactly as compiled there, posed with their four decoys as five options.

Neptune evaluates each question two ways: open-ended (judged by GEM) and as a five-way
multiple-choice question, its headline (Table 6, accuracy per capability). This recipe is the
second view: every ``neptune_qa`` item that carries decoys becomes an item whose query lists
the options (``Option k: ...``), scored by `ChoiceAccuracy`, tagged with the same capability, so
the results break down per capability as Table 6 does (the leaderboard prints that layout:
systems by capabilities, with the task average). ``provenance.source_item`` links each item to
its open-ended source.

Both views of one question print each other's answer (the options hold the open-ended answer),
so in one benchmark the leak audit keeps one view per question (`xlebench.tasks.screening.leaks`); pick
one view with ``tasks=[neptune_mcq]`` or ``tasks=[neptune_qa]``, or keep both with
``annotate.printed_answers=keep`` (the paper's forms, audited).
"""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.scorers import ChoiceAccuracy
from xlebench.tasks.choices.mcq import FORMAT, mcq_answer, mcq_query, option_reply
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.derived import source_items, source_params
from xlebench.tasks.recipe.registry import Recipe, load_recipe
from xlebench.tasks.screening.filters import QAD_PROMPT, RecipeParams

SOURCE = "neptune_qa"


@dataclass
class NeptuneMCQParams(RecipeParams):
    #: At most this many questions per life log (None: every open-ended item with decoys).
    max_items_per_log: int | None = knob(None, ge=1)


def build(ctx: Context, p: NeptuneMCQParams) -> Built:
    out = Built()
    sources = source_items(ctx, [SOURCE])
    posed = [s for s in sources if s["answer"].get("options")]
    out.stats["open-ended items without decoys (tasks.neptune_qa.decoys=0)"] += (
        len(sources) - len(posed))
    if p.max_items_per_log is not None and len(posed) > p.max_items_per_log:
        keep = sorted(ctx.rng.sample(range(len(posed)), p.max_items_per_log))
        posed = [posed[i] for i in keep]
    for k, src in enumerate(posed):
        options, label = src["answer"]["options"], src["answer"]["label"]
        out.items.append(ctx.item(
            k=k, query=mcq_query(src["query"], options),
            period=(src["period"]["start_s"], src["period"]["end_s"]), text=options[label],
            spans=[tuple(s) for s in src["answer"].get("spans", [])],
            answer={k2: v for k2, v in mcq_answer(options, label).items() if k2 != "text"},
            evidence=src["evidence"],
            provenance={"question": src["query"], "source_item": src["item_id"],
                        "source_subtask": SOURCE, "capability": src["tags"]["capability"],
                        "source_file": src["provenance"].get("source_file", ""),
                        "annotation_ids": src["provenance"].get("annotation_ids", [])},
            extra={"tags": dict(src["tags"])}))
    return out


def oracle(ctx: Context, p: NeptuneMCQParams, item: dict) -> str | None:
    """The option the open-ended recipe's own oracle gives for the source question (re-read
    from the narrations); None where that oracle has no source (LLM-written questions)."""
    prov = item["provenance"]
    source = next((s for s in source_items(ctx, [SOURCE]) if s["item_id"] == prov["source_item"]),
                  None)
    if source is None:
        return ""
    reply = load_recipe(SOURCE).oracle(ctx, source_params(ctx, SOURCE), source)
    return None if reply is None else option_reply(item["answer"]["options"], reply)


RECIPE = Recipe(
    name="neptune_mcq", task="multiple_choice", schema=NeptuneMCQParams, build=build,
    scorer=ChoiceAccuracy(), primary="acc", answer_format=FORMAT,
    answer_source="Ego4D narrations (rules per capability, or LLM-written as in Neptune) and "
                  "library summaries, with Neptune's decoys (neptune_qa's items)",
    prompts=(QAD_PROMPT,), needs=("narrations",), group="multiple choice", derived=True,
    oracle=oracle, answers="descriptions", shows=("descriptions",),
    description="Neptune's questions as five-way multiple choice, per capability (Table 6).")
