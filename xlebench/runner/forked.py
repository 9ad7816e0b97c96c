"""The rest of a stage's units over forked processes, once ``workers=0`` finds it pays.

With ``workers=0`` (the default) the runner sets a stage up and runs its first units in its own
process, timing them (`xlebench.runner.runner.worth_a_pool`). A spawned pool then cost each
of its processes an import of the package (torch among it, about 10 s on two cores) and the
stage's set-up again, and every unit a pickled round trip (0.9 ms: more than an annotate
unit's own work at ten times the paper grid), so plan, simulate and annotate stayed on one
core there: about 100 s of the ten-times command's first run with the second core idle.

Forked from the process that has already set the stage up, the children start with its
library view, index and upstream records in memory (copy on write; `gc.freeze` keeps the
collector from touching the parent's objects, so those pages stay shared). They run the
units in runs (``chunk`` units a task, a fraction of a second of work each), so what crosses
between processes is a task's index out and a list of outcomes back. Each child computes on
one thread (`xlebench.runner.cores.forked`, the pool the benchmark-wide steps use: a forked
child must not enter the OpenMP pool its parent's threads left behind). A unit's bytes do
not depend on the process that computes it (its generator comes from the seed, the stage and
its id), so the records are those of one process (tests/runner/test_runner.py). A stage
where that was measured not to pay says so (``forks = False``). Annotate did, from the ninth
session to the eleventh: its validity check had run slower after forked units, which two
trials on the shared pool no longer showed (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from xlebench.runner.cores import forked, runs
from xlebench.runner.execute import Outcome, execute_unit
from xlebench.runner.stage import Stage, StageContext, Unit

#: Seconds of units a task of the forked pool holds: long enough that handing it over is
#: nothing beside its work, short enough that the last tasks end together.
TASK_S = 0.1
#: Each child runs at least this many tasks, so the work stays even at the end.
TASKS_PER_CHILD = 8


def chunk_size(units: int, pace: float, workers: int) -> int:
    """Units a task: `TASK_S` of them at ``pace`` seconds a unit, but no more than leaves
    each of ``workers`` children `TASKS_PER_CHILD` tasks."""
    by_time = int(TASK_S / pace) if pace > 0 else units
    return max(1, min(by_time, units // (workers * TASKS_PER_CHILD)))


def run_forked(stage: Stage, ctx: StageContext, stage_dir: Path, retries: int,
               units: Sequence[Unit], workers: int, chunk: int,
               account: Callable[[Outcome], bool]) -> int:
    """Run ``units`` in ``workers`` forked processes, ``chunk`` at a time, handing each
    outcome to ``account`` as its task finishes (in the units' order within a task);
    ``account`` returning True stops the rest (fail_fast). Returns how many units were
    not run."""
    # the children's live counters would update this process's copy of them: off there
    run = partial(_run, stage, replace(ctx, report=None), stage_dir, retries)
    tasks = runs(units, chunk)
    # every outcome counted, also those of tasks already running at a stop
    cancelled = forked(workers, [partial(run, t) for t in tasks], range(len(tasks)),
                       lambda _k, outcomes: any([account(o) for o in outcomes]))
    return sum(len(tasks[k]) for k in cancelled)


def _run(stage: Stage, ctx: StageContext, stage_dir: Path, retries: int,
         units: Sequence[Unit]) -> list[Outcome]:
    return [execute_unit(stage, unit, ctx, stage_dir, retries) for unit in units]
