"""The cores a benchmark-wide step may spread over, and the pool that spreads it.

The runner's ``workers`` spread a stage's units (a life log's plan, a system's replies); the
steps that work over the whole benchmark — the validity check's blind panel, the panel and
AFLite filters, the evaluate stage's panel — are one unit each, and ran on one core while the
others idled (issue 90: 86% of the ten-times paper grid). They are Python (fitting and
answering small models per fold), so they spread over **processes**: each step lists its
independent tasks (a member of the panel on one fold, an AFLite split), `spread` runs them in
``cores()`` forked processes and returns their results **in the tasks' order**, so what is
published is the same bytes whatever the count (tests/runner/test_cores.py, and a compile
compared byte for byte at ``cores=1`` and ``cores=2``).

Forked, not spawned: a task is a closure over the step's inputs (items, fitted vectorisers,
the public view's MiniLM vectors), which a forked child inherits without pickling or
recomputing; only results cross back. Each child runs its BLAS, torch and FAISS on one thread
(`one_thread`): the children are the parallelism, and a forked child must not enter the
OpenMP runtime a parent's threads left behind (it can hang); the steps compute their sentence
vectors in the parent before they spread.

``cores`` (config, 0 = every CPU this process may run on, at most ``OMP_NUM_THREADS`` where
that is set) is set for a run by
`xlebench.pipeline` and, in a worker process of the runner, to that worker's share of the
CPUs (`xlebench.runner.execute.init_worker`), so that two workers do not each take every core.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import logging
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from xlebench.runner.progress import as_completed
from xlebench.runner.tasks import current as current_store
from xlebench.runner.tasks import kept_results

T = TypeVar("T")
log = logging.getLogger(__name__)

#: The cores of the current run (1 outside a run: a library call stays in its process).
_CORES = [1]
#: Whether this process is a forked child of `forked`.
_CHILD = [False]
#: The tasks of the `forked` pools in progress, inherited by their children.
_TASKS: list[Sequence[Callable[[], Any]]] = []


def available() -> int:
    """The CPUs this process may run on, at most ``OMP_NUM_THREADS`` where set (the share a
    runner's worker, or a test worker of xdist, is given: `pass_threads`)."""
    return pass_threads()


def pass_threads() -> int:
    """Intra-op threads of a forward pass: ``OMP_NUM_THREADS`` where set (clamped to the CPUs
    with one warning: torch given 99999 dies in its pool; nonsense ignored, as torch does),
    else every CPU this process may run on (torch's own default on a machine without SMT)."""
    cpus = len(os.sched_getaffinity(0))
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if not (env.isdigit() and int(env) > 0):
        return cpus
    if int(env) > cpus:
        _warn_clamped(env, cpus)
    return min(int(env), cpus)


@functools.cache
def _warn_clamped(env: str, cpus: int) -> None:
    log.warning("OMP_NUM_THREADS=%s: more than the %d CPUs here; passes use %d", env, cpus, cpus)



def resolve(setting: int) -> int:
    """A ``cores`` setting as a count: 0 = every available CPU; never more than those."""
    n = available()
    return n if setting <= 0 else min(int(setting), n)


def cores() -> int:
    return _CORES[-1]


@contextlib.contextmanager
def using(setting: int) -> Iterator[int]:
    """``cores()`` is ``resolve(setting)`` inside the block."""
    _CORES.append(resolve(setting))
    try:
        yield _CORES[-1]
    finally:
        _CORES.pop()


def in_child() -> bool:
    """Whether this process runs a task of `spread` (what it builds is lost unless returned)."""
    return _CHILD[0]


def set_cores(setting: int) -> None:
    """``cores()`` for the rest of this process (a runner's worker process)."""
    _CORES[:] = [resolve(setting)]


def runs(seq: Sequence[T], size: int) -> list[Sequence[T]]:
    """``seq`` cut into consecutive runs of ``size`` (the last shorter): a step's tasks."""
    return [seq[at:at + size] for at in range(0, len(seq), size)]


def spread(tasks: Sequence[Callable[[], T]], weights: Sequence[float] | None = None,
           keys: Sequence[str] | None = None, slim: Callable[[T], Any] | None = None
           ) -> list[T]:
    """Each task's result, in the tasks' order, computed in up to ``cores()`` forked
    processes (here, in order, with one core or one task). ``weights``: each task's expected
    cost, the heaviest submitted first so that the last to finish is a light one. ``keys``:
    each task's digest of what its result depends on, under which the stage's store keeps it
    (`xlebench.runner.tasks`: resumed after a kill, shared by shard jobs; ``slim``: what of
    a result is kept there)."""
    order = sorted(range(len(tasks)), key=lambda k: -(weights[k] if weights else 1.0))
    store = current_store() if keys is not None and not in_child() else None
    if store is None:
        results: dict[int, T] = {}
        _compute(tasks, order, results.__setitem__)
        return [results[k] for k in range(len(tasks))]
    return kept_results(store, list(keys or ()), order,
                        lambda ks, done: _compute(tasks, ks, done), slim)


def _compute(tasks: Sequence[Callable[[], T]], ks: Sequence[int],
             done: Callable[[int, T], None]) -> None:
    """The tasks ``ks`` (heaviest first), each result handed to ``done`` as it finishes."""
    n = min(cores(), len(ks))
    if n <= 1:
        for k in ks:
            done(k, tasks[k]())
        return
    forked(n, tasks, ks, done)


def forked(n: int, tasks: Sequence[Callable[[], T]], ks: Sequence[int],
           done: Callable[[int, T], bool | None]) -> list[int]:
    """The tasks ``ks`` in ``n`` processes forked from this one (`one_thread`), submitted in
    that order, each result handed to ``done`` here as its task finishes. ``done`` returning
    True cancels the tasks not yet started; those already running still hand theirs over.
    Returns the tasks cancelled. The children find ``tasks`` in the memory they were forked
    with, so only a task's index crosses to them: closures over a stage set up here, or over
    the inputs of a benchmark-wide step, need no pickling."""
    _TASKS.append(tasks)
    gc.freeze()  # the children's collector leaves the parent's objects alone: no page copies
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                                 initializer=one_thread) as pool:
            futures = {pool.submit(_run, len(_TASKS) - 1, k): k for k in ks}
            stopped = False
            for future in as_completed(list(futures)):  # cancelled ones left out
                if done(futures[future], future.result()) and not stopped:
                    stopped = True
                    for other in futures:
                        other.cancel()
    finally:
        gc.unfreeze()
        _TASKS.pop()
    return [k for future, k in futures.items() if future.cancelled()]


def _run(depth: int, k: int) -> Any:
    return _TASKS[depth][k]()


def one_thread() -> None:
    """A forked child's BLAS and OpenMP users at one thread, before any task, and no further
    spreading from inside a task. BLAS above all: the children's ridge fits and cosine
    products (``ndarray.dot``) each ran on the parent's OpenBLAS pool of every core, and two
    children spinning four threads on two cores took longer than one process alone. What
    a child prints goes to the process's own streams, not through the progress bars' proxy,
    whose lock the parent's refresh thread may have held when the child was forked."""
    from threadpoolctl import threadpool_limits

    sys.stdout, sys.stderr = sys.__stdout__ or sys.stdout, sys.__stderr__ or sys.stderr

    os.environ["OMP_NUM_THREADS"] = "1"
    _CORES[:] = [1]
    _CHILD[0] = True
    threadpool_limits(1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    if "faiss" in sys.modules:
        sys.modules["faiss"].omp_set_num_threads(1)
