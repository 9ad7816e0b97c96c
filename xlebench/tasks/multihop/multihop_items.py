"""MultiHop-EgoQA's items (seed 003): the recipe's parameters, a mined candidate, and how a
candidate becomes a question, an answer with ``<Tk>`` tokens and its grounded spans — shared by
the template generator (`xlebench.tasks.multihop.multihop_qa`), the LLM path
(`xlebench.tasks.multihop.multihop_llm`) and the full-information oracle
(`xlebench.tasks.multihop.multihop_oracle`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from xlebench.config.knobs import knob
from xlebench.eval.metrics import union
from xlebench.eval.parse import grounded_reply
from xlebench.eval.scorers import strip_tokens
from xlebench.library.language import INSIDE, at_place, join_and, past
from xlebench.tasks.language import wording as W
from xlebench.tasks.multihop import hop_events as E
from xlebench.tasks.multihop import hop_people as P
from xlebench.tasks.multihop.hops import Occurrence
from xlebench.tasks.multihop.multihop_split import SPLITS
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence
from xlebench.tasks.screening.filters import RecipeParams


@dataclass
class NarrationRule:
    min: int = knob(30, ge=0)
    max: int = knob(60, ge=1)
    min_first_last_s: float = knob(150.0, ge=0)


@dataclass
class Recurrence:
    gt: int = knob(2, ge=0)
    lt: int = knob(5, ge=1)


@dataclass
class MultiHopParams(RecipeParams):
    scope: str = knob("clip", choices=("clip", "log"))
    window_s: float = knob(180.0, gt=0, le=3600)
    narrations: NarrationRule = field(default_factory=NarrationRule)
    #: action (A), dobj (B), verb (C), pobj (D: an object's places).
    nodes: list[str] = knob(factory=lambda: ["action", "dobj", "verb", "pobj"],
                            choices=("action", "dobj", "verb", "pobj"), each=True, nonempty=True)
    recurrence: Recurrence = field(default_factory=Recurrence)
    #: scope=log counts a node over the whole day: more occurrences are expected.
    log_recurrence: Recurrence = field(default_factory=lambda: Recurrence(2, 9))
    min_node_span_s: float = knob(10.0, ge=0)
    #: The paper's categories the templates write (Table 6): A repeated activities, B multiple
    #: actions, C multiple objects, D multiple locations, E event composition, F comparison.
    categories: list[str] = knob(factory=lambda: list("ABCDEF"), choices=tuple("ABCDEF"),
                                 each=True, nonempty=True)
    #: Shares of the categories among a log's items where candidates allow (MultiHop-EgoQA,
    #: Table 6); a category's candidates share its weight.
    category_shares: dict[str, float] = knob(factory=lambda: {
        "A": 0.396, "B": 0.224, "C": 0.179, "D": 0.067, "E": 0.103, "F": 0.031}, ge=0,
        each=True)
    generator: str = knob("template", choices=("template", "llm"))
    llm_filter: bool = False
    prompts: dict[str, str] = field(default_factory=lambda: {
        "generate": "tasks/multihop_generate.v1", "filter": "tasks/multihop_filter.v1",
        "generate_verb": "tasks/multihop_generate_verb.v1",
        "generate_dobj": "tasks/multihop_generate_dobj.v1",
        "generate_pobj": "tasks/multihop_generate_pobj.v1"})
    #: generator=llm: the paper's one prompt per attribute of the node (verb, dobj, pobj; an
    #: action node uses the verb's), each with seven examples; false: ``generate`` for all.
    attribute_prompts: bool = True
    time_only_share: float = knob(0.3, ge=0, le=1)
    max_items_per_log: int | None = knob(8, ge=1)
    #: True spans shorter than this are widened symmetrically (a narration at s = e is 0 s).
    min_span_s: float = knob(1.0, ge=0)
    #: MultiHop-EgoQA's sets: train (generated), test (refined: the full-information oracle
    #: must reproduce each item), by source video (`xlebench.tasks.multihop.multihop_split`); all: both.
    split: str = knob("all", choices=SPLITS)
    test_share: float = knob(0.3, gt=0, lt=1)


#: The paper's attribute (and generation prompt) of each node kind.
ATTRIBUTE = {"action": "verb", "verb": "verb", "dobj": "dobj", "pobj": "pobj",
             "person": "pobj"}

FORMAT = ("Answer in MultiHop-EgoQA's layout: a line `###Answer:` followed by one or two "
          "sentences, then a line `###Evidence:` followed by the supporting time spans as "
          "[HH:MM:SS - HH:MM:SS], separated by commas (a line `###Rationale:` may follow).")


@dataclass
class Candidate:
    category: str  # A-F
    node_kind: str
    node: str
    parts: list[tuple[str, list[tuple[dict, Occurrence]]]]  # (phrase, occurrences) per token
    period: tuple[float, float]
    window: tuple[float, float] | None  # source seconds (scope=clip)
    narration_pass: int | None
    #: F: the one-off action compared with the node; D over people: the object phrase
    other: str | None = None
    how: str = ""  # F: node_first | other_first | between; D over people: the preposition
    said: tuple[str, str] = ("", "")  # E: the node's verb and object, as the question says



def richer_pass(passes: list, a: float, b: float) -> tuple[int, list]:
    def c_lines(p: list) -> int:
        return sum(1 for n in p if a <= n.t < b and n.text.lower().startswith("#c"))
    k = max(range(len(passes)), key=lambda i: (c_lines(passes[i]), -i))
    return k, [n for n in passes[k] if a <= n.t < b]

def same_kind_places(places: set[str]) -> list[str]:
    """D's places, all of one kind: rooms and venues ("kitchen", "restaurant") when two or
    more, else spots ("counter", "sink") — "at the counter and in the restaurant" mixes a
    spot with a room the spot is in, which is not two places."""
    areas = sorted(pl for pl in places if pl.endswith(INSIDE))
    spots = sorted(places - set(areas))
    return areas if len(areas) >= 2 else spots if len(spots) >= 2 else []

# -- items ----------------------------------------------------------------------------------

def past_phrase(verb: str) -> str:
    head, *rest = verb.split()
    return " ".join([past(head), *rest])


def past_it(verb: str) -> str:
    """``picked it up``, ``washed it``: the pronoun before a particle."""
    head, *rest = verb.split()
    return " ".join([past(head), "it", *rest])


def spans_of(occs: list[tuple[dict, Occurrence]], min_span_s: float) -> list[list[float]]:
    out = []
    for seg, o in occs:
        a, b = to_day(seg, o.start), to_day(seg, o.end)
        if b - a < min_span_s:
            mid = (a + b) / 2
            a, b = mid - min_span_s / 2, mid + min_span_s / 2
        out.append((a, b))
    return whole_seconds(out)


def whole_seconds(spans: list) -> list[list[float]]:
    """Spans on whole seconds (start down, end up), merged: the resolution of the answer
    format ([HH:MM:SS - HH:MM:SS]) and of the paper's time spans, so a reply that copies the
    reference is exactly right."""
    return [[float(a), float(b)] for a, b in union(
        [(math.floor(a), math.ceil(b)) for a, b in spans])]


def wording(category: str, node: str, parts: list[str], n: int, time_only: bool,
            action: tuple[str, str] = ("", ""), how: str = "") -> tuple[str, str]:
    """(question without its period, answer with tokens) of categories A-D: A asks how
    often an action (``action``: its verb and object, "pick up", "cutting board") recurred
    (``n`` times), B everything done to an object (``parts``: the verbs), C everything a verb
    was done to (``parts``: the objects), D where an object was handled (``parts``: the
    places); answers list every part, each grounded by its own token."""
    if category == "A":
        verb, obj = action
        if time_only:
            return f"When did I {verb} the {obj}", "<T1></T1>"
        return (f"How many times did I {verb} the {obj}",
                f"You <T1>{past_phrase(verb)} the {obj}</T1> {n} times.")
    if category == "B":
        done = [f"<T1>{past_phrase(parts[0])} the {node}</T1>"] + [
            f"<T{i + 1}>{past_it(v)}</T{i + 1}>" for i, v in enumerate(parts[1:], start=1)]
        return f"What did I do with the {node}", f"You {join_and(done)}."
    if category == "E":
        verb, obj = action
        return (f"What did I do right after I {past_phrase(verb)} the {obj} each time",
                E.composition_answer(parts, past_phrase))
    if category == "F":
        return (f"Did I {parts[0]} or {parts[1]} first",
                E.comparison_answer(parts[0], parts[1], how, past_phrase))
    if category == "D":
        where = [f"<T{i + 1}>{at_place(pl)}</T{i + 1}>" for i, pl in enumerate(parts)]
        return f"Where did I handle the {node}", f"You handled the {node} {join_and(where)}."
    things = [f"<T{i + 1}>the {o}</T{i + 1}>" for i, o in enumerate(parts)]
    return f"What did I {node}", f"You {past_phrase(node)} {join_and(things)}."


def template(c: Candidate, time_only: bool) -> tuple[str, str]:
    if c.node_kind == "person":
        return P.wording(c.node, c.other or "", c.how, [w for w, _ in c.parts], past_phrase)
    first = c.parts[0][1][0][1]
    if c.category == "E":  # the node's own action, not its first successor's
        first = Occurrence(0, 0, *c.said, None)
    return wording(c.category, c.node, [phrase for phrase, _ in c.parts],
                   len(c.parts[0][1]), time_only, (first.verb, first.dobj or ""), c.how)


def make_item(ctx: Context, p: MultiHopParams, c: Candidate, k: int, question: str, answer: str,
          grounding: dict[str, list[list[float]]], extra: dict[str, Any]) -> dict:
    spans = [list(s) for s in union([s for g in grounding.values() for s in g])]
    time_only = not strip_tokens(answer)
    occs = [x for _, occ in c.parts for x in occ]
    return ctx.item(
        k=k, query=W.retrieval_query(question, *c.period), period=c.period, spans=spans,
        text=grounded_reply(answer, W.span_text(spans)),
        answer={"grounding": grounding, "time_only": time_only},
        evidence=[evidence(seg, o.start, o.end) for seg, o in occs],
        provenance={"node": c.node, "node_kind": c.node_kind, "occurrences": len(occs),
                    "narration_pass": c.narration_pass, "window_s": p.window_s,
                    "source_file": ctx.ann.narration_file, **extra},
        extra={"hop_category": c.category, "hops": len(spans),
               "tags": {"category": c.category}})
