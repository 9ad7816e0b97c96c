"""Respond stage: one unit per (system, life log) -> the system's replies to that log's items.

Replies are the expensive part of an evaluation (frames decoded, captions written, a model
asked per item), so they are units of their own: cached and resumed per log, run in threads
when a system waits on an API, and split across jobs with ``shard.index/shard.count``; the
evaluate stage then scores them all. A unit's id carries a key of its system's fingerprint
(model, prompts, frames, captioner), so adding a system reuses every other system's replies.
With an in-process model and ``vlm.logs_per_batch=K``, a unit answers the next K - 1 pending
logs of its system too, their model calls batched round by round (`xlebench.vlm.lockstep`); it
records only its own replies and hands the others to their own units, which record them.
"""

from __future__ import annotations

import hashlib
import json
from functools import partial
from pathlib import Path
from typing import ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.config.backends import vlm_backend
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, Unit, UnitContext
from xlebench.stages.readers import annotations_root, configured_recipes, stage_annotations
from xlebench.systems.base import Systems
from xlebench.systems.registry import build_systems, selected_logs
from xlebench.tasks.recipe.registry import Recipe
from xlebench.vlm.lockstep import run_lockstep


def system_key(fingerprint: dict) -> str:
    return hashlib.sha256(json.dumps(fingerprint, sort_keys=True, default=str)
                          .encode()).hexdigest()[:8]


def log_items(ctx: StageContext) -> dict[str, list[dict]]:
    """Every item of the benchmark, by life log, in item-id order."""
    out: dict[str, list[dict]] = {}
    for rec in ctx["annotate"].records.values():
        out.setdefault(rec["lifelog_id"], []).extend(rec["items"])
    return {lid: sorted(items, key=lambda it: it["item_id"]) for lid, items in out.items()}


class RespondStage(BaseStage):
    name: ClassVar[str] = "respond"
    version: ClassVar[str] = "1"
    upstream: ClassVar[tuple[str, ...]] = ("annotate", "simulate", "library")

    def __init__(self, *, systems: Systems, recipes: dict[str, Recipe], root: Path | None,
                 max_logs: int | None = None, lifelogs: list[str] | None = None,
                 split: tuple[int, float, str] = (0, 0.0, "all")) -> None:
        self.systems, self.recipes, self.root = systems, recipes, root
        self.max_logs, self.lifelogs = max_logs, list(lifelogs or [])
        self.split = split
        self.keys = {n: system_key(fp) for n, fp in systems.fingerprints.items()}
        # Systems hold model clients (locks, loaded weights): threads, never processes; one
        # thread for an in-process model, as many as the API allows for a remote one.
        self.waits_on_network(max(8, systems.vlm.settings.max_concurrency)
                              if systems.network and systems.vlm is not None else 1)
        vlm = systems.vlm.settings if systems.vlm is not None else None
        kind = vlm_backend(vlm.backend) if vlm is not None else None
        self.per_wave = vlm.logs_per_batch if kind is not None and not kind.remote else 1
        if kind is not None and (kind.in_process or self.per_wave > 1):
            self.serial = True  # one model in this process; waves need the pending order
        self._items: dict[str, list[dict]] = {}
        self._pending: list[Unit] = []
        self._ahead: dict[str, dict[str, str] | BaseException] = {}

    def setup(self, ctx: StageContext) -> None:
        from xlebench.library.view import LibraryView

        self._items = log_items(ctx)
        self.systems.report = ctx.report or self.systems.report
        if self.systems.vlm is not None and ctx.report is not None:
            self.systems.vlm.report = ctx.report
        uid, _ = ctx["library"].only()
        self.systems.videos = {v.video_uid: v for v in
                               LibraryView(ctx["library"].unit_dir(uid)).videos}
        if any(getattr(s, "captions", None) is self.systems.oracle  # reads the narrations
               for s in self.systems.by_name.values()):
            self.systems.oracle.ann = stage_annotations(ctx, self.root)
        if self.systems.annotations is not None:
            self.systems.annotations.replies = {
                k: v for rec in ctx["annotate"].records.values()
                for k, v in rec.get("oracle", {}).items()}

    def prepare(self, pending: list[Unit], ctx: StageContext) -> None:
        """Replies to compute: first check every remote model's key and server. The pending
        order fixes the waves of ``vlm.logs_per_batch`` logs (this stage runs serially, in
        the runner's process, whenever it batches across logs)."""
        self.systems.probe()
        self._pending, self._ahead = list(pending), {}

    def units(self, ctx: StageContext) -> list[Unit]:
        items = log_items(ctx)
        logs = selected_logs(sorted(ctx["simulate"].records), self.max_logs, self.lifelogs,
                             self.split)
        return [Unit(f"{name}.{self.keys[name]}.{lid}", {"system": name, "lifelog": lid})
                for name in self.systems.by_name for lid in logs if items.get(lid)]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        lid, name = unit.payload["lifelog"], unit.payload["system"]
        outcome = self._ahead.pop(unit.id, None)
        if outcome is None:
            wave = self._wave(unit)
            outcomes = run_lockstep([partial(self._replies, u, ctx) for u in wave])
            self._ahead.update((u.id, o) for u, o in zip(wave[1:], outcomes[1:], strict=True))
            outcome = outcomes[0]
        if isinstance(outcome, BaseException):
            raise outcome
        ctx.count("answers", len(outcome))
        return {"system": name, "lifelog_id": lid, "responses": dict(sorted(outcome.items()))}

    def _replies(self, unit: Unit, ctx: UnitContext) -> dict[str, str]:
        lid, name = unit.payload["lifelog"], unit.payload["system"]
        items = [it for it in self._items[lid] if it["subtask"] in self.recipes]
        log = ctx.upstream["simulate"].records[lid]
        return self.systems.by_name[name].respond(items, self.recipes, log)

    def _wave(self, unit: Unit) -> list[Unit]:
        """``unit`` and the pending units of the same system after it, up to
        ``vlm.logs_per_batch`` logs answered together (a retried unit: alone)."""
        if self.per_wave <= 1 or unit not in self._pending:
            return [unit]
        at = self._pending.index(unit)
        same = [u for u in self._pending[at + 1:]
                if u.payload["system"] == unit.payload["system"] and u.id not in self._ahead]
        del self._pending[:at + 1]
        wave = [unit, *same[:self.per_wave - 1]]
        for u in wave[1:]:
            self._pending.remove(u)
        return wave


def build_respond_stage(cfg: DictConfig) -> StageSpec:
    systems = build_systems(cfg)
    recipes = {n: r for n, (r, _) in configured_recipes(cfg).items()}
    ec = OmegaConf.to_container(cfg.eval, resolve=True)
    stage = RespondStage(systems=systems, recipes=recipes, root=annotations_root(cfg),
                         max_logs=ec["max_logs"], lifelogs=ec["lifelogs"],
                         split=(int(cfg.seed), float(cfg.annotate.heldout), str(ec["split"])))
    split = {"split": ec["split"]} if ec["split"] != "all" else {}
    return StageSpec(stage, {"systems": systems.fingerprints, "max_logs": ec["max_logs"],
                             "lifelogs": ec["lifelogs"], **split}, cache_config={})
