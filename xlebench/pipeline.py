"""From a composed config to stage specs, a run, exported files and a manifest.

This is the only place besides the CLI that reads the DictConfig: it turns each config
section into keyword arguments for plain stage classes, and picks the slice of config that
goes into each stage's fingerprint.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.config.schema import PIPELINE
from xlebench.errors import ConfigError, NotImplementedStageError, UserError, storage_error
from xlebench.manifest import build_manifest, compose_choices, content_config
from xlebench.publish import (
    MANIFEST,
    Publication,
    check_not_stale,
    discard,
    open_publication,
    publish,
    release_claims,
)
from xlebench.report.results import derive
from xlebench.runner.atomic import barrier, deferred_durability, write_json
from xlebench.runner.cores import using
from xlebench.runner.crash import crash_point
from xlebench.runner.runner import Runner, RunnerOptions, RunSummary, StageSpec

log = logging.getLogger(__name__)

#: Stages named in the pipeline that this version does not provide yet (none).
PLANNED: dict[str, str] = {}


def _plain(node: Any) -> Any:
    return OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else node


#: Stage name -> its class in ``xlebench.stages.<name>``; each module also defines
#: ``build_<name>_stage(cfg) -> StageSpec``. The class's `upstream` says which stages it reads.
STAGE_CLASSES = {
    "library": "LibraryStage",
    "persona": "PersonaStage",
    "plan": "PlanStage",
    "simulate": "SimulateStage",
    "render": "RenderStage",
    "annotate": "AnnotateStage",
    "respond": "RespondStage",
    "evaluate": "EvaluateStage",
    "export": "ExportStage",
    "report": "ReportStage",
}


def _module(name: str):
    # Imported on demand: `xlebench --help` and cache hits never load torch or faiss.
    return importlib.import_module(f"xlebench.stages.{name}")


def _build(name: str, cfg: DictConfig) -> StageSpec:
    return getattr(_module(name), f"build_{name}_stage")(cfg)


BUILDERS: dict[str, Callable[[DictConfig], StageSpec]] = {
    name: partial(_build, name) for name in STAGE_CLASSES
}


def _upstream(name: str) -> tuple[str, ...]:
    return tuple(getattr(_module(name), STAGE_CLASSES[name]).upstream)


def resolve_stages(requested: list[str]) -> list[str]:
    """Validate requested stage names and add the stages they read from, in pipeline order."""
    unknown = [s for s in requested if s not in PIPELINE]
    if unknown:
        raise ConfigError(f"stages={unknown}: unknown stage; choose from {list(PIPELINE)}")
    missing = [s for s in requested if s not in BUILDERS]
    if missing:
        details = "; ".join(f"{s}: {PLANNED.get(s, 'planned')}" for s in missing)
        raise NotImplementedStageError(
            f"stage(s) {missing} are not implemented in this version of xlebench yet "
            f"({details}). Implemented stages: {list(BUILDERS)}. Run e.g. "
            f"stages=[{','.join(BUILDERS)}]"
        )
    wanted: set[str] = set()
    todo = list(requested)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(_upstream(name))
    return [s for s in PIPELINE if s in wanted]


@dataclass
class PipelineResult:
    summary: RunSummary
    benchmark_dir: Path | None
    counts: dict[str, Any] = field(default_factory=dict)


#: Stages that evaluate or present a published benchmark; a run of only these never
#: replaces it.
EVALUATION_STAGES = ("respond", "evaluate", "report")
#: Stages that write views of a published benchmark (and its results) without changing it.
VIEW_STAGES = (*EVALUATION_STAGES, "export")


def run_pipeline(cfg: DictConfig, bench_subdir: str | None = None) -> PipelineResult:
    """Run the configured stages and publish the benchmark folder if every unit succeeded.

    Before any work: the published benchmark of the same name must come from the same
    configuration (see `xlebench.publish`). After the work: a failure that is the user's
    input raises a `UserError` (one line, exit 2); other failures leave the published
    benchmark as it was. Whatever the outcome, the results names this run claimed are freed.
    """
    try:
        with using(int(cfg.get("cores", 0))):
            return _run_pipeline(cfg, bench_subdir)
    except Exception as exc:  # a full or read-only folder names the setting that holds it
        if (err := storage_error(exc, storage_roots(cfg))) is None:
            raise
        raise err from None
    finally:
        release_claims(Path(cfg.paths.benchmarks) / str(cfg.name))


def storage_roots(cfg: DictConfig) -> dict[str, str]:
    """The settings that name folders xlebench writes, and their folders: a write that
    fails names the deepest one holding the file."""
    return {key: str(cfg.paths[key.split(".")[1]])
            for key in ("paths.outputs", "paths.cache", "paths.benchmarks")}


def _run_pipeline(cfg: DictConfig, bench_subdir: str | None) -> PipelineResult:
    final = Path(cfg.paths.benchmarks) / str(cfg.name)
    if bench_subdir:
        final = final / bench_subdir
    names = resolve_stages(list(cfg.stages))
    added = [n for n in names if n not in cfg.stages]
    if added:
        log.info("also running upstream stages %s (read from the cache where cached, "
                 "computed otherwise)", added)
    specs = [BUILDERS[name](cfg) for name in names]
    force = frozenset(cfg.force)
    if force - set(PIPELINE):
        raise ConfigError(f"force={sorted(force)}: unknown stage; choose from {list(PIPELINE)}")
    runner = Runner(
        RunnerOptions(
            cache_dir=Path(cfg.paths.cache),
            seed=int(cfg.seed),
            workers=int(cfg.workers),
            fail_fast=bool(cfg.fail_fast),
            retries=int(cfg.retries),
            force=force,
            progress=bool(cfg.progress),
            shard=(int(cfg.shard.index), int(cfg.shard.count)),
            shard_stages=frozenset(cfg.shard.stages),
            shard_wait_s=float(cfg.shard.wait_s),
        )
    )
    config = _plain(cfg)
    planned = {name: fp for name, (fp, _) in runner.fingerprints(specs).items()}
    evaluating = set(cfg.stages) <= set(VIEW_STAGES)
    if evaluating and cfg.overwrite:
        raise ConfigError(f"overwrite=true with stages={list(cfg.stages)}: a run that only "
                          "exports or evaluates never replaces a published benchmark (it would "
                          "publish one holding only its outputs); drop overwrite=true: each "
                          "export and each system's results are kept beside the others'")
    pub = open_publication(final, content_config(config), overwrite=bool(cfg.overwrite),
                           evaluating=evaluating)
    try:
        rerun = [p for spec in specs for p in spec.stage.owned_paths()]
        check_not_stale(pub, planned, rerun)
        return _run_and_publish(runner, specs, config, pub)
    finally:
        discard(pub)


def _run_and_publish(runner: Runner, specs: list[StageSpec], config: dict,
                     pub: Publication) -> PipelineResult:
    counts: dict[str, Any] = {}
    exporters = {spec.stage.name: spec.stage for spec in specs}

    def export(result) -> None:
        stage = exporters[result.name]
        if unchanged(result, stage, pub):
            return  # the staging folder already holds these files (hard links); counts carry
        stage.remember(pub.staging)
        pub.clear(stage.owned_paths())
        crash_point(result.name, "export")
        with deferred_durability():  # nothing is visible before the barrier below
            counts[result.name] = stage.export(result, pub.staging)

    summary = runner.run(specs, on_stage_done=export)
    if summary.failed:
        _raise_if_user_errors(summary)
        return PipelineResult(summary, None, counts)
    if summary.waiting:  # a shard job: its units are cached, the merge run publishes
        return PipelineResult(summary, None, counts)
    fps = {c.stage: c.fingerprint for c in summary.counters}
    upstream = {c.stage: summary.fingerprint_inputs[c.stage]["upstream"]
                for c in summary.counters}
    evaluations = _evaluations(summary, fps, upstream, config)
    staged_from = pub.previous

    def finalize(staging: Path, previous: dict | None) -> None:
        if previous is not staged_from:  # rebased onto another run's publication
            check_not_stale(pub, fps, pub.written)
        derive(staging)  # the leaderboard and results page, from every system's results
        manifest = build_manifest(config, fps, counts, upstream=upstream,
                                  evaluations=evaluations, previous=previous,
                                  choices=None if config.get("benchmark") else compose_choices())
        write_json(staging / MANIFEST, manifest, durable=False)
        barrier(staging)  # every exported file is on disk before the swap publishes them

    publish(pub, finalize, before_swap=lambda: crash_point("*", "publish"))
    return PipelineResult(summary, pub.final, counts)


def _evaluations(summary: RunSummary, fps: dict[str, str], upstream: dict[str, dict],
                 config: dict) -> dict[str, dict]:
    """The manifest's record of each (system, model) this run evaluated."""
    if "evaluate" not in fps:
        return {}
    eval_cfg = content_config(config).get("eval", {})
    # respond's fingerprint names every system of this run; one system's results depend
    # only on its own replies, which its evaluation fingerprint already covers.
    inputs = {st: fp for st, fp in upstream["evaluate"].items() if st != "respond"}
    return {name: {"fingerprint": fps["evaluate"], "upstream": inputs, "eval": eval_cfg,
                   "model": table.get("model")}
            for name, table in summary.results["evaluate"].records.items()}


#: Stages whose exported files depend on more than their own fingerprint: evaluation results
#: are owned per system, and the report's results page reads every system's results.
ALWAYS_EXPORT = ("evaluate", "report")


def unchanged(result, stage, pub: Publication) -> bool:
    """A stage computed exactly what is published (same fingerprint, so the same export: some
    outputs, such as LLM usage files, exist only for some configurations) and its files are
    there: writing them again would give the same bytes, so a cache-hit rerun skips it."""
    if result.name in ALWAYS_EXPORT or pub.stage_fingerprint(result.name) != result.fingerprint:
        return False
    return any(any(pub.staging.glob(rel)) for rel in stage.owned_paths())


def _raise_if_user_errors(summary: RunSummary) -> None:
    """Failures that are all the user's input or configuration become one clear line."""
    failed = [(c, unit) for c in summary.counters for unit in c.errors]
    user = [(c, unit) for c in summary.counters for unit in c.user_errors]
    if not failed or len(user) != len(failed):
        return
    c, unit = user[0]
    more = len(user) - 1
    extra = (f" ({more} more unit(s) of stage {c.stage} failed too; see "
             f"{summary.results[c.stage].dir / 'failed'})") if more else ""
    raise UserError(f"{c.errors[unit]}{extra}")
