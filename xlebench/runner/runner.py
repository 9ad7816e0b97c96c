"""The runner: turns a list of stages into cached, resumable, parallel work.

For each stage it computes the fingerprint, finds which units already carry a completion
marker, runs the rest (serially, in a process pool, or in threads for network-bound stages),
records failures without stopping the others (unless ``fail_fast``), and hands the records of
every completed unit downstream.
"""

from __future__ import annotations

import logging
import multiprocessing
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from xlebench.runner.atomic import barrier, read_json
from xlebench.runner.cores import cores
from xlebench.runner.execute import (
    Outcome,
    execute_unit,
    init_worker,
    marker_path,
    run_in_worker,
)
from xlebench.runner.fingerprint import stage_fingerprint
from xlebench.runner.forked import chunk_size, run_forked
from xlebench.runner.progress import RateColumn, as_completed, reporter
from xlebench.runner.progress_log import ProgressLog
from xlebench.runner.stage import Stage, StageContext, StageResult, Unit
from xlebench.runner.stage_dir import await_peers, cached_records, checked_units, prepare_stage_dir
from xlebench.runner.tasks import TaskStore, enter, keeping
from xlebench.runner.tasks import current as current_store

log = logging.getLogger(__name__)


@dataclass
class StageCounters:
    """Per-stage counts printed at the end of a run and written to the run summary."""

    stage: str
    fingerprint: str
    total: int = 0
    done: int = 0
    cached: int = 0
    failed: int = 0
    retried: int = 0
    not_run: int = 0
    #: Units left to the other shards of a sharded run.
    other_shards: int = 0
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    #: Units whose failure is the user's input or configuration (reported with exit 2).
    user_errors: list[str] = field(default_factory=list)
    #: The stage's live counters at the end (frames decoded, captions, model calls...).
    activity: dict[str, int] = field(default_factory=dict)


@dataclass
class RunSummary:
    counters: list[StageCounters] = field(default_factory=list)
    results: dict[str, StageResult] = field(default_factory=dict)
    fingerprint_inputs: dict[str, dict] = field(default_factory=dict)
    #: Stages that were not run because an upstream stage had failed units.
    skipped: list[str] = field(default_factory=list)
    #: (stage, units left to other shards) when this job computed only its share.
    waiting: tuple[str, int] | None = None

    @property
    def failed(self) -> int:
        return sum(c.failed + c.not_run for c in self.counters)

    def counter(self, stage: str) -> StageCounters:
        return next(c for c in self.counters if c.stage == stage)


@dataclass(frozen=True)
class StageSpec:
    """A stage instance plus the configuration slice its outputs depend on.

    ``cache_config``: for a stage whose unit ids carry their own configuration (annotate keys
    each unit by its recipe's parameters), the smaller slice that names its cache folder, so
    units stay cached across configurations that differ only in other units. The stage's
    fingerprint — what downstream stages see — still covers all of ``config``.
    """

    stage: Stage
    config: Mapping[str, Any]
    cache_config: Mapping[str, Any] | None = None


#: ``workers`` for "as many as the run's cores, where a pool pays for itself" (`worth_a_pool`).
AUTO = 0
#: Seconds of units run in process before their pace is trusted for a projection. About what
#: the forked pool costs to start (`POOL_START_S`): a pace misjudged from too short a probe
#: costs at most that start, and every second of probing costs a stage the other cores'
#: second. Five seconds suited the spawned pool, which cost each process the package's import
#: and the stage's set-up (at 10x, annotate's first second of units ran at four times the
#: stage's pace, and that pool took 82 s where 43 s in process sufficed); forked, a probe of
#: one second gave the 10x simulate 18.0 and 19.1 s against 20.6 and 24.5 s.
PROBE_S = 1.0
#: What the forked pool ``workers=0`` hands a stage's rest to costs to start, in seconds
#: (`forked`: its processes start with the stage set up; a spawned pool's each imported the
#: package and set the stage up again, 6-15 s at ten times the paper grid on two cores), and
#: what a unit costs it beyond its own work (units cross in runs of a tenth of a second; one
#: by one through a spawned pool, 0.9 ms a unit, more than an annotate unit's own work).
POOL_START_S = 1.0
UNIT_COST_S = 0.0001


