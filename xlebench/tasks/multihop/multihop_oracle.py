"""MultiHop-EgoQA's full-information oracle: every answer re-derived from the narrations its
item was mined from (the window and pass, or every record's richer pass), with the same
wording functions the generator used."""

from __future__ import annotations

from xlebench.eval.parse import grounded_reply
from xlebench.eval.scorers import strip_tokens
from xlebench.tasks.language import wording as W
from xlebench.tasks.multihop import hop_events as E
from xlebench.tasks.multihop import hop_people as P
from xlebench.tasks.multihop.hops import Occurrence, occurrences
from xlebench.tasks.multihop.multihop_items import (
    MultiHopParams,
    past_phrase,
    richer_pass,
    same_kind_places,
    spans_of,
    wording,
)
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.records import segment_of


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
                out += [(seg, o) for o in occurrences(richer_pass(passes, a, b)[1], b)]
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
    return grounded_reply(strip_tokens(answer), W.span_text(spans_of(hits, p.min_span_s)))


def _people_oracle(p: MultiHopParams, verb: str, occs: list) -> str:
    """D over people: everyone the narrations name with the verb, re-read."""
    mine_ = [(s, o) for s, o in occs if o.verb == verb]
    named = P.people([o for _, o in mine_])
    if named is None:
        return grounded_reply("", "")
    prep, obj, who = named
    _, answer = P.wording(verb, obj, prep, [w for w, _ in who], past_phrase)
    hits = [mine_[k] for _, ks in who for k in ks]
    return grounded_reply(strip_tokens(answer), W.span_text(spans_of(hits, p.min_span_s)))


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
    return grounded_reply(strip_tokens(answer), W.span_text(spans_of(hits, p.min_span_s)))
