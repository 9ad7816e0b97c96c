"""Annotate stage: one unit per (life log, recipe) -> task items with answers on the clock.

Recipes come from the open registry (`xlebench.tasks.recipe.registry`): built-in modules, entry
points, or your own ``_target_``. Each unit's id carries a key of its recipe's declaration,
parameters and prompt files, and the stage's cache folder is named without them, so adding a
recipe or changing one recipe's parameters computes only that recipe's units and reuses every
other one; the stage's fingerprint, which downstream stages see, covers all of them.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.config.schema import CertificateConfig
from xlebench.errors import ConfigError
from xlebench.eval.panel.public import records_script, script_of
from xlebench.eval.provenance import keep_owned, owners, relaxation, with_source
from xlebench.library.annotations import AnnotationIndex
from xlebench.library.view import LibraryView
from xlebench.llm.client import LLMClient
from xlebench.llm.setup import llm_client, llm_fingerprint, prompt_files
from xlebench.runner.atomic import write_json, write_jsonl
from xlebench.runner.fingerprint import file_digest
from xlebench.runner.progress import timed
from xlebench.runner.rng import unit_random
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.split import split_stats
from xlebench.stages.readers import (
    RecordFrames,
    annotations_root,
    configured_recipes,
    embedder_settings,
    record_frames,
    rendered_logs,
    stage_annotations,
)
from xlebench.tasks.choices.mcq import clip_narrations
from xlebench.tasks.language.aggregate import LLMAggregator, offline_aggregate
from xlebench.tasks.recipe.configured import (
    derived_key,
    recipe_filters,
    recipe_key,
    refuse_model_use,
)
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.outcomes import (
    PRINTED,
    REPEATED,
    SHOWN,
    log_outcomes,
    metric_settings,
    rater_stats,
    settled,
    tally,
    validity_checks,
)
from xlebench.tasks.recipe.registry import Recipe, load_recipe
from xlebench.tasks.screening.certificate import certificate, certificate_stats
from xlebench.tasks.screening.filters import FilterContext, apply_filters
from xlebench.tasks.screening.leaks import (
    PRINTED_PAIR,
    SHOWN_PAIR,
    audit,
    fingerprint,
    other_queries,
    settle,
)
from xlebench.tasks.screening.set_filters import set_filters, split_records, without
from xlebench.tasks.screening.shape import shape_stats

log = logging.getLogger(__name__)

#: Guards the one computation of a recipe's source owners across threads (network-bound
#: recipes run their units in threads); module-level so that the stage stays picklable.
_OWNERS_LOCK = threading.RLock()  # re-entered: a derived recipe's owners need its sources


class AnnotateStage(BaseStage):
    name: ClassVar[str] = "annotate"
    #: 5: each unit keeps its recipe oracle's replies. 6: stats/tasks.json says each recipe's
    #: words and hops. 7: items name their source, each source asked once across the benchmark.
    #: 8: printed and shown pairs settled per source video across logs, each meeting subtask
    #: keeping a fair share. 10: VidSitu senses, sense roles, relation votes. 11: the learned
    #: filter reads options beside siblings and clock; Neptune balances questions with decoys.
    version: ClassVar[str] = "15"  # 15: summary choices drawn so the plan does not tell the reference; 14: the validity check's panel reads the script (the plan); 13: balanced multiple-choice filters
    upstream: ClassVar[tuple[str, ...]] = ("simulate", "library")
    outputs: ClassVar[tuple[str, ...]] = (
        "annotations", "stats/tasks.json", "stats/llm_usage_annotate.json")

    def __init__(self, *, recipes: dict[str, tuple[Recipe, Any]], keys: dict[str, str],
                 annotations_root: Path | None, filters: dict[str, list] | None = None,
                 certificate: CertificateConfig | None = None, min_duration_s: float = 0.0,
                 aggregator: LLMAggregator | None = None, llm: LLMClient | None = None,
                 embedder: dict[str, Any] | None = None, embedding_store: Path | None = None,
                 seed: int = 0, repeat_sources: bool = False,
                 printed_answers: str = "drop", corpus: bool = False,
                 heldout: float = 0.0, rendered: int | None = 0,
                 record_frames: RecordFrames | None = None) -> None:
        if not recipes:
            raise ConfigError("tasks is empty: choose recipes, e.g. tasks=[object_retrieval]")
        self.recipes, self.keys = recipes, keys
        #: Frames of the records (the talking_head and static_video filters), or None.
        self.record_frames = record_frames
        self.filters = filters or {}
        self.certificate = certificate or CertificateConfig()
        self.annotations_root = annotations_root
        self.min_duration_s = min_duration_s
        self.aggregator, self.llm = aggregator, llm
        self.embedder, self.embedding_store = embedder, embedding_store
        self.repeat_sources, self.printed_answers = repeat_sources, printed_answers
        self.heldout = heldout
        #: How many life logs the render stage renders (the first, by id; None: all): their
        #: items keep a source asked in several logs, and a conflict's tie, so that a model
        #: shown videos is asked every subtask.
        self.rendered = rendered
        self._preferred: frozenset[str] = frozenset()
        #: The library carries its own Ego4D-format annotations (the synthetic corpus).
        self.corpus = corpus
        if llm is not None:
            self.waits_on_network(llm.settings.max_concurrency)
        self._videos: dict = {}
        self._ann = AnnotationIndex()
        self._encode = None
        self._logs: dict = {}
        self._seed = self.validity_seed = seed
        self._compiled: dict[tuple[str, str], tuple[list[dict], Counter]] = {}
        #: (life log, recipe) -> every item id the recipe generated there, before its filters
        #: (recipes with a ``raters`` filter: the ids a rater sheet may name).
        self._generated: dict[tuple[str, str], list[str]] = {}
        self._owned: dict[str, dict[str, str]] = {}
        self._pending_recipes: list[str] = []
        self._shared: dict = {}

    def prompt_files(self) -> list[Path]:
        return prompt_files([self.aggregator.prompt]) if self.aggregator else []

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        self._videos = {v.video_uid: v for v in LibraryView(ctx["library"].unit_dir(uid)).videos}
        self._ann = stage_annotations(ctx, self.annotations_root, self.min_duration_s)
        self._logs, self._seed, self._compiled = dict(ctx["simulate"].records), ctx.seed, {}
        self._owned, self._shared, self._generated = {}, {}, {}
        self._preferred = self._rendered_among(self._logs)
        if self.record_frames is not None:  # every missing file named at once, not per item
            self.record_frames.resolver.check(sorted({
                s["video_uid"] for lg in self._logs.values() for s in lg["segments"]}))
        self._build_shared()

    def prepare(self, pending: Sequence[Unit], ctx: StageContext) -> None:
        """The recipes whose units are to run (their shared builds are done in `setup`)."""
        self._pending_recipes = sorted({u.payload["recipe"] for u in pending})

    def _build_shared(self) -> None:
        """Each pending recipe's items over every life log (a unit keeps those whose source it
        owns), built once per process as a logged step of its own, not as the cost of
        whichever unit comes first: a rate over those promised an 8-min compile 23 hours."""
        if self.repeat_sources:
            return
        for name in self._pending_recipes:
            if name in self.recipes:
                with timed(log, f"annotate: {name}'s items over every life log (built once, "
                                "shared by its units)"):
                    self._owners(name)

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(f"{lid}.{name}.{self.keys[name]}", {"lifelog": lid, "recipe": name})
                for lid in sorted(ctx["simulate"].records) for name in self.recipes]

    def encode(self, texts):
        """The sentence encoder, loaded on first use (most recipes never need it)."""
        if self._encode is None:
            from xlebench.library.embed import make_encoder

            self._encode = make_encoder(self.embedder or {"kind": "minilm"},
                                        self.embedding_store)
        return self._encode(texts)

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        log = ctx.upstream["simulate"].records[unit.payload["lifelog"]]
        name = unit.payload["recipe"]
        items, stats = self.compile(log["lifelog_id"], name)
        uids = sorted({s["video_uid"] for s in log["segments"]} & set(self._ann.skips_by_uid))
        return {"subtask": name, "lifelog_id": log["lifelog_id"], "category": log["category"],
                "items": items, "stats": dict(sorted(stats.items())),
                "script": script_of([log])[log["lifelog_id"]],  # public: for the panel
                **({"generated": generated} if (generated := self._generated.get(
                    (log["lifelog_id"], name))) is not None else {}),
                "oracle": self.oracle(log["lifelog_id"], name, items),
                "annotation_skips": {u: dict(sorted(self._ann.skips_by_uid[u].items()))
                                     for u in uids}}

    def _context(self, lifelog_id: str, name: str, recipe: Recipe) -> Context:
        return Context(name, recipe.task, self._logs[lifelog_id], self._videos, self._ann,
                       unit_random(self._seed, self.name, f"{lifelog_id}.{name}"),
                       self.aggregator or offline_aggregate, self.llm, self.encode,
                       self._logs, self.source_items, self.source_params, self._shared)

    def oracle(self, lifelog_id: str, name: str, items: list[dict]) -> dict[str, str]:
        """The recipe's full-information oracle's reply to each item (kept with the unit,
        never published as an answer): the consistency check of ``stats/tasks.json``. An
        item the oracle returns None for has no source it could re-read (an LLM wrote it):
        it is left out of the check, which says on how many items it ran."""
        recipe, params = self.recipes[name]
        if recipe.oracle is None:
            return {}
        rctx = self._context(lifelog_id, name, recipe)
        replies = {it["item_id"]: recipe.oracle(rctx, params, it) for it in items}
        return {k: v for k, v in replies.items() if v is not None}  # None: no source offline

    def compile(self, lifelog_id: str, name: str) -> tuple[list[dict], Counter]:
        """One recipe's items on one log that own their source: an item whose source
        annotation another life log's item of the recipe also asks about is kept in one of
        them only (`xlebench.eval.provenance.owners`), unless ``repeat_sources`` keeps the
        paper's repetition. Deciding needs the recipe's items on every log, built once per
        process (a recipe that asks a model builds them in the first unit that asks)."""
        built, why = self._built_once(lifelog_id, name)
        items, stats = copy.deepcopy(built), Counter(why)
        if self.repeat_sources or name not in self.recipes:
            return items, stats
        items, repeats = keep_owned(items, self._owners(name))
        if repeats:
            stats[REPEATED] += repeats
        return items, stats

    def _owners(self, name: str) -> dict[str, str]:
        with _OWNERS_LOCK:
            if name not in self._owned:
                self._owned[name] = owners((it for lid in sorted(self._logs)
                                            for it in self._built_once(lid, name)[0]),
                                           self._seed, self._preferred)
        return self._owned[name]

    def _built_once(self, lifelog_id: str, name: str) -> tuple[list[dict], Counter]:
        """One recipe's items on one log, with their sources and certificates, after its
        filters (and why candidates were left out), before sources are deduplicated; computed
        once per process (callers copy what they change)."""
        key = (lifelog_id, name)
        if key not in self._compiled:
            if name in self.recipes:
                recipe, params = self.recipes[name]
            else:  # a source recipe that is not compiled itself: its defaults, no filters
                recipe = load_recipe(name)
                params = recipe.params({})
            rctx = self._context(lifelog_id, name, recipe)
            built = recipe.build(rctx, params)
            for item in built.items:
                with_source(item)
                item["provenance"].update(relaxation(item, self._logs[lifelog_id]))
                item["certificate"] = certificate(item, self.certificate)
            fctx = FilterContext(self.llm, rctx.rng, partial(clip_narrations, rctx.ann),
                                 self.record_frames and partial(self.record_frames, self._videos))
            items, dropped = apply_filters(built.items, self.filters.get(name, []), fctx)
            built.stats.update(dropped)
            self._compiled[key] = (items, built.stats)
            if any(spec.get("kind") == "raters" for spec in self.filters.get(name, [])):
                self._generated[key] = sorted(it["item_id"] for it in built.items)
        return self._compiled[key]

    def source_params(self, name: str) -> Any:
        """A derived recipe's source's configured parameters (its defaults if not selected)."""
        return self.recipes[name][1] if name in self.recipes else load_recipe(name).params({})

    def source_items(self, name: str, lifelog_id: str) -> list[dict]:
        """What a derived recipe reads of another on one log: the items that log publishes."""
        return self.compile(lifelog_id, name)[0]

    def finish(self, records: dict[str, dict]) -> dict[str, dict]:
        """Every recipe's items at once: of an item whose query prints another's answer (same
        life log or source video) and that other item, and of an item whose query shows in
        other words what another item about one of its videos answers (in any life log), one
        is dropped and counted (`xlebench.tasks.screening.leaks.settle`: each meeting subtask
        keeps a fair share), unless ``printed_answers=keep`` (the paper's forms; the audit in
        stats/tasks.json still counts printed ones); then the filters over every log's items
        of the recipes that list one (``panel``, ``aflite``:
        `xlebench.tasks.screening.set_filters.set_filters`)."""
        if self.printed_answers != "keep":
            with timed(log, "annotate: settling printed and shown pairs"):
                drop = settle([it for rec in records.values() for it in rec["items"]],
                              {n: r.shows for n, (r, _) in self.recipes.items()},
                              {n: r.answers for n, (r, _) in self.recipes.items()},
                              self.validity_seed, self._preferred_of(records))
            for why, name in ((PRINTED_PAIR, PRINTED), (SHOWN_PAIR, SHOWN)):
                ids = {i for i, w in drop.items() if w == why}
                records = {uid: without(rec, ids, name) for uid, rec in records.items()}
        recipes = {n: r for n, (r, _) in self.recipes.items()}
        records = set_filters(records, recipes, self.filters, metric_settings(),
                              self.validity_seed, records_script(records))
        return split_records(records, self.validity_seed, self.heldout)

    def _preferred_of(self, records: dict[str, dict]) -> frozenset[str]:
        """The rendered life logs, from the records themselves: ``finish`` runs in the main
        process, also where every unit was cached (no `setup`) or computed by worker
        processes, and must settle alike in each case."""
        if self.rendered == 0:
            return frozenset()
        return self._rendered_among({rec["lifelog_id"] for rec in records.values()})

    def _rendered_among(self, lifelog_ids: Iterable[str]) -> frozenset[str]:
        """The life logs the render stage renders: the first ``rendered`` by id (all: None)."""
        ids = sorted(lifelog_ids)
        return frozenset(ids if self.rendered is None else ids[:self.rendered])

    def _validity(self, every: list[dict], result: StageResult) -> dict[str, dict]:
        oracle = {k: v for rec in result.records.values() for k, v in rec.get("oracle", {}).items()}
        with timed(log, "annotate: validity (oracle and blind panel)"):
            return validity_checks(every, oracle, {n: r for n, (r, _) in self.recipes.items()},
                                   self.validity_seed, records_script(result.records))

    def share(self, ctx: StageContext, result: StageResult | None) -> None:
        """A shard job's share of the validity check's panel, for the merge run's export."""
        if result is not None:
            by_sub = tally(result.records)[0]
            self._validity([it for sub in self.recipes for it in by_sub[sub]], result)

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        by_sub, counts, reasons, per_video = tally(result.records)
        for sub in self.recipes:
            write_jsonl(dest / "annotations" / f"{sub}.jsonl",
                        sorted(by_sub[sub], key=lambda it: it["item_id"]))
        every = [it for sub in self.recipes for it in by_sub[sub]]
        checks = self._validity(every, result)
        with timed(log, "annotate: leak audits"):
            leaks, read = audit(every), other_queries(every)
        stats = {"items": {s: dict(sorted(c.items())) for s, c in sorted(counts.items())},
                 "validity": checks,
                 "printed_answers": leaks,
                 "other_queries": read,
                 "settled": settled(reasons, by_sub, self.recipes),
                 "period_fingerprint": fingerprint(every),
                 **({"raters": raters} if (raters := rater_stats(self.filters, result.records))
                    else {}),
                 **({"splits": split_stats(every)} if self.heldout > 0 else {}),
                 "skipped": {s: dict(sorted(c.items())) for s, c in sorted(reasons.items())},
                 "certificates": {s: certificate_stats(v, self.certificate.buckets_s)
                                  for s, v in sorted(by_sub.items()) if v},
                 "shape": {s: shape_stats(v) for s, v in sorted(by_sub.items()) if v},
                 "annotation_skips": dict(sorted(sum(
                     (Counter(v) for v in per_video.values()), Counter()).items()))}
        write_json(dest / "stats" / "tasks.json", stats)
        log_outcomes(stats, by_sub, {n: r for n, (r, _) in self.recipes.items()},
                     self.annotations_root, self.corpus)
        return {"items": {s: len(v) for s, v in sorted(by_sub.items())},
                "skipped": stats["annotation_skips"],
                "validity": {s: v["verdict"] for s, v in checks.items()}}


