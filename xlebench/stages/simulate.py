"""Simulate stage: one unit per (persona, length) -> a life-log timeline with its full trace."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from xlebench.clock import DAY, parse_hhmm, time_class
from xlebench.config.schema import DiversityConfig
from xlebench.errors import ConfigError
from xlebench.library.embed import make_encoder
from xlebench.library.records import LibraryVideo
from xlebench.library.view import LibraryView
from xlebench.llm.client import Usage
from xlebench.llm.setup import export_usage, llm_fingerprint, prompt_files, save_usage
from xlebench.persona.profile import Persona
from xlebench.plan.answers import Vocabulary
from xlebench.plan.chunks import DayPlan, PlanChunk
from xlebench.plan.llm import LLMPlanner, memory_entry
from xlebench.plan.reflect import Revision, reflect_offline, shared_chunk_dicts
from xlebench.runner.atomic import dumps, link_or_copy, write_json
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.simulate.diversity_sample import SampleSpec, diversity_sample
from xlebench.simulate.engine import (
    Library,
    MatchParams,
    PoolExhausted,
    Reflector,
    popularity_prior,
    simulate_log,
)
from xlebench.simulate.filter import (
    AUTHORS,
    CandidateFilter,
    Compatibility,
    Level,
    compatibility,
)
from xlebench.simulate.sampling import groups, sample_chunk_indices
from xlebench.simulate.stats import simulation_stats
from xlebench.stages.readers import (
    CHUNK_EMBEDDINGS,
    embedder_settings,
    llm_planner,
    planner_params,
)

#: A unit's life log exactly as the benchmark folder publishes it (``lifelogs/<id>.json``).
PUBLISHED = "lifelog.json"


class SimulateStage(BaseStage):
    name: ClassVar[str] = "simulate"
    outputs: ClassVar[tuple[str, ...]] = (
        "lifelogs", "stats/simulation.json", "stats/simulation.png",
        "stats/llm_usage_simulate.json")
    version: ClassVar[str] = "4"  # 4: stats/simulation.json gives day_ends
    upstream: ClassVar[tuple[str, ...]] = ("plan", "persona", "library")
    record_file: ClassVar[str] = PUBLISHED  # the published form is the record, indented

    def __init__(self, *, lengths: dict[str, int], params: MatchParams, min_gap_s: int,
                 reflection: bool, daytime: tuple[int, int], twilight: tuple[int, int],
                 faiss_threads: int = 1, llm: LLMPlanner | None = None,
                 embedder: dict[str, Any] | None = None, embedding_store: Path | None = None,
                 diversity: DiversityConfig | None = None,
                 compatible: Compatibility = AUTHORS,
                 sample: SampleSpec | None = None) -> None:
        self.diversity = diversity or DiversityConfig()
        self.compatible = compatible
        self.sample, self._sampled = sample, None
        self.lengths = dict(lengths)
        self.params = params
        self.min_gap_s, self.reflection = min_gap_s, reflection
        self.daytime, self.twilight = daytime, twilight
        self.faiss_threads = faiss_threads
        self.llm = llm
        self.embedder_cfg, self.embedding_store = embedder, embedding_store
        if llm is not None:
            self.waits_on_network(llm.client.settings.max_concurrency)
        self._lib: Library | None = None
        self._encode = None
        self._vocab: Vocabulary | None = None
        self._plans: dict[str, tuple[DayPlan, np.ndarray]] = {}

    def prompt_files(self) -> list[Path]:
        return prompt_files([self.llm.prompts.reflection]) if self.llm else []

    def setup(self, ctx: StageContext) -> None:
        self._plans = {}
        uid, _ = ctx["library"].only()
        view = LibraryView(ctx["library"].unit_dir(uid), self.faiss_threads)
        allowed = None
        if self.sample is not None:  # Neptune's diversity sampling of the candidate pool
            allowed, self._sampled = diversity_sample(view.videos, view.embeddings,
                                                      self.sample, ctx.seed)
        self._lib = Library(view.videos, view.index,
                            CandidateFilter(view.videos, self.compatible, allowed))
        if self.diversity.kind == "popularity_penalty" and self.params.penalty is None:
            self.params = replace(self.params, penalty=popularity_prior(
                self._lib, self._prior_queries(ctx), self.params.levels, self.diversity.weight))
        self._vocab = Vocabulary(view.scenario_vocabulary)
        if self.llm is not None and self.embedder_cfg:
            # LLM reflection may rewrite descriptions; those are embedded here (cached).
            self._encode = make_encoder(self.embedder_cfg, self.embedding_store)

    def _pool_error(self, exc: PoolExhausted, chunks: int) -> ConfigError:
        """A life log ran out of unused candidates: one line naming what set the pool."""
        if self.sample is not None:
            return ConfigError(
                f"matcher.diversity.sample.n={self.sample.n}: life log chunk {exc.chunk_id} "
                f"found no unused video among the {self.sample.n} sampled (a life log uses "
                f"each video once and this one has {chunks} chunks); sample at least as many "
                "videos as a log has chunks, several times more for variety, or set "
                "matcher.diversity.sample.n=null to match against the whole library")
        return ConfigError(
            f"library: life log chunk {exc.chunk_id} found no unused video among the "
            f"{len(self._lib.videos)} of the library (a life log uses each video once and this "
            f"one has {chunks} chunks); use a larger library (library.n_videos=...) or shorter "
            "logs (simulation.n_chunks=...)")

    def _prior_queries(self, ctx: StageContext) -> list[tuple[PlanChunk, np.ndarray, str]]:
        """Every chunk of every plan (sorted by persona), with its vector and country."""
        out = []
        for pid in sorted(ctx["plan"].records):
            plan, vectors = self._plan(ctx, pid)
            country = ctx["persona"].records[pid]["location"]
            out += [(c, vectors[k], country) for k, c in enumerate(plan.chunks)]
        return out

    def _plan(self, ctx: StageContext, pid: str) -> tuple[DayPlan, np.ndarray]:
        """A persona's plan and its chunks' vectors, read once per process (its life logs
        and the popularity prior share them; both are immutable)."""
        if pid not in self._plans:
            plan = ctx["plan"]
            self._plans[pid] = (DayPlan.from_dict(plan.records[pid]),
                                np.load(plan.unit_dir(pid) / CHUNK_EMBEDDINGS))
        return self._plans[pid]

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f"{pid}-{cat}", {"persona": pid, "category": cat, "n": n})
                for pid in ctx["plan"].records for cat, n in self.lengths.items()]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        pid, n = unit.payload["persona"], int(unit.payload["n"])
        plan, vectors = self._plan(ctx.upstream, pid)
        persona = ctx.upstream["persona"].records[pid]
        rng = unit_random(ctx.seed, self.name, unit.id)
        picked = per_day_indices(plan.chunks, n, rng)
        usage = Usage()
        chunk_dict = shared_chunk_dicts()
        reflect = (self._llm_reflector(Persona.from_dict(persona), ctx.seed, usage)
                   if self.llm else self._offline_reflector(plan.chunks, picked, n))
        try:
            segments, revisions, notes = simulate_log(
                lib=self._lib, chunks=plan.chunks, embed=partial(self._embed, plan, vectors),
                country=persona["location"], picked=picked, reflect=reflect,
                params=self.params, rng=rng,
            )
        except PoolExhausted as exc:
            raise self._pool_error(exc, len(picked)) from None
        if self.llm:
            save_usage(ctx.workdir, usage)
        record = {
            "lifelog_id": unit.id, "persona_id": pid, "n_chunks": n,
            "category": unit.payload["category"], "seed": ctx.seed,
            "sampled_chunks": [plan.chunks[i].chunk_id for i in picked],
            "segments": segments,
            "reflections": [r.to_dict(chunk_dict) for r in revisions],
            "total_duration_s": round(sum(s["source_end_s"] - s["source_start_s"]
                                          for s in segments), 3),
            "span_s": (segments[-1]["end_s"] - segments[0]["start_s"]) if segments else 0,
            "notes": notes,
            **({"days": plan.notes["days"]} if plan.notes.get("days", 1) > 1 else {}),
            **({"library_sample": self._sampled} if self._sampled else {}),
        }
        # The published form, encoded while the revisions still share their chunk dicts
        # (each encoded once): the export links this file instead of encoding the record.
        (ctx.workdir / PUBLISHED).write_text(dumps(record), encoding="utf-8")  # private folder
        return record

    def _tclass(self, seconds: int) -> str:
        return time_class(seconds, daytime=self.daytime, twilight=self.twilight)

    def _embed(self, plan: DayPlan, vectors: np.ndarray, chunk: PlanChunk) -> np.ndarray:
        """The plan's stored vector, unless reflection rewrote the description."""
        for k, c in enumerate(plan.chunks):
            if c.chunk_id == chunk.chunk_id and c.description == chunk.description:
                return vectors[k]
        if self._encode is None:
            raise RuntimeError(f"chunk {chunk.chunk_id} has a new description and no embedder")
        return np.asarray(self._encode([chunk.description])[0], dtype=np.float32)

    def _offline_reflector(self, chunks: tuple[PlanChunk, ...], picked: list[int],
                           n: int) -> Reflector:
        alternatives = partial(_alternatives, chunks, picked, n) if self.reflection else _none

        def reflect(index: int, remaining: list[PlanChunk], video: LibraryVideo,
                    segment: dict) -> Revision:
            return reflect_offline(index=index, remaining=remaining, video=video,
                                   segment_end=segment["end_s"], alternatives=alternatives,
                                   min_gap_s=self.min_gap_s, tclass=self._tclass)
        return reflect

    def _llm_reflector(self, persona: Persona, seed: int, usage: Usage) -> Reflector:
        memory: list[dict] = []

        def reflect(index: int, remaining: list[PlanChunk], video: LibraryVideo,
                    segment: dict) -> Revision:
            memory.append(memory_entry(segment, video))
            return self.llm.reflect(
                persona=persona, memory=list(memory), index=index, remaining=remaining,
                segment_end=segment["end_s"], min_gap_s=self.min_gap_s, vocabulary=self._vocab,
                tclass=self._tclass, seed=seed, usage=usage)
        return reflect

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        for lid, record in result.records.items():
            published = result.unit_dir(lid) / PUBLISHED
            if published.is_file():
                link_or_copy(published, dest / "lifelogs" / f"{lid}.json")
            else:  # a unit cached before the published form was kept beside the record
                write_json(dest / "lifelogs" / f"{lid}.json", record)
        stats = simulation_stats(list(result.records.values()))
        sampled = next((r["library_sample"] for r in result.records.values()
                        if "library_sample" in r), None)
        if sampled:
            stats["library_sample"] = sampled
        write_json(dest / "stats" / "simulation.json", stats)
        from xlebench.simulate.stats import plot_simulation

        plot_simulation(stats, dest / "stats" / "simulation.png")
        counts = {"lifelogs": len(result.records),
                  "segments": sum(len(r["segments"]) for r in result.records.values()),
                  "categories": dict(Counter(r["category"] for r in result.records.values()))}
        return export_usage(self.llm.client.settings.model if self.llm else None, result,
                            dest, counts)


