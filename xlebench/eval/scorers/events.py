"""Five events of a 10-second window (VidSitu): verbs and semantic roles, and the blind panel
— the verbs and role values most common on other life logs."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.corpus import CorpusMetric, cider_by_argument, cider_micro, verb_recall_macro
from xlebench.eval.metrics import rouge_l
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings

EVENT_LINE = re.compile(r"event\s*(\d+)\s*[:.-]\s*(.*)", re.IGNORECASE)
ROLE_NAMES = ("Arg0", "Arg1", "Arg2", "ALoc", "AScn")


def parse_events(reply: str) -> dict[int, dict[str, Any]]:
    """``Event 2: verbs: cut, slice; Arg0: C; Arg1: onion`` lines -> {2: {verbs, roles}}."""
    out: dict[int, dict[str, Any]] = {}
    for line in reply.splitlines():
        m = EVENT_LINE.search(line)
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


def fit_common(train: Sequence[dict]) -> str:
    """One event line of other logs' five most common verbs and each role's most common
    value."""
    verbs = Counter(v for it in train for ev in it["answer"]["events"] for v in ev["verbs_gt"])
    top = [v for v, _ in sorted(verbs.items(), key=lambda kv: (-kv[1], kv[0]))[:5]]
    values = {r: Counter(ev["roles"][r] for it in train for ev in it["answer"]["events"]
                         if r in ev["roles"]) for r in ROLE_NAMES}
    common = {r: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0]
              for r, c in values.items() if c}
    return "; ".join([f"verbs: {', '.join(top)}", *(f"{r}: {v}" for r, v in common.items())])


def _common(item: dict, line: str, ctx: BlindContext) -> str:
    return "\n".join(f"Event {k}: {line}" for k in range(1, len(item["answer"]["events"]) + 1))


class EventRoles(Base):
    """Verbs (macro Recall@5 as primary, Acc@1/Acc@5 per item) and semantic roles (ROUGE-L per
    item; CIDEr-D micro and per argument over the corpus). Blind panel: other logs' five most
    common verbs and each role's most common value, for every event."""

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

    def blind(self) -> Sequence[Blind]:
        return (Blind("common_verbs_roles", "other logs' most common verbs and role values",
                      _common, fit_common),)