def build_annotate_stage(cfg: DictConfig) -> StageSpec:

    tasks = OmegaConf.to_container(cfg.tasks, resolve=True) or {}
    recipes = configured_recipes(cfg)
    keys = {n: recipe_key(r, p, tasks[n] or {}) for n, (r, p) in recipes.items()}
    keys = {n: derived_key(keys, n) if recipes[n][0].derived else k for n, k in keys.items()}
    llm = None if cfg.llm.backend == "offline" else llm_client(cfg, "recipes")
    if llm is None:
        refuse_model_use(recipes, tasks)
    aggregator = None
    if cfg.aggregator == "llm":
        aggregator = LLMAggregator(llm_client(cfg, "aggregator=llm"),
                                   max_retries=int(cfg.llm.max_retries))
    cert = OmegaConf.to_object(cfg.certificate)
    stage = AnnotateStage(recipes=recipes, keys=keys, annotations_root=annotations_root(cfg),
                          corpus=cfg.library.kind == "synthetic",
                          min_duration_s=float(cfg.annotate.min_duration_s),
                          filters={n: recipe_filters(tasks[n] or {}, llm is not None)
                                   for n in recipes}, certificate=cert,
                          aggregator=aggregator, llm=llm, embedder=embedder_settings(cfg),
                          embedding_store=Path(cfg.paths.cache) / "embeddings",
                          seed=int(cfg.seed),
                          repeat_sources=bool(cfg.annotate.repeat_sources),
                          printed_answers=str(cfg.annotate.printed_answers),
                          heldout=float(cfg.annotate.heldout), rendered=rendered_logs(cfg),
                          record_frames=record_frames(cfg, tasks))
    prompts = sorted({p for r, _ in recipes.values() for p in r.prompts})
    # What every unit may depend on: a model answers LLM-generating recipes (and aggregation).
    shared = {"aggregator": str(cfg.aggregator), "embedder": embedder_settings(cfg),
              "min_duration_s": float(cfg.annotate.min_duration_s),
              "repeat_sources": bool(cfg.annotate.repeat_sources),
              "rendered": rendered_logs(cfg),
              "annotations_root": str(annotations_root(cfg) or ""),
              "certificate": asdict(cert),
              "llm": llm_fingerprint(cfg, prompts) if llm is not None else None}
    return StageSpec(stage, {**shared, "recipes": keys, "tasks": tasks,
                             "printed_answers": str(cfg.annotate.printed_answers),
                             **({"heldout": float(cfg.annotate.heldout)}
                                if cfg.annotate.heldout else {}),
                             "prompts": {p: file_digest(f) for p, f in
                                         zip(prompts, prompt_files(prompts), strict=True)}},
                     cache_config=shared)
