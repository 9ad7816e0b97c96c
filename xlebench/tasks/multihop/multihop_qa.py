"""Multi-hop grounded QA over life logs (MultiHop-EgoQA, seed 003): questions whose answer
needs several moments, each answer part grounded by ``<Tk>`` tokens to its time spans.

``scope=clip`` is the paper: non-overlapping 3-minute windows of one record that pass its rule
filter (30-60 narrations, first to last at least 150 s apart), nodes that recur strictly more
than 2 and fewer than 5 times. ``scope=log`` asks about hops in different records of the day —
the question only a life log can pose. Questions come from templates offline (categories A:
a repeated action, B: several actions on one object, C: one verb on several objects, D: one
object in several places — node ``pobj``, the paper's third attribute — E: what followed each
time a recurring action happened, F: whether a recurring or a one-off action came first;
`xlebench.tasks.multihop.hop_events`) or from
the LLM with the paper's generation prompt, validated (balanced, sequential tokens, one span
per token, inside the window) and re-asked with the exact problem; an optional LLM judge drops
unreasonable pairs.
"""


from __future__ import annotations

from xlebench.eval.scorers import GroundedAnswer
from xlebench.llm.client import Usage
from xlebench.tasks.multihop import hop_events as E
from xlebench.tasks.multihop import hop_people as P
from xlebench.tasks.multihop.hops import Mined, Occurrence, mine, occurrences, recurring
from xlebench.tasks.multihop.multihop_items import (
    FORMAT,
    Candidate,
    MultiHopParams,
    Recurrence,
    make_item,
    richer_pass,
    same_kind_places,
    spans_of,
    template,
)
from xlebench.tasks.multihop.multihop_llm import from_llm, reasonable
from xlebench.tasks.multihop.multihop_oracle import oracle
from xlebench.tasks.multihop.multihop_split import keep_split
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.registry import Recipe


# -- mining ---------------------------------------------------------------------------------
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
            which, narrs = richer_pass(passes, a, b)
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
        _, narrs = richer_pass(passes, a, b)
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
    """E and F candidates of a recurring action (`xlebench.tasks.multihop.hop_events`)."""
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


def _from_template(ctx: Context, p: MultiHopParams, c: Candidate, k: int) -> dict:
    question, answer = template(c, ctx.rng.random() < p.time_only_share)
    grounding = {f"T{i + 1}": spans_of(occ, p.min_span_s) for i, (_, occ) in enumerate(c.parts)}
    return make_item(ctx, p, c, k, question, answer, grounding,
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
            item = from_llm(ctx, p, c, k, usage)
        else:
            item = _from_template(ctx, p, c, k)
        if p.llm_filter and not reasonable(ctx, p, item, usage, out):
            continue
        out.items.append(item)
    out.items = keep_split(out.items, p.split, p.test_share, lambda it: oracle(ctx, p, it),
                           out.stats)
    return out


RECIPE = Recipe(
    name="multihop_qa", task="grounded_qa", schema=MultiHopParams, build=build,
    scorer=GroundedAnswer(), primary="iou_merged", answer_format=FORMAT,
    paper_metrics=("sent_sim", "score10_judge", "bleu4", "meteor", "rougeL_coco",
                   "cider_d_answer", "iou", "iop", "iog", "iou@0.3"),
    answer_source="Ego4D narrations", needs=("narrations",),
    prompts=("tasks/multihop_generate.v1", "tasks/multihop_generate_verb.v1",
             "tasks/multihop_generate_dobj.v1", "tasks/multihop_generate_pobj.v1",
             "tasks/multihop_filter.v1"), oracle=oracle, shows=("descriptions",),
    description="Multi-hop questions whose answers are grounded in several moments.")
