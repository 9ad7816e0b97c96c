"""Multi-hop grounded QA over life logs (MultiHop-EgoQA, seed 003): questions whose answer
needs several moments, each answer part grounded by ``<Tk>`` tokens to its time spans.

``scope=clip`` is the paper: non-overlapping 3-minute windows of one record that pass its rule
filter (30-60 narrations, first to last at least 150 s apart), nodes that recur strictly more
than 2 and fewer than 5 times. ``scope=log`` asks about hops in different records of the day —
the question only a life log can pose. Questions come from templates offline (categories A:
a repeated action, B: several actions on one object, C: one verb on several objects, D: one
object in several places — node ``pobj``, the paper's third attribute — E: what followed each
time a recurring action happened, F: whether a recurring or a one-off action came first;
`xlebench.tasks.hop_events`) or from
the LLM with the paper's generation prompt, validated (balanced, sequential tokens, one span
per token, inside the window) and re-asked with the exact problem; an optional LLM judge drops
unreasonable pairs.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from xlebench.config.knobs import knob
from xlebench.eval.baselines.captions import clean_narration
from xlebench.eval.metrics import union
from xlebench.eval.parse import answer_part, grounded_reply
from xlebench.eval.scorers import GroundedAnswer, strip_tokens
from xlebench.library.language import INSIDE, at_place, join_and, past
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json
from xlebench.tasks import hop_events as E
from xlebench.tasks import hop_people as P
from xlebench.tasks import wording as W
from xlebench.tasks.common import evidence, segment_of
from xlebench.tasks.context import Built, Context
from xlebench.tasks.filters import RecipeParams
from xlebench.tasks.hops import Mined, Occurrence, mine, occurrences, recurring
from xlebench.tasks.items import to_day
from xlebench.tasks.multihop_split import SPLITS, keep_split
from xlebench.tasks.registry import Recipe


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
                            choices=("action", "dobj", "verb", "pobj"), each=True)
    recurrence: Recurrence = field(default_factory=Recurrence)
    #: scope=log counts a node over the whole day: more occurrences are expected.
    log_recurrence: Recurrence = field(default_factory=lambda: Recurrence(2, 9))
    min_node_span_s: float = knob(10.0, ge=0)
    #: The paper's categories the templates write (Table 6): A repeated activities, B multiple
    #: actions, C multiple objects, D multiple locations, E event composition, F comparison.
    categories: list[str] = knob(factory=lambda: list("ABCDEF"), choices=tuple("ABCDEF"),
                                 each=True)
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
    #: must reproduce each item), by source video (`xlebench.tasks.multihop_split`); all: both.
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


# -- mining ---------------------------------------------------------------------------------

def _richer_pass(passes: list, a: float, b: float) -> tuple[int, list]:
    def c_lines(p: list) -> int:
        return sum(1 for n in p if a <= n.t < b and n.text.lower().startswith("#c"))
    k = max(range(len(passes)), key=lambda i: (c_lines(passes[i]), -i))
    return k, [n for n in passes[k] if a <= n.t < b]


def _clip_candidates(ctx: Context, p: MultiHopParams, out: Built) -> list[Candidate]:
    found = []
    for seg in ctx.log["segments"]:
        passes = ctx.ann.narrations.get(seg["video_uid"])
        if not passes:
            out.stats["segments without narrations"] += 1
            continue
        a0, b0 = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
        for k in range(int((b0 - a0) // p.window_s)):
            a, b = a0 + k * p.window_s, a0 + (k + 1) * p.window_s
            which, narrs = _richer_pass(passes, a, b)
            if not p.narrations.min <= len(narrs) <= p.narrations.max:
                out.stats["windows outside the narration count rule"] += 1
                continue
            if narrs[-1].t - narrs[0].t < p.narrations.min_first_last_s:
                out.stats["windows whose narrations span too little"] += 1
                continue
            occs = occurrences(narrs, b)
            period = (to_day(seg, a), to_day(seg, b))
            found += _from_nodes(mine(occs), p, p.recurrence, seg, period, (a, b), which + 1,
                                 ordered=[(seg, o) for o in occs])
    return found


def _log_candidates(ctx: Context, p: MultiHopParams, out: Built) -> list[Candidate]:
    """Nodes counted over the whole day; only those seen in two records or more."""
    tagged: list[tuple[dict, Occurrence]] = []
    for seg in ctx.log["segments"]:
        passes = ctx.ann.narrations.get(seg["video_uid"])
        if not passes:
            continue
        a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
        _, narrs = _richer_pass(passes, a, b)
        tagged += [(seg, o) for o in occurrences(narrs, b)]
    mined = mine([o for _, o in tagged])
    seg_of = {id(o): s for s, o in tagged}
    segs = ctx.log["segments"]
    period = (float(segs[0]["start_s"]), float(segs[-1]["end_s"])) if segs else (0.0, 0.0)
    found = _from_nodes(mined, p, p.log_recurrence, None, period, None, None, seg_of,
                        ordered=tagged)
    kept = [c for c in found if len({s["index"] for _, occ in c.parts for s, _ in occ}) >= 2]
    out.stats["nodes within one record only"] += len(found) - len(kept)
    return kept


def _from_nodes(mined: Mined, p: MultiHopParams, rec: Recurrence, seg: dict | None,
                period: tuple[float, float], window: tuple[float, float] | None,
                which: int | None, seg_of: dict | None = None,
                ordered: list[tuple[dict, Occurrence]] | None = None) -> list[Candidate]:
    def tag(occs: list[Occurrence]) -> list[tuple[dict, Occurrence]]:
        return [(seg if seg is not None else seg_of[id(o)], o) for o in occs]

    out = []
    for (kind, node), occs in sorted(mined.occurrences.items()):
        if not recurring(occs, rec.gt, rec.lt, p.min_node_span_s):
            continue
        places = same_kind_places({o.pobj for o in occs if o.pobj}) if kind == "dobj" else []
        if "pobj" in p.nodes and len(places) >= 2:
            out.append(Candidate("D", "pobj", node, [
                (pl, tag([o for o in occs if o.pobj == pl])) for pl in places], period,
                window, which))
        if "pobj" in p.nodes and kind == "verb" and seg is not None \
                and (named := P.people(occs)) is not None:  # people: one video's letters
            prep, obj, who = named
            out.append(Candidate("D", "person", node, [
                (w, tag([occs[k] for k in ks])) for w, ks in who], period, window, which,
                other=obj, how=prep))
        if kind not in p.nodes:
            continue
        if kind == "action":
            out += _events(node, occs, ordered or [], tag, period, window, which)
            parts = [(node, tag(occs))]
            cat = "A"
        elif kind == "dobj" and len(verbs := mined.verbs_of(node)) >= 2:
            # every verb the object took: the question asks what C did with it, all of it
            parts = [(v, tag([o for o in occs if o.verb == v])) for v in verbs]
            cat = "B"
        elif kind == "verb" and len(objs := mined.objects_of(node)) >= 2:
            parts = [(o, tag([x for x in occs if x.dobj == o])) for o in objs]
            cat = "C"
        else:
            continue
        out.append(Candidate(cat, kind, node, parts, period, window, which))
    return [c for c in out if c.category in p.categories]


def _events(node: str, occs: list[Occurrence], ordered: list, tag, period, window, which
            ) -> list[Candidate]:
    """E and F candidates of a recurring action (`xlebench.tasks.hop_events`)."""
    out = []
    nxt = E.after_each(ordered, node)
    if nxt:
        out.append(Candidate("E", "action", node, [(E.phrase(o), [(s, o)]) for s, o in nxt],
                             period, window, which, said=(occs[0].verb, occs[0].dobj or "")))
    off = E.one_off(ordered, node)
    how = E.relation(ordered, node, E.action(off[1])) if off else None
    if off and how:
        out.append(Candidate("F", "action", node, [(E.phrase(occs[0]), tag(occs)),
                                                   (E.phrase(off[1]), [off])],
                             period, window, which, E.action(off[1]), how))
    return out


def same_kind_places(places: set[str]) -> list[str]:
    """D's places, all of one kind: rooms and venues ("kitchen", "restaurant") when two or
    more, else spots ("counter", "sink") — "at the counter and in the restaurant" mixes a
    spot with a room the spot is in, which is not two places."""
    areas = sorted(pl for pl in places if pl.endswith(INSIDE))
    spots = sorted(places - set(areas))
    return areas if len(areas) >= 2 else spots if len(spots) >= 2 else []


# -- items ----------------------------------------------------------------------------------

def _past(verb: str) -> str:
    head, *rest = verb.split()
    return " ".join([past(head), *rest])


def _past_it(verb: str) -> str:
    """``picked it up``, ``washed it``: the pronoun before a particle."""
    head, *rest = verb.split()
    return " ".join([past(head), "it", *rest])


def _spans(occs: list[tuple[dict, Occurrence]], min_span_s: float) -> list[list[float]]:
    out = []
    for seg, o in occs:
        a, b = to_day(seg, o.start), to_day(seg, o.end)
        if b - a < min_span_s:
            mid = (a + b) / 2
            a, b = mid - min_span_s / 2, mid + min_span_s / 2
        out.append((a, b))
    return _whole_seconds(out)


def _whole_seconds(spans: list) -> list[list[float]]:
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
                f"You <T1>{_past(verb)} the {obj}</T1> {n} times.")
    if category == "B":
        done = [f"<T1>{_past(parts[0])} the {node}</T1>"] + [
            f"<T{i + 1}>{_past_it(v)}</T{i + 1}>" for i, v in enumerate(parts[1:], start=1)]
        return f"What did I do with the {node}", f"You {join_and(done)}."
    if category == "E":
        verb, obj = action
        return (f"What did I do right after I {_past(verb)} the {obj} each time",
                E.composition_answer(parts, _past))
    if category == "F":
        return (f"Did I {parts[0]} or {parts[1]} first",
                E.comparison_answer(parts[0], parts[1], how, _past))
    if category == "D":
        where = [f"<T{i + 1}>{at_place(pl)}</T{i + 1}>" for i, pl in enumerate(parts)]
        return f"Where did I handle the {node}", f"You handled the {node} {join_and(where)}."
    things = [f"<T{i + 1}>the {o}</T{i + 1}>" for i, o in enumerate(parts)]
    return f"What did I {node}", f"You {_past(node)} {join_and(things)}."


def _template(c: Candidate, time_only: bool) -> tuple[str, str]:
    if c.node_kind == "person":
        return P.wording(c.node, c.other or "", c.how, [w for w, _ in c.parts], _past)
    first = c.parts[0][1][0][1]
    if c.category == "E":  # the node's own action, not its first successor's
        first = Occurrence(0, 0, *c.said, None)
    return wording(c.category, c.node, [phrase for phrase, _ in c.parts],
                   len(c.parts[0][1]), time_only, (first.verb, first.dobj or ""), c.how)


def _item(ctx: Context, p: MultiHopParams, c: Candidate, k: int, question: str, answer: str,
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


def _from_template(ctx: Context, p: MultiHopParams, c: Candidate, k: int) -> dict:
    question, answer = _template(c, ctx.rng.random() < p.time_only_share)
    grounding = {f"T{i + 1}": _spans(occ, p.min_span_s) for i, (_, occ) in enumerate(c.parts)}
    return _item(ctx, p, c, k, question, answer, grounding,
                 {"generator": "template", **({"other": c.other} if c.other else {})})


def _weighted(ctx: Context, found: list[Candidate], p: MultiHopParams) -> list[Candidate]:
    """At most ``max_items_per_log`` candidates, in order, drawn without replacement with
    weights that give each category its share (Efraimidis-Spirakis keys from the unit's
    generator)."""
    k = p.max_items_per_log
    if k is None or len(found) <= k:
        return found
    per = {cat: sum(c.category == cat for c in found) for cat in {c.category for c in found}}
    keys = []
    for i, c in enumerate(found):
        w = p.category_shares.get(c.category, 0.0) / per[c.category]
        keys.append((ctx.rng.random() ** (1 / w) if w > 0 else -1.0, i))
    keep = sorted(i for _, i in sorted(keys, reverse=True)[:k])
    return [found[i] for i in keep]


def build(ctx: Context, p: MultiHopParams) -> Built:
    out = Built()
    found = (_log_candidates if p.scope == "log" else _clip_candidates)(ctx, p, out)
    if not found:
        out.stats["logs without a recurring node"] += 1
        return out
    usage = Usage()
    for k, c in enumerate(_weighted(ctx, found, p)):
        if p.generator == "llm":
            item = _from_llm(ctx, p, c, k, usage)
        else:
            item = _from_template(ctx, p, c, k)
        if p.llm_filter and not _reasonable(ctx, p, item, usage, out):
            continue
        out.items.append(item)
    out.items = keep_split(out.items, p.split, p.test_share, lambda it: oracle(ctx, p, it),
                           out.stats)
    return out


# -- the full-information oracle ------------------------------------------------------------

def _reread(ctx: Context, p: MultiHopParams, item: dict) -> list[tuple[dict, Occurrence]]:
    """The parsed narrations the item was mined from: its window and pass (scope=clip), or
    every record's richer pass (scope=log)."""
    prov = item["provenance"]
    if prov.get("narration_pass") is None:
        out = []
        for seg in ctx.log["segments"]:
            passes = ctx.ann.narrations.get(seg["video_uid"])
            if passes:
                a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
                out += [(seg, o) for o in occurrences(_richer_pass(passes, a, b)[1], b)]
        return out
    seg = segment_of(ctx.log, item)
    a = float(item["period"]["start_s"]) - float(seg["start_s"]) + float(
        seg.get("source_start_s", 0.0))
    b = a + float(prov["window_s"])
    narrs = (ctx.ann.narrations.get(seg["video_uid"]) or [])[prov["narration_pass"] - 1]
    return [(seg, o) for o in occurrences([n for n in narrs if a <= n.t < b], b)]


