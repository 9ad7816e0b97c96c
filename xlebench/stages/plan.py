"""Plan stage: one day plan per persona, plus embeddings of every chunk description.

The embeddings are computed here (through the shared embedding store) so the simulate stage
can match without loading a sentence model at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.library.embed import make_encoder
from xlebench.library.view import LibraryView
from xlebench.llm.client import Usage
from xlebench.llm.setup import (
    export_usage,
    llm_fingerprint,
    prompt_files,
    save_usage,
)
from xlebench.persona.profile import Persona
from xlebench.plan.chunks import DayPlan
from xlebench.plan.llm import LLMPlanner
from xlebench.plan.offline import PlannerParams, plan_day
from xlebench.runner.atomic import write_jsonl
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.stages.readers import (
    CHUNK_EMBEDDINGS,
    embedder_settings,
    llm_planner,
    planner_params,
)


class PlanStage(BaseStage):
    name: ClassVar[str] = "plan"
    outputs: ClassVar[tuple[str, ...]] = ("plans.jsonl", "stats/llm_usage_plan.json")
    version: ClassVar[str] = "6"  # 6: evenings fitted before bedtime (planner.bedtime)
    upstream: ClassVar[tuple[str, ...]] = ("persona", "library")

    def __init__(self, *, params: PlannerParams, embedder: dict[str, Any],
                 embedding_store: Path | None, llm: LLMPlanner | None = None,
                 days: int = 1) -> None:
        self.params, self.days = params, days
        self.llm = llm
        if llm is not None:
            # LLM plans wait on the network: threads, as many as the client lets run at once.
            self.waits_on_network(llm.client.settings.max_concurrency)
        self.embedder_cfg = embedder
        self.embedding_store = embedding_store
        self._state: dict[str, Any] = {}

    def setup(self, ctx: StageContext) -> None:
        self._state = {"vocabulary": _vocabulary(ctx),
                       "encode": make_encoder(self.embedder_cfg, self.embedding_store)}

    def prepare(self, pending: Sequence[Unit], ctx: StageContext) -> None:
        """Embed every pending offline plan's chunk texts in one call through the store, so
        that each unit finds its vectors there: unit by unit, a plan's ~15 texts of distinct
        lengths cost ~15 small passes, each filled to 256 token rows (`same_length_batches`).
        Exact, since a text's vector does not depend on its batch. The units draw their plans
        again (milliseconds each); hashing vectors gain nothing from batching."""
        if self.llm is not None or self.embedding_store is None \
                or self.embedder_cfg["kind"] == "hashing":
            return
        vocabulary = _vocabulary(ctx)
        personas = ctx["persona"].records
        texts = [c.description for u in pending for c in self._offline_plan(
            Persona.from_dict(personas[u.id]), vocabulary, ctx.seed, u.id).chunks]
        make_encoder(self.embedder_cfg, self.embedding_store)(texts)

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(pid) for pid in ctx["persona"].records]

    def prompt_files(self) -> list[Path]:
        if self.llm is None:
            return []
        p = self.llm.prompts
        return prompt_files([p.daily_plan, p.chunking, p.chunk_info])

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        persona = Persona.from_dict(ctx.upstream["persona"].records[unit.id])
        if self.llm is not None:
            usage = Usage()
            plan = self.llm.day_plan(persona, self._state["vocabulary"], ctx.seed, usage)
            save_usage(ctx.workdir, usage)
        else:
            plan = self._offline_plan(persona, self._state["vocabulary"], ctx.seed, unit.id)
        vectors = self._state["encode"]([c.description for c in plan.chunks])
        np.save(ctx.workdir / CHUNK_EMBEDDINGS, np.asarray(vectors, dtype=np.float32))
        return plan.to_dict()

    def _offline_plan(self, persona: Persona, vocabulary: Any, seed: int,
                      unit_id: str) -> DayPlan:
        # day 1 draws exactly what a one-day plan draws; later days their own generators
        return DayPlan.join([plan_day(persona, vocabulary, self.params,
                                      unit_random(seed, self.name, unit_id,
                                                  *([f"day{d + 1}"] if d else [])))
                             for d in range(self.days)])

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        n = write_jsonl(dest / "plans.jsonl", result.records.values())
        chunks = [len(DayPlan.from_dict(r).chunks) for r in result.records.values()]
        counts = {"plans": n, "chunks_min": min(chunks, default=0),
                  "chunks_max": max(chunks, default=0)}
        return export_usage(self.llm.client.settings.model if self.llm else None, result,
                            dest, counts)


def _vocabulary(ctx: StageContext) -> list[str]:
    uid, _ = ctx["library"].only()
    return LibraryView(ctx["library"].unit_dir(uid)).scenario_vocabulary


def build_plan_stage(cfg: DictConfig) -> StageSpec:
    llm = llm_planner(cfg, "planner=llm")
    days = int(cfg.simulation.days)
    if llm is not None and days > 1:
        raise ConfigError(f"simulation.days={days} needs planner=offline (the LLM planner "
                          "writes one day)")
    stage = PlanStage(params=planner_params(cfg), embedder=embedder_settings(cfg),
                      embedding_store=Path(cfg.paths.cache) / "embeddings", llm=llm, days=days)
    planner = OmegaConf.to_container(cfg.planner, resolve=True)
    fp = {"planner": {k: v for k, v in planner.items()
                      if k not in ("min_gap_s", "max_reflection_retries", "reflection",
                                   "prompts")},
          "llm": llm_fingerprint(cfg, llm.prompts.names()[1:4]) if llm else None}
    if days > 1:
        fp["days"] = days
    return StageSpec(stage, fp)

