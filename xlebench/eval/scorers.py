"""Scorers: how one kind of answer is read, scored, pooled and guessed at.

A recipe declares the scorer of its answers (`xlebench.tasks.registry.Recipe.scorer`); the
evaluation walks items through their recipe's scorer and never branches on subtask names, so a
new recipe with a known answer kind is scored, pooled, floored and answered by the offline
baseline with no change here. A scorer:

* ``kind`` — the answer kind baselines dispatch on (``spans``, ``text``, ``counts``, ``order``…);
* ``score(item, reply, s)`` — metric values of a parseable reply, or None (unparseable);
* ``worst(item, s)`` — what a wrong answer scores on every metric (the headline's zeros);
* ``weights(item)`` — pooling weights other than 1 (counting pools over queried actions);
* ``floor(items, s, rng_for, draws)`` — per item, the chance floor's metric values, or a reply
  to score like any other (a fixed answer that ignores the video);
* ``finish(rows, items, s, bertscorer)`` — metrics computed over all rows at once (BERTScore).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from xlebench.eval import encoder
from xlebench.eval.corpus import (
    CorpusMetric,
    cider_by_argument,
    cider_micro,
    class_averaged_accuracy,
    verb_recall_macro,
)
from xlebench.eval.metrics import (
    counting_accuracy,
    grounding_overlap,
    kendall_tau,
    position_accuracy,
    recall_grid,
    rouge_l,
)
from xlebench.eval.parse import parse_choice, parse_counts, parse_order, parse_spans


@dataclass(frozen=True)
class ScoreSettings:
    ks: tuple[int, ...] = (1, 5)
    tious: tuple[float, ...] = (0.3, 0.5)
    refusal_patterns: tuple[str, ...] = ()
    no_information_patterns: tuple[str, ...] = ()
    bertscore: bool = True

    @classmethod
    def from_eval(cls, ec: Mapping[str, Any]) -> ScoreSettings:
        """From an ``eval`` config mapping (the evaluate stage's, or the one exported with
        lmms-eval tasks)."""
        return cls(ks=tuple(ec["ks"]), tious=tuple(ec["tious"]),
                   refusal_patterns=tuple(ec["refusal_patterns"]),
                   no_information_patterns=tuple(ec["no_information_patterns"]),
                   bertscore=bool(ec["bertscore"]))


RngFor = Callable[[dict], np.random.Generator]
Floor = dict[str, float] | str


class Scorer(Protocol):
    kind: str

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None: ...

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]: ...

    def weights(self, item: dict) -> dict[str, float]: ...

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]: ...

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None: ...


class _Base:
    def weights(self, item: dict) -> dict[str, float]:
        return {}

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        return None


class SpanRecall(_Base):
    """Temporal localisation: Recall@K at tIoU t (official Ego4D NLQ semantics) over the
    ``eval.ks`` x ``eval.tious`` grid. Floor: K random windows inside the queried period, widths
    drawn from the answers' widths over all items of the recipe."""

    kind = "spans"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        spans = parse_spans(reply)
        return recall_grid(spans, item["answer"]["spans"], s.ks, s.tious) if spans else None

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {k: 0.0 for k in recall_grid([], [(0, 1)], s.ks, s.tious)}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        widths = np.asarray([max(0.0, b - a) for it in items for a, b in it["answer"]["spans"]]
                            or [1.0])
        return {it["item_id"]: self._random(it, widths, max(s.ks), s, rng_for(it), draws)
                for it in items}

    @staticmethod
    def _random(item: dict, widths: np.ndarray, k: int, s: ScoreSettings,
                rng: np.random.Generator, draws: int) -> dict[str, float]:
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        total: Counter = Counter()
        for _ in range(draws):
            w = np.minimum(rng.choice(widths, size=k), hi - lo)
            starts = lo + rng.random(k) * (hi - lo - w)
            total.update(recall_grid(list(zip(starts, starts + w, strict=True)),
                                     item["answer"]["spans"], s.ks, s.tious))
        return {m: v / draws for m, v in total.items()}


#: The floor's reply to a summary question: says nothing about the video.
GENERIC_SUMMARY = "C carries out everyday activities and moves around."


