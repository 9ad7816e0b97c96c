"""Neptune's open-ended question answering over life logs (seed 001, appendix C.2).

Every item is a short-answer question about one record, tagged with the capability it tests
(``tags.capability``: Neptune's twelve — TO temporal ordering, CE cause and effect, SC state
changes, VN visual narrative, CI creator intent, CT counting, PR predictive, GR goal reasoning,
CMP comparison, ID identification, SUM summarisation, OTH other), so the results table breaks
every score down per capability with its n. Like Neptune's QADs, each item also carries
``decoys`` wrong answers (``answer.options`` / ``answer.label``), so the QAD filter
(``qad_rank``) and the option-only filter apply, and the named subsets are config overlays
(``neptune=mmh`` / ``neptune=mma``).

* ``generator=offline`` (no model; tests and the demo): questions of six capabilities written
  from the record's narrations by rules that make the answer unambiguous
  (`xlebench.tasks.neptune.neptune_offline`), balanced across capabilities.
* ``generator=llm``: Neptune's pipeline — an optional visual-support call per record
  (``visual_support``: the elements of the record's captions that support its story), then
  "Craft {target_number} challenging short-answer questions" over the timestamped dense
  captions, each introduced as ``QUESTION k: (capability) question`` and answered as
  ``CORRECT ANSWER: answer``; decoys by Neptune's decoy prompt.

Scored by `xlebench.eval.scorers.short.ShortAnswer` (one equivalence rule per answer shape; the
GEM judge on top with ``eval.judges=[gem]``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np

from xlebench.config.knobs import knob
from xlebench.eval.scorers.short import ShortAnswer, token_f1
from xlebench.library.language import INSIDE
from xlebench.tasks.choices.other_logs import nearest_summaries
from xlebench.tasks.language import wording as W
from xlebench.tasks.neptune import neptune_offline as N
from xlebench.tasks.neptune.neptune_llm import (
    CAPABILITIES,
    llm_decoys,
    llm_questions,
    record_summary,
)
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence, record_period, segment_of, whole
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import QAD_PROMPT, PeriodParams

QA_PROMPT = "tasks/neptune_qa.v1"
#: A candidate decoy this close to the answer (token F1 over content words) says the same thing
#: (another log's summary with the same acts in another order) and is never a wrong option.
SAME_ANSWER_F1 = 0.9
#: A candidate decoy whose sentence embedding (MiniLM) is this close to the answer's (cosine)
#: restates it: never a wrong option. Measured: "C cuts the tomato" against "chops" 0.876,
#: "slices" 0.905; "C picks up the cup" against "takes" 0.923; "C washes the pan" against
#: "rinses" 0.893 — all dropped; against "washes the tomato" 0.747, "dries the pan" 0.86 —
#: kept. Not a lexicon: "lifts the cup" (0.856) stays, "closes the door" beside "opens" (0.934)
#: goes (`tests/tasks/test_neptune.py` pins the band).
RESTATES = 0.87
SUPPORT_PROMPT = "tasks/neptune_visual_support.v1"
DECOY_PROMPT = "tasks/neptune_decoys.v1"
FORMAT = ("Answer the question briefly (a number, a short phrase, or one sentence), from what "
          "the recordings show.")
@dataclass
class NeptunePrompts:
    question: str = QA_PROMPT
    visual_support: str = SUPPORT_PROMPT
    decoys: str = DECOY_PROMPT


@dataclass
class NeptuneQAParams(PeriodParams):
    generator: str = knob("offline", choices=("offline", "llm"))
    #: offline: the capabilities asked (of those rules can write: TO, CT, PR, ID, SC, SUM,
    #: CMP, GR).
    capabilities: list[str] = knob(factory=lambda: list(N.OFFLINE_CAPABILITIES),
                                   choices=tuple(CAPABILITIES), each=True, nonempty=True)
    #: A record is asked about when it has this many C narrations.
    min_narrations: int = knob(20, ge=1, le=100_000)
    order_items: int = knob(3, ge=3, le=5)
    min_gap_s: float = knob(10.0, ge=0, le=3600)
    count_range: list[int] = knob(factory=lambda: [2, 8], ge=1, le=1000, each=True)
    #: offline CT: a count is asked only where at least this many narration passes of the
    #: record count it alike (1 also asks single-pass records, whose count no one checked).
    count_passes: int = knob(2, ge=1, le=10)
    next_within_s: float = knob(30.0, gt=0, le=3600)
    #: Wrong answers per item (Neptune's QADs); 0 = open-ended only (no QAD filter).
    decoys: int = knob(4, ge=0, le=9)
    #: llm: questions per record ({target_number}) and the visual-support stage.
    n_questions: int = knob(5, ge=1, le=20)
    visual_support: bool = False
    prompts: NeptunePrompts = field(default_factory=NeptunePrompts)
    max_items_per_log: int | None = knob(12, ge=1)


def _rules(p: NeptuneQAParams) -> N.Rules:
    return N.Rules(p.order_items, p.min_gap_s, (p.count_range[0], p.count_range[-1]),
                   p.next_within_s)


# -- decoys ----------------------------------------------------------------------------------

def _offline_decoys(ctx: Context, p: NeptuneQAParams, seg: dict, f: dict) -> list[str]:
    """Neptune's techniques without a model: subtle tweaks (other counts of the record, the
    same items in another order, another change made to the same object) and confusing
    similarity (another action or place of the same record; another log's record summary at
    the nearest clock time). Every decoy survives a reader of the text alone: an act is one
    some narration makes (`N.attested`), a count lies in the range answers take, a place is
    of the answer's kind (a room beside rooms), and none restates the answer (`restates`)."""
    answer, evs, rng, n = f["answer"], f["evs"], ctx.rng, p.decoys
    shape = answer["shape"]
    if f["cap"] == "SC":  # the object named by the question is in every option
        pool = _plausible_changes(ctx, f["subject"]["dobj"], evs)
    elif f["cap"] == "GR":
        picked = next(e.dobj for e in evs if e.action == f["subject"]["action"])
        pool = N.other_uses(picked, evs, N.attested(ctx.ann))
    elif f["cap"] == "CMP":  # the other compared acts first, then the record's others
        listed = [f"C {N.phrase(a, '3sg')}" for a in f["subject"]["listed"]]
        others = sorted({f"C {N.phrase(e.action, '3sg')}" for e in evs} - set(listed))
        return [x for x in listed if x != answer["text"]] + rng.sample(
            others, min(len(others), n - len(listed) + 1))
    elif shape == "count":
        return _count_decoys(answer["value"], evs, n, rng, (p.count_range[0], p.count_range[-1]))
    elif shape in ("order", "sequence"):  # the same steps in another order
        steps = answer["text"].split(", then ")
        pool = [", then ".join(steps[k] for k in o) for o in permutations(range(len(steps)))]
    elif shape == "phrase" and answer["text"].startswith("the "):
        pool = sorted({f"the {e.pobj}" for e in evs if e.pobj
                       and _is_area(e.pobj) == _is_area(answer["text"])} - {answer["text"]})
    elif shape == "phrase":
        pool = sorted({f"C {N.phrase(e.action, '3sg')}" for e in evs} - {answer["text"]})
    else:
        pool = _other_summaries(ctx, seg, answer["text"])
    pool = sorted(set(pool) - {answer["text"]})
    if shape in ("text", "phrase"):  # a decoy saying the answer in other words is not wrong
        pool = [d for d in pool if token_f1(d, answer["text"]) < SAME_ANSWER_F1]
        return _apart(ctx, answer["text"], pool, n, rng)
    return rng.sample(pool, n) if len(pool) >= n else []


