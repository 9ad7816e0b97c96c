"""Relations of events 1, 2, 4, 5 to event 3 (VidSitu), and the blind panel — the class
most common on other life logs."""

from __future__ import annotations

from collections.abc import Sequence

from xlebench.eval.metrics.corpus import CorpusMetric, class_averaged_accuracy, relation_top1
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings, most_common
from xlebench.eval.scorers.events import EVENT_LINE
from xlebench.eval.scorers.learned import nearest_reference

RELATIONS = ("Caused By", "Enabled By", "Reaction To", "No Relation")


def parse_relations(reply: str) -> dict[str, str]:
    out = {}
    for line in reply.splitlines():
        m = EVENT_LINE.search(line)
        if m:
            label = next((r for r in RELATIONS if r.lower() in m.group(2).lower()), None)
            if label:
                out[m.group(1)] = label
    return out


def fit_majority(train: Sequence[dict]) -> str:
    return most_common([r for it in train for r in it["answer"]["relations"].values()],
                       RELATIONS[-1])


def _everywhere(item: dict, label: str, ctx: BlindContext) -> str:
    return "\n".join(f"Event {k}: {label}" for k in sorted(item["answer"]["relations"]))


class RelationAccuracy(Base):
    """As VidSitu's ``EvlFn_EvRel.simple_acc_evrel``: accuracy averaged over classes
    (``Macro_Top_1``, the headline) and over events (``Top_1``), each event counted once per
    labeller who gave its majority label; plain accuracy per item. Blind panel: other
    logs' majority class everywhere (0.25 class-averaged when all four occur)."""

    kind = "relations"

    def details(self, item: dict, reply: str | None) -> dict:
        """Per event: the true label, the reply's, and how many labellers gave the true one
        (``answer.votes``; 1 where items do not say)."""
        pred = parse_relations(reply) if reply else {}
        votes = item["answer"].get("votes", {})
        return {"relations": [[gt, pred.get(k, ""), votes.get(k, 1)] for k, gt in
                              sorted(item["answer"]["relations"].items())]}

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        if not parse_relations(reply):
            return None
        pairs = self.details(item, reply)["relations"]
        return {"relation_item_acc": sum(g == p for g, p, *_ in pairs) / max(1, len(pairs))}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"relation_item_acc": 0.0}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"relation_acc": class_averaged_accuracy, "relation_top1": relation_top1}

    def blind(self) -> Sequence[Blind]:
        return (Blind("majority_class", "other logs' relation labels", _everywhere,
                      fit_majority), nearest_reference())