class TextSimilarity(_Base):
    """Free text against a reference: ROUGE-L, and with the model metrics on (``eval.bertscore``)
    BERTScore F1 and Sent.Sim (cosine of MiniLM sentence vectors). Floor: one fixed generic
    summary for every item."""

    kind = "text"

    def __init__(self, generic: str = GENERIC_SUMMARY) -> None:
        self.generic = generic

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        return {"rougeL": rouge_l(reply, item["answer"]["text"])}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"rougeL": 0.0, **({"bertscore_f1": 0.0, "sent_sim": 0.0} if s.bertscore
                                  else {})}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        return {it["item_id"]: self.generic for it in items}

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        todo = [(r, it) for r, it in zip(rows, items, strict=True) if r["status"] == "ok"]
        if not (s.bertscore and bertscorer is not None and todo):
            return
        preds = [r["response"] for r, _ in todo]
        refs = [it["answer"]["text"] for _, it in todo]
        f1 = bertscorer.f1(preds, refs)
        for (r, _), v, sim in zip(todo, f1, _similarity(preds, refs), strict=True):
            r["scores"]["bertscore_f1"] = v
            r["scores"]["sent_sim"] = sim


class CountAccuracy(_Base):
    """Counts per listed action: accuracy pooled over queried actions (the paper), the item
    mean as a secondary. Floor: the most common count of the recipe's answers, everywhere."""

    kind = "counts"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        counts = parse_counts(reply, list(item["answer"]["counts"]))
        if not counts:
            return None
        acc = counting_accuracy(counts, item["answer"]["counts"])
        return {"count_acc": acc, "count_acc_item": acc}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"count_acc": 0.0, "count_acc_item": 0.0}

    def weights(self, item: dict) -> dict[str, float]:
        return {"count_acc": float(len(item["answer"]["counts"]))}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        counts = Counter(n for it in items for n in it["answer"]["counts"].values())
        mode = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else 1
        return {it["item_id"]: "; ".join(f"{a}: {mode}" for a in it["answer"]["counts"])
                for it in items}


class OrderAccuracy(_Base):
    """An order of shown items: position accuracy and Kendall's tau. Floor: a random
    permutation."""

    kind = "order"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        gt = item["answer"]["order"]
        # Numbers that are not indices of shown items (a clock time, a year) make no order.
        order = [i for i in parse_order(reply) if 0 <= i < len(gt)]
        if not order:
            return None
        return {"position_acc": position_accuracy(order, gt), "kendall_tau": kendall_tau(order, gt)}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"position_acc": 0.0, "kendall_tau": -1.0}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        out: dict[str, Floor] = {}
        for it in items:
            gt, rng = it["answer"]["order"], rng_for(it)
            acc = tau = 0.0
            for _ in range(draws):
                guess = [int(x) for x in rng.permutation(len(gt))]
                acc += position_accuracy(guess, gt)
                tau += kendall_tau(guess, gt)
            out[it["item_id"]] = {"position_acc": acc / draws, "kendall_tau": tau / draws}
        return out


class ChoiceAccuracy(_Base):
    """Multiple choice: 1 when the reply picks the right option (`parse_choice`: index,
    letter or option text; naming several options is unparseable). Floor: 1 / number of
    options, the exact expectation of a uniform guess. ``details`` keep the picked and the right
    position for the position-bias histogram of the results table."""

    kind = "choice"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        picked = parse_choice(reply, item["answer"]["options"])
        return None if picked is None else {"acc": float(picked == item["answer"]["label"])}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"acc": 0.0}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        return {it["item_id"]: {"acc": 1.0 / len(it["answer"]["options"])} for it in items}

    def details(self, item: dict, reply: str | None) -> dict[str, Any]:
        picked = parse_choice(reply, item["answer"]["options"]) if reply else None
        return {"picked": picked, "label": item["answer"]["label"],
                "n_options": len(item["answer"]["options"])}


def position_histograms(rows: Sequence[dict]) -> dict[str, dict[str, list[int]]]:
    """Per multiple-choice subtask: how often each position was picked and how often it was
    right (a model that always answers 0 shows as a spike, whatever its accuracy)."""
    out: dict[str, dict[str, list[int]]] = {}
    for r in rows:
        d = r.get("details") or {}
        if "n_options" not in d:
            continue
        h = out.setdefault(r["subtask"], {"picked": [0] * d["n_options"],
                                          "label": [0] * d["n_options"]})
        h["label"][d["label"]] += 1
        if d["picked"] is not None:
            h["picked"][d["picked"]] += 1
    return out


_TOKEN = re.compile(r"</?T\d*>")