def oracle(ctx: Context, p: MultiHopParams, item: dict) -> str:
    """Every occurrence of the item's node in the narrations it came from, re-read: the
    answer names all of them (each verb done to the object, each object of the verb) and
    grounds every one."""
    kind, node = item["provenance"]["node_kind"], item["provenance"]["node"]
    occs = _reread(ctx, p, item)
    if item.get("hop_category") in ("E", "F"):
        return _event_oracle(p, item, occs)
    if kind == "person":
        return _people_oracle(p, node, occs)
    if kind == "action":
        hits = [(s, o) for s, o in occs if o.dobj and f"{o.verb} {o.dobj}" == node]
        category, parts = "A", [node]
    elif kind == "dobj":
        hits = [(s, o) for s, o in occs if o.dobj == node]
        category, parts = "B", sorted({o.verb for _, o in hits})
    elif kind == "pobj":
        parts = same_kind_places({o.pobj for _, o in occs if o.dobj == node and o.pobj})
        hits = [(s, o) for s, o in occs if o.dobj == node and o.pobj in parts]
        category = "D"
    else:
        hits = [(s, o) for s, o in occs if o.verb == node and o.dobj]
        category, parts = "C", sorted({o.dobj for _, o in hits if o.dobj})
    action = (hits[0][1].verb, hits[0][1].dobj or "") if hits else ("", "")
    _, answer = wording(category, node, parts, len(hits), bool(item["answer"].get("time_only")),
                        action)
    return grounded_reply(strip_tokens(answer), W.span_text(_spans(hits, p.min_span_s)))


