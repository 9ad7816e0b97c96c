"""Plan stage: one day plan per persona, plus embeddings of every chunk description.

The embeddings are computed here (through the shared embedding store) so the simulate stage
can match without loading a sentence model at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.library.embed import EmbeddingStore, make_embedder
from xlebench.library.view import LibraryView
from xlebench.persona.profile import Persona
from xlebench.plan.chunks import DayPlan
from xlebench.plan.clock import parse_hhmm
from xlebench.plan.offline import PlannerParams, plan_day
from xlebench.runner.atomic import write_jsonl
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext

CHUNK_EMBEDDINGS = "chunk_embeddings.npy"


class PlanStage(BaseStage):
    name: ClassVar[str] = "plan"
    version: ClassVar[str] = "2"
    upstream: ClassVar[tuple[str, ...]] = ("persona", "library")

    def __init__(self, *, params: PlannerParams, kind: str, embedder: dict[str, Any],
                 embedding_store: Path | None) -> None:
        if kind != "offline":
            raise ConfigError(
                f"planner={kind}: the LLM planner is not available in this version yet; "
                "use planner=offline (the default)"
            )
        self.params = params
        self.embedder_cfg = embedder
        self.embedding_store = embedding_store
        self._state: dict[str, Any] = {}

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        view = LibraryView(ctx["library"].unit_dir(uid))
        embedder = make_embedder(**self.embedder_cfg)
        store = EmbeddingStore(self.embedding_store, embedder) if self.embedding_store else None
        self._state = {"vocabulary": view.scenario_vocabulary, "encode": (store or embedder).encode}

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(pid) for pid in ctx["persona"].records]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        persona = Persona.from_dict(ctx.upstream["persona"].records[unit.id])
        plan = plan_day(persona, self._state["vocabulary"], self.params, unit_random(
            ctx.seed, self.name, unit.id))
        vectors = self._state["encode"]([c.description for c in plan.chunks])
        np.save(ctx.workdir / CHUNK_EMBEDDINGS, np.asarray(vectors, dtype=np.float32))
        return plan.to_dict()

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        n = write_jsonl(dest / "plans.jsonl", result.records.values())
        chunks = [len(DayPlan.from_dict(r).chunks) for r in result.records.values()]
        return {"plans": n, "chunks_min": min(chunks, default=0),
                "chunks_max": max(chunks, default=0)}


def planner_params(cfg: DictConfig) -> PlannerParams:
    pc = cfg.planner
    return PlannerParams(
        min_chunks=int(pc.min_chunks), gap_min_s=int(pc.gap_min_s), gap_max_s=int(pc.gap_max_s),
        daytime=(parse_hhmm(pc.daytime[0]), parse_hhmm(pc.daytime[1])),
        twilight=(parse_hhmm(pc.twilight[0]), parse_hhmm(pc.twilight[1])),
    )


def build_plan_stage(cfg: DictConfig) -> StageSpec:
    embedder = OmegaConf.to_container(cfg.matcher.embedder, resolve=True)
    stage = PlanStage(
        params=planner_params(cfg), kind=str(cfg.planner.kind),
        embedder={k: embedder[k] for k in ("kind", "dim", "model", "batch_size")},
        embedding_store=Path(cfg.paths.cache) / "embeddings",
    )
    planner = OmegaConf.to_container(cfg.planner, resolve=True)
    fp = {"planner": {k: v for k, v in planner.items()
                      if k not in ("min_gap_s", "max_reflection_retries", "reflection")},
          "llm": OmegaConf.to_container(cfg.llm, resolve=True) if cfg.planner.kind != "offline"
          else None}
    return StageSpec(stage, fp)