def strip_tokens(text: str) -> str:
    """``You <T1>opened the fridge</T1> 3 times.`` -> ``You opened the fridge 3 times.``"""
    return " ".join(_TOKEN.sub("", text).split())


def split_evidence(reply: str) -> tuple[str, list[tuple[float, float]]]:
    """(answer text, spans) of a reply in the grounded format: the answer, then a line
    ``Evidence:`` followed by clock spans. Without the marker every span is evidence."""
    head, marker, tail = reply.rpartition("Evidence:")
    if not marker:
        return strip_tokens(_SPAN_TEXT.sub(" ", reply)), parse_spans(reply)
    return strip_tokens(head), parse_spans(tail)


_SPAN_TEXT = re.compile(r"\[[^\]]*\]")


class GroundedAnswer(_Base):
    """Multi-hop grounded QA (MultiHop-EgoQA): evidence spans scored by IoU / IoP / IoG over
    the merged unions and IoU@0.3; the answer text (tokens stripped) by ROUGE-L and Sent.Sim
    (100 x cosine of MiniLM vectors, stored as a share), except for time-only items, whose
    answer is the spans alone. Floor: as many random spans as the item has true ones, widths
    drawn from the recipe's true spans, inside the queried period; a generic answer text."""

    kind = "grounded"
    GENERIC = "You did it several times."

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        text, spans = split_evidence(reply)
        if not spans:
            return None
        out = grounding_overlap(spans, item["answer"]["spans"])
        if not item["answer"].get("time_only"):
            out["rougeL"] = rouge_l(text, split_evidence(item["answer"]["text"])[0])
        return out

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        out = {"iou": 0.0, "iop": 0.0, "iog": 0.0, "iou@0.3": 0.0}
        if not item["answer"].get("time_only"):
            out.update(rougeL=0.0, **({"sent_sim": 0.0} if s.bertscore else {}))
        return out

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        widths = np.asarray([b - a for it in items for a, b in it["answer"]["spans"]] or [1.0])
        out: dict[str, Floor] = {}
        for it in items:
            rng, lo, hi = rng_for(it), it["period"]["start_s"], it["period"]["end_s"]
            k = max(1, len(it["answer"]["spans"]))
            total: Counter = Counter()
            for _ in range(draws):
                w = np.minimum(rng.choice(widths, size=k), hi - lo)
                starts = lo + rng.random(k) * (hi - lo - w)
                total.update(grounding_overlap(list(zip(starts, starts + w, strict=True)),
                                               it["answer"]["spans"]))
            scores = {m: v / draws for m, v in total.items()}
            if not it["answer"].get("time_only"):
                ref = split_evidence(it["answer"]["text"])[0]
                scores["rougeL"] = rouge_l(self.GENERIC, ref)
                if s.bertscore:
                    scores["sent_sim"] = _similarity([self.GENERIC], [ref])[0]
            out[it["item_id"]] = scores
        return out

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        todo = [(r, it) for r, it in zip(rows, items, strict=True)
                if r["status"] == "ok" and not it["answer"].get("time_only")]
        if not (s.bertscore and todo):
            return
        sims = _similarity([split_evidence(r["response"])[0] for r, _ in todo],
                           [split_evidence(it["answer"]["text"])[0] for _, it in todo])
        for (r, _), v in zip(todo, sims, strict=True):
            r["scores"]["sent_sim"] = v


def _similarity(preds: Sequence[str], refs: Sequence[str]) -> list[float]:
    """Cosine of MiniLM sentence vectors (tokens stripped), rounded to 10 places."""
    enc = encoder.sentence_encoder()
    a = enc.encode([strip_tokens(p) for p in preds]).astype(np.float64)
    b = enc.encode([strip_tokens(r) for r in refs]).astype(np.float64)
    return [round(float(x @ y), 10) for x, y in zip(a, b, strict=True)]


# -- events (VidSitu) ----------------------------------------------------------------------------

_EVENT_LINE = re.compile(r"event\s*(\d+)\s*[:.-]\s*(.*)", re.IGNORECASE)
ROLE_NAMES = ("Arg0", "Arg1", "Arg2", "ALoc", "AScn")