def worth_a_pool(elapsed: float, done: int, left: int, workers: int) -> bool:
    """Whether the ``left`` units, at the pace of the ``done`` ones (``elapsed`` seconds),
    would finish sooner over ``workers`` forked processes, counting what those cost to start
    and what each unit costs to hand over (units quicker than that never spread)."""
    if elapsed < PROBE_S or left < workers:
        return False
    pace = elapsed / done
    return left * (pace * (1 - 1 / workers) - UNIT_COST_S) > POOL_START_S


@dataclass(frozen=True)
class RunnerOptions:
    cache_dir: Path
    seed: int
    #: processes (threads where the stage is network-bound) running a stage's units;
    #: `AUTO` (0): the run's cores, once a pool pays for itself (`worth_a_pool`)
    workers: int = AUTO
    fail_fast: bool = False
    retries: int = 0
    force: frozenset[str] = frozenset()
    progress: bool = True
    #: (index, count): compute only this job's share of the units of ``shard_stages``.
    shard: tuple[int, int] = (0, 1)
    shard_stages: frozenset[str] = frozenset()
    #: A shard job that finished its share waits for the other shards' units of the stage
    #: while they keep arriving (at most this many seconds without a new one), so that it
    #: goes on to its share of the next sharded stage; 0 = stop at the first stage it cannot
    #: finish alone.
    shard_wait_s: float = 0.0


