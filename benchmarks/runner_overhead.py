"""Collecting finished units: the runner's queue-based `as_completed` vs waiting on the set of
the remaining futures (the previous, quadratic way), side by side on the same futures.

Usage: python benchmarks/runner_overhead.py [--units 5000 20000]
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import Future
from concurrent.futures import wait as wait_futures

from xlebench.runner.progress import as_completed


def _set_wait(futures: list[Future]):
    remaining = set(futures)
    while remaining:
        done, remaining = wait_futures(remaining, return_when="FIRST_COMPLETED")
        yield from sorted(done, key=futures.index)


def _finished(n: int) -> list[Future]:
    out = []
    for k in range(n):
        f: Future = Future()
        f.set_result(k)
        out.append(f)
    return out


def _time(collect, n: int) -> float:
    futures = _finished(n)
    start = time.perf_counter()
    assert sum(1 for _ in collect(futures)) == n
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, nargs="+", default=[2000, 8000])
    args = ap.parse_args()
    rows = {}
    for n in args.units:
        old, new = _time(_set_wait, n), _time(as_completed, n)
        rows[n] = {"set_wait_s": round(old, 4), "queue_s": round(new, 4),
                   "speedup": round(old / new, 1)}
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