def _people_oracle(p: MultiHopParams, verb: str, occs: list) -> str:
    """D over people: everyone the narrations name with the verb, re-read."""
    mine_ = [(s, o) for s, o in occs if o.verb == verb]
    named = P.people([o for _, o in mine_])
    if named is None:
        return grounded_reply("", "")
    prep, obj, who = named
    _, answer = P.wording(verb, obj, prep, [w for w, _ in who], _past)
    hits = [mine_[k] for _, ks in who for k in ks]
    return grounded_reply(strip_tokens(answer), W.span_text(_spans(hits, p.min_span_s)))


def _event_oracle(p: MultiHopParams, item: dict, occs: list) -> str:
    """E: the action after each occurrence of the node; F: which came first, the node or
    the one-off action the item names — both re-read from the narrations."""
    node, time_only = item["provenance"]["node"], bool(item["answer"].get("time_only"))
    mine_ = [(s, o) for s, o in occs if E.action(o) == node]
    if item["hop_category"] == "E":
        hits = E.after_each(occs, node) or []
        parts, how = [E.phrase(o) for _, o in hits], ""
    else:
        other = item["provenance"]["other"]
        off = [(s, o) for s, o in occs if E.action(o) == other]
        hits, how = mine_ + off, E.relation(occs, node, other) or ""
        parts = [E.phrase(mine_[0][1]), E.phrase(off[0][1])] if mine_ and off else ["", ""]
    said = (mine_[0][1].verb, mine_[0][1].dobj or "") if mine_ else ("", "")
    _, answer = wording(item["hop_category"], node, parts, len(hits), time_only, said, how)
    return grounded_reply(strip_tokens(answer), W.span_text(_spans(hits, p.min_span_s)))


