"""Simulate stage: one unit per (persona, length) -> a life-log timeline with its full trace."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from xlebench.library.view import LibraryView
from xlebench.plan.chunks import DayPlan, PlanChunk
from xlebench.plan.clock import time_class
from xlebench.runner.atomic import write_json
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.simulate.engine import Library, MatchParams, simulate_log
from xlebench.simulate.filter import CandidateFilter, Level
from xlebench.simulate.sampling import groups, sample_chunk_indices
from xlebench.simulate.stats import simulation_stats
from xlebench.stages.plan import CHUNK_EMBEDDINGS, planner_params


class SimulateStage(BaseStage):
    name: ClassVar[str] = "simulate"
    version: ClassVar[str] = "1"
    upstream: ClassVar[tuple[str, ...]] = ("plan", "persona", "library")

    def __init__(self, *, lengths: dict[str, int], params: MatchParams,
                 daytime: tuple[int, int], twilight: tuple[int, int], faiss_threads: int = 1
                 ) -> None:
        self.lengths = dict(lengths)
        self.params = params
        self.daytime, self.twilight = daytime, twilight
        self.faiss_threads = faiss_threads
        self._lib: Library | None = None

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        view = LibraryView(ctx["library"].unit_dir(uid), self.faiss_threads)
        self._lib = Library(view.videos, view.index, CandidateFilter(view.videos))

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f"{pid}-{cat}", {"persona": pid, "category": cat, "n": n})
                for pid in ctx["plan"].records for cat, n in self.lengths.items()]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        pid, n = unit.payload["persona"], int(unit.payload["n"])
        plan = DayPlan.from_dict(ctx.upstream["plan"].records[pid])
        vectors = np.load(ctx.upstream["plan"].unit_dir(pid) / CHUNK_EMBEDDINGS)
        row = {c.chunk_id: k for k, c in enumerate(plan.chunks)}
        country = ctx.upstream["persona"].records[pid]["location"]
        rng = unit_random(ctx.seed, self.name, unit.id)
        picked = sample_chunk_indices(len(plan.chunks), n, rng)
        segments, revisions, notes = simulate_log(
            lib=self._lib, chunks=plan.chunks, embed=lambda c: vectors[row[c.chunk_id]],
            country=country, picked=picked,
            alternatives=partial(_alternatives, plan.chunks, picked, n),
            params=self.params, rng=rng,
            tclass=partial(time_class, daytime=self.daytime, twilight=self.twilight),
        )
        return {
            "lifelog_id": unit.id, "persona_id": pid, "n_chunks": n,
            "category": unit.payload["category"], "seed": ctx.seed,
            "sampled_chunks": [plan.chunks[i].chunk_id for i in picked],
            "segments": segments, "reflections": [r.to_dict() for r in revisions],
            "total_duration_s": round(sum(s["source_end_s"] - s["source_start_s"]
                                          for s in segments), 3),
            "span_s": (segments[-1]["end_s"] - segments[0]["start_s"]) if segments else 0,
            "notes": notes,
        }

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        for lid, record in result.records.items():
            write_json(dest / "lifelogs" / f"{lid}.json", record)
        stats = simulation_stats(list(result.records.values()))
        write_json(dest / "stats" / "simulation.json", stats)
        from xlebench.simulate.stats import plot_simulation

        plot_simulation(stats, dest / "stats" / "simulation.png")
        return {"lifelogs": len(result.records),
                "segments": sum(len(r["segments"]) for r in result.records.values()),
                "categories": dict(Counter(r["category"] for r in result.records.values()))}


def _alternatives(chunks: tuple[PlanChunk, ...], picked: list[int], n: int,
                  chunk: PlanChunk) -> list[PlanChunk]:
    """Unpicked chunks of the same group as `chunk`, nearest in time first."""
    index = next((k for k, c in enumerate(chunks) if c.chunk_id == chunk.chunk_id), None)
    if index is None:
        return []
    group = next(g for g in groups(len(chunks), n) if index in g)
    others = [chunks[k] for k in group if k not in picked]
    return sorted(others, key=lambda c: abs(c.start_s - chunk.start_s))


def build_simulate_stage(cfg: DictConfig) -> StageSpec:
    sim = OmegaConf.to_container(cfg.simulation, resolve=True)
    lengths = dict(sim["lengths"])
    if sim.get("n_chunks") is not None:
        n = int(sim["n_chunks"])
        named = {4: "short", 9: "medium", 15: "long"}
        lengths = {named.get(n, f"n{n}"): n}
    matcher = OmegaConf.to_container(cfg.matcher, resolve=True)
    pp = planner_params(cfg)
    params = MatchParams(
        levels=tuple(Level(**step) for step in matcher["ladder"]),
        top_k_sample=int(matcher["top_k_sample"]),
        max_candidates_in_trace=int(matcher["max_candidates_in_trace"]),
        min_gap_s=int(cfg.planner.min_gap_s), day_end=str(sim["day_end"]),
        reflection=bool(cfg.planner.reflection),
    )
    stage = SimulateStage(lengths=lengths, params=params, daytime=pp.daytime,
                          twilight=pp.twilight, faiss_threads=int(matcher["index"]["faiss_threads"]))
    fp = {"lengths": lengths, "day_end": sim["day_end"],
          "matcher": {k: v for k, v in matcher.items() if k not in ("embedder", "index")},
          "index_kind": matcher["index"]["kind"],
          "planner": {"min_gap_s": int(cfg.planner.min_gap_s),
                      "reflection": bool(cfg.planner.reflection),
                      "daytime": list(cfg.planner.daytime),
                      "twilight": list(cfg.planner.twilight)}}
    return StageSpec(stage, fp)


__all__ = ["SimulateStage", "build_simulate_stage"]
