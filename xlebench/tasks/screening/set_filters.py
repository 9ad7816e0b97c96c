"""What the annotate stage does over every life log's items at once, once its units are done:
the filters that read the whole benchmark (the blind panel, AFLite) and the held-out split.
Each takes the records and returns new ones; an item a filter drops is counted in its
record's ``stats`` under the filter's reason."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from xlebench.eval.panel.public import Public
from xlebench.eval.scorers.base import most_common
from xlebench.eval.scorers.sentences import warm_options
from xlebench.runner.progress import timed
from xlebench.split import log_split
from xlebench.tasks.screening.aflite import DROPPED as AFLITE_DROPPED
from xlebench.tasks.screening.aflite import KIND as AFLITE_KIND
from xlebench.tasks.screening.aflite import aflite_verdicts
from xlebench.tasks.screening.balance import balance_readers, chance, tag_strata
from xlebench.tasks.screening.filters import READER_FILTERS
from xlebench.tasks.screening.panel_filter import DROPPED as PANEL_DROPPED
from xlebench.tasks.screening.panel_filter import KIND as PANEL_KIND
from xlebench.tasks.screening.panel_filter import panel_verdicts

log = logging.getLogger(__name__)


def without(rec: dict, drop: set[str], why: str) -> dict:
    """The record less the items ``drop`` names, counted under ``why``."""
    kept = [it for it in rec["items"] if it["item_id"] not in drop]
    if len(kept) == len(rec["items"]):
        return rec
    stats = {**rec["stats"], why: rec["stats"].get(why, 0) + len(rec["items"]) - len(kept)}
    return {**rec, "items": kept, "stats": dict(sorted(stats.items()))}


def split_records(records: dict[str, dict], seed: int, heldout: float) -> dict[str, dict]:
    """Each item marked with its life log's split (`xlebench.split`) when some are held
    out."""
    if heldout <= 0:
        return records
    return {uid: {**rec, "items": [{**it, "split": log_split(it["lifelog_id"], seed, heldout)}
                                   for it in rec["items"]]}
            for uid, rec in records.items()}


def set_filters(records: dict[str, dict], recipes: Mapping[str, Any],
                filters: Mapping[str, list], settings: Any, seed: int,
                script: Mapping[str, Any] | None = None) -> dict[str, dict]:
    """The filters over every life log's items at once, in order: AFLite's learned filter
    (`xlebench.tasks.screening.aflite`), then the blind panel
    (`xlebench.tasks.screening.panel_filter`), last since its members (the learned one, its
    inverse and the stacked reader among them) see whatever fingerprint the others left;
    each reads the benchmark as it stands before it, and the life logs' plans (``script``,
    `xlebench.eval.panel.public.records_script`), which a submitter rebuilds."""
    with timed(log, "annotate: balancing the per-item readers' picks"):
        records = balance_item_filters(records, filters, seed)
    for kind, why in ((AFLITE_KIND, AFLITE_DROPPED), (PANEL_KIND, PANEL_DROPPED)):
        records = _set_filter(records, recipes, filters, settings, seed, kind, why, script)
    return records


def _set_filter(records: dict[str, dict], recipes: Mapping[str, Any],
                filters: Mapping[str, list], settings: Any, seed: int, kind: str, why: str,
                script: Mapping[str, Any] | None = None) -> dict[str, dict]:
    specs = {name: spec for name in recipes
             for spec in filters.get(name, []) if spec.get("kind") == kind}
    by_sub: dict[str, list[dict]] = defaultdict(list)
    for rec in records.values():
        by_sub[rec["subtask"]] += rec["items"]
    if not any(by_sub.get(name) for name in specs):
        log.info("annotate: the %s filter: 0.0 s", kind)
        return records
    public = Public([it for its in by_sub.values() for it in its], script)
    if any((it.get("answer") or {}).get("options") for name in specs
           for it in by_sub.get(name, ())):
        with timed(log, f"annotate: the {kind} filter's option vectors"):
            warm_options(public)  # MiniLM on torch's threads: timed apart from the spread
    verdicts: dict[str, dict] = {}
    with timed(log, f"annotate: the {kind} filter"):
        for name, spec in specs.items():
            if by_sub.get(name):
                verdicts.update(
                    panel_verdicts(by_sub[name], recipes[name], spec, settings, seed, public)
                    if kind == PANEL_KIND
                    else aflite_verdicts(by_sub[name], recipes[name], spec, public, seed))
    for rec in records.values():
        for it in rec["items"]:
            if it["item_id"] in verdicts:
                it["provenance"].setdefault("filters", {})[kind] = verdicts[it["item_id"]]
    drop = {i for i, v in verdicts.items() if not v["kept"]}
    return {uid: without(rec, drop, why) for uid, rec in records.items()}


#: Passes over a per-item filter's readers (each pass balances every reader still outside
#: chance's band; a later reader's drops can move an earlier one).
PASSES = 3


def _item_readers(items: Sequence[dict], kind: str
                  ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, list[int]]]]:
    """A per-item filter's readers as its verdicts record them: each option-only rule, or
    the model's pick over its seeds."""
    acc: dict[str, dict[str, float]] = defaultdict(dict)
    picks: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for it in items:
        v, label, i = it["provenance"]["filters"][kind], it["answer"]["label"], it["item_id"]
        if "picks" in v:  # option_only: one reader per rule
            for rule, tied in v["picks"].items():
                acc[rule][i] = float(label in tied) / len(tied)
                picks[rule][i] = list(tied)
        else:
            acc["model"][i] = v["correct"] / v["seeds"]
            picks["model"][i] = [most_common(v["picked"], 0)]
    return acc, picks


def balance_item_filters(records: dict[str, dict], filters: Mapping[str, list], seed: int
                         ) -> dict[str, dict]:
    """Per subtask and per-item reader filter left pending (`filters.balances`): its readers
    balanced over the whole subtask (`balance.balance_readers`), the excess dropped."""
    by_sub: dict[str, list[dict]] = defaultdict(list)
    for rec in records.values():
        by_sub[rec["subtask"]] += rec["items"]
    for name, specs in filters.items():
        for kind in dict.fromkeys(s.get("kind") for s in specs if s.get("kind") in READER_FILTERS):
            items = [it for it in by_sub.get(name, ())
                     if it["provenance"].get("filters", {}).get(kind, {}).get("balanced")]
            if not items:
                continue
            base = {it["item_id"]: chance(it) for it in items}
            acc, picks = _item_readers(items, kind)
            tags, live, drop = tag_strata(items), [it["item_id"] for it in items], {}
            for k in range(PASSES):
                more = balance_readers(live, acc, picks, base, tags, seed, kind, k)
                drop.update(more)
                live = [i for i in live if i not in more]
                if not more:
                    break
            for it in items:
                it["provenance"]["filters"][kind].update(kept=it["item_id"] not in drop,
                                                         reader=drop.get(it["item_id"]))
            records = {uid: without(rec, set(drop), f"dropped by the {kind} filter")
                       for uid, rec in records.items()}
    return records