def parse_events(reply: str) -> dict[int, dict[str, Any]]:
    """``Event 2: verbs: cut, slice; Arg0: C; Arg1: onion`` lines -> {2: {verbs, roles}}."""
    out: dict[int, dict[str, Any]] = {}
    for line in reply.splitlines():
        m = _EVENT_LINE.search(line)
        if not m:
            continue
        verbs: list[str] = []
        roles: dict[str, str] = {}
        for part in m.group(2).split(";"):
            key, _, value = part.partition(":")
            key, value = key.strip().lower(), value.strip()
            if key in ("verbs", "verb"):
                verbs = [v.strip().lower() for v in value.split(",") if v.strip()]
            elif (name := next((r for r in ROLE_NAMES if r.lower() == key), None)) and value:
                roles[name] = value
        out[int(m.group(1))] = {"verbs": verbs, "roles": roles}
    return out


class EventRoles(_Base):
    """Five events of a 10-s window: verbs (macro Recall@5 as primary, Acc@1/Acc@5 per item)
    and semantic roles (ROUGE-L per item; CIDEr-D micro and per argument over the corpus).
    Floor: the recipe's five most common verbs and each role's most common value."""

    kind = "events"

    def _pairs(self, item: dict, reply: str | None) -> dict:
        pred = parse_events(reply) if reply else {}
        events, roles = [], []
        for k, ev in enumerate(item["answer"]["events"], start=1):
            got = pred.get(k, {"verbs": [], "roles": {}})
            if ev["verbs_gt"]:
                events.append([ev["verbs_gt"], got["verbs"][:5]])
            roles += [[r, v, got["roles"].get(r, "")] for r, v in sorted(ev["roles"].items())]
        return {"events": events, "roles": roles}

    def details(self, item: dict, reply: str | None) -> dict:
        return self._pairs(item, reply)

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        if not parse_events(reply):
            return None
        d = self._pairs(item, reply)
        n = max(1, len(d["events"]))
        return {"acc@1": sum(bool(p) and p[0] in g for g, p in d["events"]) / n,
                "acc@5": sum(bool(set(p[:5]) & set(g)) for g, p in d["events"]) / n,
                "rouge_args": float(np.mean([rouge_l(p, g) for _, g, p in d["roles"]]))
                if d["roles"] else 0.0}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"acc@1": 0.0, "acc@5": 0.0, "rouge_args": 0.0}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"verb_r5": verb_recall_macro, "cider_d": cider_micro,
                "cider_d_arg": cider_by_argument}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        verbs = Counter(v for it in items for ev in it["answer"]["events"]
                        for v in ev["verbs_gt"])
        top = [v for v, _ in sorted(verbs.items(), key=lambda kv: (-kv[1], kv[0]))[:5]]
        values = {r: Counter(ev["roles"][r] for it in items for ev in it["answer"]["events"]
                             if r in ev["roles"]) for r in ROLE_NAMES}
        common = {r: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]
                  for r, c in values.items() if c}
        line = "; ".join([f"verbs: {', '.join(top)}", *(f"{r}: {v}" for r, v in common.items())])
        return {it["item_id"]: "\n".join(f"Event {k}: {line}" for k in range(
            1, len(it["answer"]["events"]) + 1)) for it in items}


RELATIONS = ("Caused By", "Enabled By", "Reaction To", "No Relation")


def parse_relations(reply: str) -> dict[str, str]:
    out = {}
    for line in reply.splitlines():
        m = _EVENT_LINE.search(line)
        if m:
            label = next((r for r in RELATIONS if r.lower() in m.group(2).lower()), None)
            if label:
                out[m.group(1)] = label
    return out


class RelationAccuracy(_Base):
    """Relations of events 1, 2, 4, 5 to event 3: accuracy averaged over classes (corpus),
    plain accuracy per item. Floor: the majority class everywhere (0.25 when all four occur)."""

    kind = "relations"

    def details(self, item: dict, reply: str | None) -> dict:
        pred = parse_relations(reply) if reply else {}
        return {"relations": [[gt, pred.get(k, "")] for k, gt in
                              sorted(item["answer"]["relations"].items())]}

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        if not parse_relations(reply):
            return None
        pairs = self.details(item, reply)["relations"]
        return {"relation_item_acc": sum(g == p for g, p in pairs) / max(1, len(pairs))}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"relation_item_acc": 0.0}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"relation_acc": class_averaged_accuracy}

    def floor(self, items: Sequence[dict], s: ScoreSettings, rng_for: RngFor,
              draws: int) -> dict[str, Floor]:
        counts = Counter(r for it in items for r in it["answer"]["relations"].values())
        major = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else RELATIONS[0]
        return {it["item_id"]: "\n".join(f"Event {k}: {major}"
                                         for k in sorted(it["answer"]["relations"]))
                for it in items}