class Runner:
    """Runs stage specs in order; see the module docstring for the contract."""

    def __init__(self, options: RunnerOptions, console: Console | None = None) -> None:
        self.options = options
        self.console = console or Console(stderr=True)

    def run(
        self,
        specs: Sequence[StageSpec],
        on_stage_done: Callable[[StageResult], None] | None = None,
    ) -> RunSummary:
        """Run each stage in order. A stage with failed units is neither exported nor read
        downstream: the stages after it are listed in ``summary.skipped``, because their
        inputs would be incomplete."""
        summary = RunSummary()
        with self._progress() as progress, keeping(None):
            for k, spec in enumerate(specs):
                result, counters = self._run_stage(spec, summary, progress)
                summary.counters.append(counters)
                summary.results[spec.stage.name] = result
                if counters.failed or counters.not_run or counters.other_shards:
                    summary.skipped = [s.stage.name for s in specs[k + 1:]]
                    if counters.other_shards and not (counters.failed or counters.not_run):
                        summary.waiting = (spec.stage.name, counters.other_shards)
                    break
                if self._last_sharded(specs, k):
                    # a shard job's work ends with the last sharded stage: the merge run
                    # scores and publishes (every job doing so would repeat it)
                    summary.skipped = [s.stage.name for s in specs[k + 1:]]
                    summary.waiting = (spec.stage.name, 0)
                    break
                if on_stage_done is not None:
                    on_stage_done(result)
        return summary

    def _last_sharded(self, specs: Sequence[StageSpec], k: int) -> bool:
        index, count = self.options.shard
        sharded = [j for j, s in enumerate(specs) if s.stage.name in self.options.shard_stages]
        return count > 1 and bool(sharded) and k == sharded[-1]

    def fingerprints(self, specs: Sequence[StageSpec]) -> dict[str, tuple[str, dict]]:
        """Each stage's (fingerprint, hashed inputs), computed without running anything."""
        out: dict[str, tuple[str, dict]] = {}
        for spec in specs:
            out[spec.stage.name] = self._fingerprint(
                spec, {name: out[name][0] for name in spec.stage.upstream})
        return out

    def _fingerprint(self, spec: StageSpec, upstream: Mapping[str, str]) -> tuple[str, dict]:
        stage = spec.stage
        return stage_fingerprint(
            name=stage.name,
            version=stage.version,
            config=spec.config,
            prompt_files=stage.prompt_files(),
            upstream=upstream,
            seed=self.options.seed if stage.uses_seed else None,
        )

    # -- one stage -------------------------------------------------------------------------

    def _run_stage(
        self, spec: StageSpec, summary: RunSummary, progress: Progress
    ) -> tuple[StageResult, StageCounters]:
        stage = spec.stage
        upstream = {name: summary.results[name] for name in stage.upstream}
        upstream_fps = {n: r.fingerprint for n, r in upstream.items()}
        fp, inputs = self._fingerprint(spec, upstream_fps)
        summary.fingerprint_inputs[stage.name] = inputs
        folder, folder_inputs = (fp, inputs) if spec.cache_config is None else \
            self._fingerprint(StageSpec(stage, spec.cache_config), upstream_fps)
        stage_dir = self.options.cache_dir / stage.name / folder
        if stage.name in self.options.force:
            shutil.rmtree(stage_dir, ignore_errors=True)
        prepare_stage_dir(stage_dir, folder_inputs)
        sharded = self.options.shard[1] > 1 and stage.name in self.options.shard_stages
        # the stage's benchmark-wide tasks, through its export (`xlebench.runner.tasks`)
        store = TaskStore(stage_dir / "tasks", self.options.shard if sharded else (0, 1),
                          self.options.shard_wait_s)
        store.sweep()  # what a killed writer left half-written
        enter(store)
        counters = StageCounters(stage.name, fp)
        ctx = StageContext(seed=self.options.seed, upstream=upstream,
                           report=reporter(progress, counters.activity))
        units = checked_units(stage, ctx)
        counters.total = len(units)
        records, pending = cached_records(stage_dir, units)
        counters.cached = len(records)
        index, count = self.options.shard
        others: list[Unit] = []
        if count > 1 and stage.name in self.options.shard_stages:
            ids = {u.id for u in pending}
            # every k-th unit of the full list: even shares (pending units alone would
            # differ between jobs that started at different times)
            share = [u for k, u in enumerate(units) if k % count == index]
            mine = [u for u in share if u.id in ids]
            taken = {u.id for u in mine}
            others = [u for u in pending if u.id not in taken]
            counters.other_shards = len(others)
            pending = mine
        task = progress.add_task(stage.name, total=len(units), completed=counters.cached)
        start = time.perf_counter()
        if sharded:
            stage.share(ctx, None)  # this job's share of the tasks that read only upstream
        if pending:
            stage.prepare(pending, ctx)
            ticker = ProgressLog(stage.name, len(units), counters.cached,
                                 activity=counters.activity, enabled=not self._bars(),
                                 workers=self.options.workers or cores())

            def advance() -> None:
                progress.advance(task)
                ticker.advance()
            self._execute(stage, ctx, stage_dir, pending, counters, advance)
            barrier(stage_dir)  # the one durability point of the stage's units
        if others and self.options.shard_wait_s > 0 and not counters.failed:
            counters.other_shards = await_peers(stage_dir, others, self.options.shard_wait_s)
        counters.seconds = time.perf_counter() - start
        for u in units:  # this run's units, and those other jobs finished meanwhile
            if u.id not in records and marker_path(stage_dir, u.id).exists():
                records[u.id] = read_json(stage_dir / "units" / u.id / "record.json")
        records = {u.id: records[u.id] for u in units if u.id in records}
        records = stage.finish(records)
        result = StageResult(stage.name, fp, stage_dir, records)
        if sharded and not (counters.other_shards or counters.failed):
            stage.share(ctx, result)  # this job's share of the tasks over its records
        log.info(
            "stage %s [%s]: %d done, %d cached, %d failed, %d retried (%.1fs)",
            stage.name, fp, counters.done, counters.cached, counters.failed,
            counters.retried, counters.seconds,
        )
        return result, counters

    def _execute(
        self,
        stage: Stage,
        ctx: StageContext,
        stage_dir: Path,
        pending: list[Unit],
        counters: StageCounters,
        advance: Callable[[], None],
    ) -> None:
        opts = self.options
        auto = opts.workers == AUTO
        wanted = cores() if auto else opts.workers
        if stage.io_bound:
            # Network-bound units mostly wait: run as many threads as the stage can keep busy
            # (as many as its client lets run at once, whatever the cores, where chosen).
            wanted = int(stage.threads) if auto else max(wanted, int(stage.threads))
        workers = 1 if stage.serial else max(1, min(wanted, len(pending)))
        if workers == 1 or (auto and not stage.io_bound):
            rest, pace = self._in_process(stage, ctx, stage_dir, pending, counters, advance,
                                          workers if stage.forks and not stage.spreads
                                          else 1)
            if rest:  # the stage is set up here: forked children start with it (`forked`)
                counters.not_run = run_forked(
                    stage, ctx, stage_dir, opts.retries, rest, workers,
                    chunk_size(len(rest), pace, workers),
                    lambda outcome: self._account(outcome, counters, advance))
            return
        with self._pool(stage, ctx, stage_dir, workers) as pool:
            futures = [self._submit(pool, stage, u, ctx, stage_dir) for u in pending]
            for fut in as_completed(futures):
                if self._account(fut.result(), counters, advance):
                    for other in futures:
                        other.cancel()
                    break
            counters.not_run = sum(1 for f in futures if f.cancelled())

    def _in_process(self, stage: Stage, ctx: StageContext, stage_dir: Path, pending: list[Unit],
                    counters: StageCounters, advance: Callable[[], None], workers: int
                    ) -> tuple[list[Unit], float]:
        """Run ``pending`` here, one after another; with ``workers`` > 1 (``workers=0``), stop
        as soon as forking that many processes for the rest is projected to save more than
        it costs (`worth_a_pool`), at the pace of the units after the first (a stage's first
        unit may build what the rest read: report's took the projection to 864 s where the
        stage takes 4). Returns the units left and their projected seconds a unit."""
        stage.setup(ctx)
        first = 0.0  # when the first unit finished
        for k, unit in enumerate(pending):
            outcome = execute_unit(stage, unit, ctx, stage_dir, self.options.retries)
            if self._account(outcome, counters, advance):
                counters.not_run = len(pending) - counters.done - counters.failed
                return [], 0.0
            first, left = first or time.perf_counter(), len(pending) - k - 1
            elapsed = time.perf_counter() - first
            if workers > 1 and k and worth_a_pool(elapsed, k, left, workers):
                log.info("%s: %d units left, about %.0f s on one core: the rest over %d "
                         "workers (workers=0 chooses; workers=1 keeps them in this process)",
                         stage.name, left, elapsed / k * left, workers)
                return pending[k + 1:], elapsed / k
        return [], 0.0

    def _account(self, outcome: Outcome, counters: StageCounters, advance: Callable) -> bool:
        """Count one outcome; True when the run must stop (fail_fast)."""
        counters.retried += outcome.attempts - 1
        advance()
        if outcome.ok:
            counters.done += 1
            return False
        counters.failed += 1
        counters.errors[outcome.unit_id] = outcome.error
        if outcome.user_error:
            counters.user_errors.append(outcome.unit_id)
            log.debug("unit %s: %s", outcome.unit_id, outcome.error)  # reported once, by the CLI
        else:
            log.error("unit %s failed: %s", outcome.unit_id, outcome.error)
        return self.options.fail_fast

    def _pool(self, stage: Stage, ctx: StageContext, stage_dir: Path, workers: int) -> Executor:
        if stage.io_bound:
            stage.setup(ctx)
            return ThreadPoolExecutor(max_workers=workers, thread_name_prefix=stage.name)
        # spawn, not fork: forking a process that holds OpenMP (faiss, torch) threads can hang.
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=init_worker,
            # Live counters stay in this process: workers get the context without them.
            initargs=(stage, replace(ctx, report=None), stage_dir, self.options.retries,
                      max(1, cores() // workers), current_store()),
        )

    def _submit(
        self, pool: Executor, stage: Stage, unit: Unit, ctx: StageContext, stage_dir: Path
    ) -> Future:
        if isinstance(pool, ThreadPoolExecutor):
            return pool.submit(execute_unit, stage, unit, ctx, stage_dir, self.options.retries)
        return pool.submit(run_in_worker, unit)

    def _bars(self) -> bool:
        """Progress bars are drawn (a terminal, progress=true): no progress log lines."""
        return self.options.progress and self.console.is_terminal

    def _progress(self) -> Progress:
        return Progress(
            TextColumn("[bold]{task.description:<10}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeElapsedColumn(),
            console=self.console,
            disable=not self.options.progress,
        )