# -- the LLM path ---------------------------------------------------------------------------

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


def _from_llm(ctx: Context, p: MultiHopParams, c: Candidate, k: int, usage: Usage) -> dict:
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
    grounding = {key.strip("<>"): _whole_seconds([(to_day(seg, origin + s),
                                                   to_day(seg, origin + e)) for s, e in v])
                 for key, v in sorted(spans.items())}
    return _item(ctx, p, c, k, q, a, grounding,
                 {"generator": "llm", "model": ctx.llm.settings.model,
                  "prompt_ids": {"generate": prompt}})


def _reasonable(ctx: Context, p: MultiHopParams, item: dict, usage: Usage, out: Built
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


RECIPE = Recipe(
    name="multihop_qa", task="grounded_qa", schema=MultiHopParams, build=build,
    scorer=GroundedAnswer(), primary="iou", answer_format=FORMAT,
    answer_source="Ego4D narrations", needs=("narrations",),
    prompts=("tasks/multihop_generate.v1", "tasks/multihop_generate_verb.v1",
             "tasks/multihop_generate_dobj.v1", "tasks/multihop_generate_pobj.v1",
             "tasks/multihop_filter.v1"), oracle=oracle, shows=("descriptions",),
    description="Multi-hop questions whose answers are grounded in several moments.")
