"""The cores a benchmark-wide step spreads over (`xlebench.runner.cores`): results in the
tasks' order whatever the count, work really done in other processes, one BLAS thread per
child (two children each spinning the parent's pool of every core ran slower than one
process), no spreading from inside a task, and a setting of 0 meaning every CPU
(at most OMP_NUM_THREADS, a worker's share)."""

from __future__ import annotations

import os

import numpy as np

from xlebench.runner import cores as C


def _square(k: int) -> tuple[int, int]:
    return k * k, os.getpid()


def test_results_come_back_in_the_tasks_order_from_other_processes(monkeypatch) -> None:
    monkeypatch.setattr(C, "available", lambda: 2)  # two, also in a test worker's share of one
    tasks = [lambda k=k: _square(k) for k in range(12)]
    with C.using(1):
        here = C.spread(tasks)
    with C.using(2):
        there = C.spread(tasks, weights=list(range(12)))
    assert [r for r, _ in here] == [r for r, _ in there] == [k * k for k in range(12)]
    assert {p for _, p in here} == {os.getpid()}
    assert os.getpid() not in {p for _, p in there}


def _blas_threads() -> int:
    from threadpoolctl import threadpool_info

    return max((i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"),
               default=1)


def test_a_child_runs_one_blas_thread_and_spreads_no_further(monkeypatch) -> None:
    monkeypatch.setattr(C, "available", lambda: 2)
    np.ones((4, 4)) @ np.ones((4, 4))  # the parent's BLAS pool is up
    with C.using(2):
        assert C.spread([_blas_threads, C.cores, _blas_threads]) == [1, 1, 1]


def test_zero_means_every_cpu_and_no_setting_asks_for_more() -> None:
    from xlebench.library.threads import pass_threads

    assert C.resolve(0) == C.available() == pass_threads() <= len(os.sched_getaffinity(0))
    assert C.resolve(10_000) == C.available() and C.resolve(1) == 1
    with C.using(0) as n:
        assert C.cores() == n == C.available()
    assert C.cores() == 1  # outside a run: a library call stays in its process


def test_runs_cut_a_sequence_into_consecutive_runs() -> None:
    assert C.runs([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert C.runs([], 3) == [] and C.runs("abc", 5) == ["abc"]


def _slow(k: int) -> int:
    import time

    time.sleep(0.05 if k else 0.0)
    return k


def test_a_pool_stops_when_told_and_says_what_it_cancelled() -> None:
    """`forked`, under both `spread` and a stage's forked rest: ``done`` returning True
    cancels what has not started, what was running still reports, nothing is lost."""
    seen: list[int] = []
    cancelled = C.forked(2, [lambda k=k: _slow(k) for k in range(40)], range(40),
                         lambda k, r: seen.append(r) or k == 0)
    assert 0 in seen and cancelled and 0 not in cancelled
    assert sorted(seen + cancelled) == list(range(40))
    assert C.forked(2, [lambda k=k: _slow(k) for k in range(6)], [5, 3, 1],
                    lambda k, r: seen.append(r)) == []
    assert sorted(seen[-3:]) == [1, 3, 5]