def _none(_: PlanChunk) -> list[PlanChunk]:
    return []


def per_day_indices(chunks: Sequence[PlanChunk], n: int, rng) -> list[int]:
    """n chunks of each day's plan (one day: exactly the one-day sampling)."""
    days = sorted({c.day for c in chunks})
    if days == [0]:
        return sample_chunk_indices(len(chunks), n, rng)
    picked = []
    for d in days:
        index = [k for k, c in enumerate(chunks) if c.day == d]
        picked += [index[i] for i in sample_chunk_indices(len(index), n, rng)]
    return picked


def _alternatives(chunks: tuple[PlanChunk, ...], picked: list[int], n: int,
                  chunk: PlanChunk) -> list[PlanChunk]:
    """Unpicked chunks of the same day and group as `chunk`, nearest in time first."""
    day = [k for k, c in enumerate(chunks) if c.day == chunk.day]
    local = next((i for i, k in enumerate(day) if chunks[k].chunk_id == chunk.chunk_id), None)
    if local is None:
        return []
    group = next(g for g in groups(len(day), n) if local in g)
    others = [chunks[day[i]] for i in group if day[i] not in picked]
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
        day_end=str(sim["day_end"]),
        start_resolution_s=int(sim["start_resolution_s"]),
        segment_end=str(sim["segment_end"]),
        latest_start_s=(None if sim.get("latest_start") is None
                        else DAY + parse_hhmm(str(sim["latest_start"]))),
    )
    llm = llm_planner(cfg, "planner=llm (reflection)") if cfg.planner.reflection else None
    if llm is not None:
        # Reflection retries are their own budget: a rejected revision is repaired, not fatal.
        llm.max_retries = int(cfg.planner.max_reflection_retries)
    stage = SimulateStage(
        lengths=lengths, params=params, min_gap_s=int(cfg.planner.min_gap_s),
        reflection=bool(cfg.planner.reflection), daytime=pp.daytime_s, twilight=pp.twilight_s,
        faiss_threads=int(matcher["index"]["faiss_threads"]), llm=llm,
        embedder=embedder_settings(cfg), embedding_store=Path(cfg.paths.cache) / "embeddings",
        diversity=DiversityConfig(**{k: v for k, v in matcher["diversity"].items()
                                     if k != "sample"}),
        compatible=compatibility(matcher["compatible"]),
        sample=_sample_spec(matcher["diversity"].get("sample") or {}))
    fp = {"lengths": lengths, "day_end": sim["day_end"],
          **({"days": sim["days"]} if sim["days"] > 1 else {}),
          "start_resolution_s": sim["start_resolution_s"], "segment_end": sim["segment_end"],
          **({"latest_start": sim["latest_start"]} if sim.get("latest_start") else {}),
          "matcher": _matcher_identity(matcher),
          "index_kind": matcher["index"]["kind"],
          "planner": {"min_gap_s": int(cfg.planner.min_gap_s),
                      "reflection": bool(cfg.planner.reflection),
                      "daytime": list(cfg.planner.daytime),
                      "twilight": list(cfg.planner.twilight)},
          "llm": ({**llm_fingerprint(cfg, [llm.prompts.reflection]),
                   "max_reflection_retries": llm.max_retries,
                   "embedder": embedder_settings(cfg)} if llm else None)}
    return StageSpec(stage, fp)


def _sample_spec(sample: dict) -> SampleSpec | None:
    """``matcher.diversity.sample`` as a spec; None when it is off (``n: null``)."""
    if sample.get("n") is None:
        return None
    return SampleSpec(int(sample["n"]), int(sample["clusters"]), float(sample["alpha"]),
                      tuple(sample["by"]))


def _matcher_identity(matcher: dict) -> dict:
    """The matcher's part of the stage's identity: its settings but the embedder and index
    (identified apart), a ladder step's ``scenarios`` left out at its default so the stages
    cached before the knob existed stay valid."""
    out = {k: v for k, v in matcher.items() if k not in ("embedder", "index")}
    diversity = matcher.get("diversity", {})
    if "diversity" in out and _sample_spec(diversity.get("sample") or {}) is None:
        # sampling off: identified as before the knob existed
        out["diversity"] = {k: v for k, v in diversity.items() if k != "sample"}
    if compatibility(matcher["compatible"]) == AUTHORS:
        del out["compatible"]  # the authors' tables: identified as before the knob existed
    out["ladder"] = [{k: v for k, v in step.items() if (k, v) != ("scenarios", "chunk")}
                     for step in matcher["ladder"]]
    return out


__all__ = ["SimulateStage", "build_simulate_stage"]