def _apart(ctx: Context, answer: str, pool: list[str], n: int, rng: random.Random
           ) -> list[str]:
    """``n`` decoys drawn from ``pool`` (seeded), none restating the answer nor another
    decoy: two options saying one thing ("C cuts the onion", "C slices the onion") are both
    wrong to a reader of the options alone. Empty when fewer than ``n`` such decoys exist."""
    if len(pool) < n:
        return []
    drawn = rng.sample(pool, len(pool))
    if ctx.encode is None:
        return drawn[:n]
    vecs = np.asarray(ctx.encode([answer, *drawn]), dtype=np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    kept = [0]
    for k in range(1, len(vecs)):
        if len(kept) > n:
            break
        if all(vecs[k] @ vecs[j] < RESTATES for j in kept):
            kept.append(k)
    return [drawn[k - 1] for k in kept[1:]] if len(kept) > n else []


def _is_area(place: str) -> bool:
    """A room or venue ("the kitchen") rather than a spot in one ("the sink")."""
    return place.endswith(INSIDE)


def restates(ctx: Context, answer: str, decoys: Sequence[str]) -> list[bool]:
    """Whether each decoy says the answer in other words ("C chops the tomato" beside "C
    cuts the tomato"): its sentence embedding's cosine with the answer's is at least
    `RESTATES` (the encoder of ``matcher.embedder``; nothing is called a restatement where
    the recipe has none)."""
    if not decoys or ctx.encode is None:
        return [False] * len(decoys)
    vecs = np.asarray(ctx.encode([answer, *decoys]), dtype=np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return [bool(c >= RESTATES) for c in vecs[1:] @ vecs[0]]


def _count_decoys(value: int, evs: list[N.Event], n: int, rng: random.Random,
                  span: tuple[int, int]) -> list[str]:
    """How often C does the record's other acts (each count once), then the numbers nearest
    the answer, all inside ``span``, the range right counts take (a wrong count outside it
    is ruled out by anyone who knows the range): wrong counts drawn from the counts the
    record has, so a number is not right more often than it is offered."""
    lo, hi = span
    counts = Counter(e.action for e in evs)
    seen = sorted(x for x in set(counts.values()) - {value} if lo <= x <= hi)
    picked = rng.sample(seen, min(n, len(seen)))
    near = sorted((x for x in range(lo, hi + 1) if x != value and x not in picked),
                  key=lambda x: (abs(x - value), x))
    return [str(x) for x in picked + near[: n - len(picked)]]


def _plausible_changes(ctx: Context, dobj: str, evs: list[N.Event]) -> list[str]:
    """SC's decoys: changes the narrations of the whole library make to this kind of object
    ("pours the salt", "adds the salt") and C never makes to it here — never a change no
    narration makes to it (an implausible "C fries the salt" is ruled out without the video;
    an object with too few such changes gives no question)."""
    done = {e.verb for e in evs if e.dobj == dobj}
    seen = sorted(N.object_verbs(ctx.ann).get(dobj, set()) - done)
    return [f"C {N.phrase(f'{v} {dobj}', '3sg')}" for v in seen]


def _other_summaries(ctx: Context, seg: dict, answer: str, pool: int = 40) -> list[str]:
    """Other logs' record summaries nearest in clock time, each text once, not the answer."""
    texts = nearest_summaries(ctx, seg, None)
    return list(dict.fromkeys(t for t in texts if t.strip() and t != answer))[:pool]


# -- generators ------------------------------------------------------------------------------

def _offline(ctx: Context, p: NeptuneQAParams, out: Built) -> list[dict]:
    """Per capability, the records' questions whose answer the narrations determine."""
    rules, found = _rules(p), []
    for cap in p.capabilities:
        if cap not in N.OFFLINE_CAPABILITIES:
            out.stats[f"capability {cap} needs generator=llm"] += 1
    for seg in ctx.log["segments"]:
        a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
        per_pass = N.pass_events(ctx.ann.narrations.get(seg["video_uid"]) or [], a, b)
        evs = max(per_pass, key=len, default=[])
        if len(evs) < p.min_narrations:
            out.stats["records with too few narrations"] += 1
            continue
        for cap in (c for c in p.capabilities if c in N.OFFLINE_CAPABILITIES):
            for subject in N.subjects(cap, evs, rules, ctx.rng, record_summary(ctx, seg)):
                answer = N.solve(cap, subject, evs, rules)
                if answer is None:
                    continue
                why = (N.counts_agree([subject["action"]], per_pass, p.count_passes)
                       if cap == "CT" else
                       N.winner_agreed(subject["listed"], per_pass, p.count_passes)
                       if cap == "CMP" else None)
                if why:
                    out.stats[why] += 1
                    continue
                found.append({"seg": seg, "cap": cap, "q": N.question(cap, subject),
                              "answer": answer, "subject": subject, "evs": evs,
                              "prov": {"generator": "offline"}})
    return found


def _balanced(ctx: Context, p: NeptuneQAParams, found: list[dict], out: Built
              ) -> list[tuple[dict, tuple[list[str], int] | None]]:
    """At most ``max_items_per_log`` questions with their options, taken in turn from each
    capability (seeded), in record order. A question whose decoys cannot be made (too few
    attested candidates) is counted and the next of its capability is tried in its turn, so
    a capability whose decoys are scarce keeps its share wherever one of its questions has
    them."""
    k = p.max_items_per_log
    by: dict[str, list[int]] = {}
    for i, f in enumerate(found):
        by.setdefault(f["cap"], []).append(i)
    for idx in by.values():
        ctx.rng.shuffle(idx)
    picked: dict[int, tuple[list[str], int] | None] = {}
    while (k is None or len(picked) < k) and any(by.values()):
        for cap in sorted(by):
            while by[cap] and (k is None or len(picked) < k):
                i = by[cap].pop()
                qad = _options(ctx, p, found[i])
                if p.decoys and qad is None:
                    out.stats[f"questions with too few decoy candidates ({cap})"] += 1
                    continue
                picked[i] = qad
                break
    return [(found[i], picked[i]) for i in sorted(picked)]


def _options(ctx: Context, p: NeptuneQAParams, f: dict) -> tuple[list[str], int] | None:
    if p.decoys == 0:
        return None
    if f["prov"]["generator"] == "llm" and f["answer"]["shape"] != "count":
        wrong = llm_decoys(ctx, p, f["q"], f["answer"]["text"], f["context"], f["usage"])
    else:
        wrong = _offline_decoys(ctx, p, f["seg"], f)
    if len(wrong) < p.decoys:
        return None
    options = [f["answer"]["text"], *wrong]
    order = list(range(len(options)))
    ctx.rng.shuffle(order)
    return [options[i] for i in order], order.index(0)


def build(ctx: Context, p: NeptuneQAParams) -> Built:
    out = Built()
    found = (llm_questions if p.generator == "llm" else _offline)(ctx, p, out)
    for k, (f, qad) in enumerate(_balanced(ctx, p, found, out)):
        seg, answer = f["seg"], dict(f["answer"])
        at = answer.pop("at")
        period = record_period(ctx.log, [seg], p.period, ctx.rng)
        spans = [(to_day(seg, max(float(seg.get("source_start_s", 0.0)), t - 2.0)),
                  to_day(seg, t + 4.0)) for t in at]
        ev = [evidence(seg, max(0.0, t - 2.0), t + 4.0) for t in at] or [whole(seg)]
        query = W.retrieval_query(f["q"], *period)
        if qad:
            answer.update(options=qad[0], label=qad[1])
        out.items.append(ctx.item(
            k=k, query=query, period=period, text=answer.pop("text"), spans=spans,
            answer=answer, evidence=ev,
            provenance={"question": query, "capability": f["cap"], "subject": f["subject"],
                        "source_file": ctx.ann.narration_file,
                        "annotation_ids": [seg["video_uid"]], **f["prov"]},
            extra={"tags": {"capability": f["cap"]}}))
    return out


def oracle(ctx: Context, p: NeptuneQAParams, item: dict) -> str | None:
    """Offline items: the capability's solver on the record's narrations read afresh, given
    the item's subject (never its answer); the library summary for SUM. LLM-written items have
    no source to re-derive them from: None (left out of the check)."""
    prov = item["provenance"]
    if prov.get("generator") != "offline":
        return None
    seg = segment_of(ctx.log, item)
    subject = dict(prov["subject"])
    if prov["capability"] == "SUM":
        subject["summary"] = record_summary(ctx, seg)
    answer = N.solve(prov["capability"], subject, N.record_events(ctx.ann, seg), _rules(p))
    return answer["text"] if answer else ""


RECIPE = Recipe(
    name="neptune_qa", task="open_ended_qa", schema=NeptuneQAParams, build=build,
    scorer=ShortAnswer(), primary="answer_acc", answer_format=FORMAT,
    answer_source="Ego4D narrations (rules per capability, or LLM-written as in Neptune) and "
                  "library summaries",
    prompts=(QA_PROMPT, SUPPORT_PROMPT, DECOY_PROMPT, QAD_PROMPT), needs=("narrations",),
    oracle=oracle, shows=("descriptions",),
    description="Short-answer questions per capability about one record, with decoys "
                "(Neptune's open-ended QA).")
