"""The tasks of a benchmark-wide step, kept on disk by key: resumed, and shared across shards.

A step that spreads its tasks over the cores (`xlebench.runner.cores.spread`) may name each
task by a key, a digest of everything its result depends on. While the runner works on a stage
(its units, ``finish``, its export) it sets that stage's store, ``<stage folder>/tasks``
(`keeping`), and a keyed task's result is written there, atomically, the moment it is
computed. So a validity check killed after an hour starts again from the tasks it finished,
and two evaluations of one benchmark compute each task once between them.

In a sharded run (``shard.count`` > 1, the stage in ``shard.stages``) a job computes its share
of the tasks (every ``count``-th of them, heaviest first, from the ``index``-th: even shares
whatever the keys), then waits for the other jobs' while they keep arriving
(``shard.wait_s``), and computes what is still missing itself: a step never fails for want of
a peer, and the merge run finds every task stored. The results are those the step would have
computed: a stored result is the pickled value, and the step puts results back in its tasks'
order.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlebench.runner.atomic import pid_alive

log = logging.getLogger(__name__)

#: Bumped when the stored form changes (a store written by another form is not read).
FORMAT = 1


@dataclass(frozen=True)
class TaskStore:
    """Where a stage's keyed tasks are kept, and this job's share of them."""

    folder: Path
    #: (index, count) of a sharded stage's job; (0, 1) otherwise.
    shard: tuple[int, int] = (0, 1)
    #: Seconds a job waits without a peer's new task before computing the rest itself.
    wait_s: float = 0.0

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pkl"

    def load(self, key: str) -> tuple[bool, Any]:
        """(found, value): a task file that cannot be read counts as not found (recomputed)."""
        try:
            with self.path(key).open("rb") as f:
                return True, pickle.load(f)
        except FileNotFoundError:
            return False, None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as e:
            log.warning("task %s: unreadable (%s); computing it again", key, e)
            return False, None

    def save(self, key: str, value: Any) -> None:
        """Written whole or not at all (a temporary file renamed); a value that does not
        pickle is not kept (computed again when asked)."""
        try:
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            return
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, path)

    def sweep(self) -> int:
        """Remove the temporary files of writers that no longer run (killed between writing
        and renaming); the number removed. A live writer's file is left alone."""
        removed = 0
        for tmp in self.folder.glob("*/.*.tmp") if self.folder.is_dir() else ():
            pid = tmp.name.rsplit(".", 2)[-2]
            if not (pid.isdigit() and pid_alive(int(pid))):
                tmp.unlink(missing_ok=True)
                removed += 1
        return removed

    def shares(self, order: Sequence[int]) -> tuple[list[int], list[int]]:
        """(this job's, the others') of the tasks in ``order`` (heaviest first)."""
        index, count = self.shard
        if count <= 1:
            return list(order), []
        mine = [k for j, k in enumerate(order) if j % count == index]
        return mine, [k for j, k in enumerate(order) if j % count != index]

    def await_peers(self, keys: Sequence[str], poll_s: float = 0.2) -> None:
        """Wait while the other jobs' tasks keep arriving (``wait_s`` without a new one)."""
        left = [k for k in keys if not self.path(k).exists()]
        last = time.monotonic()
        while left and time.monotonic() - last < self.wait_s:
            time.sleep(poll_s)
            still = [k for k in left if not self.path(k).exists()]
            if len(still) < len(left):
                last = time.monotonic()
            left = still


#: The store of the stage the runner works on (None: keyed tasks are computed, not kept).
_STORE: list[TaskStore | None] = [None]


def current() -> TaskStore | None:
    return _STORE[-1]


@contextlib.contextmanager
def keeping(store: TaskStore | None) -> Iterator[TaskStore | None]:
    """Keyed tasks are kept in ``store`` inside the block."""
    _STORE.append(store)
    try:
        yield store
    finally:
        _STORE.pop()


def enter(store: TaskStore | None) -> None:
    """``store`` for the rest of the innermost `keeping` block (the runner's current stage)."""
    _STORE[-1] = store


def set_store(store: TaskStore | None) -> None:
    """The store for the rest of this process (a runner's worker process, a forked child)."""
    _STORE[:] = [store]


def task_key(*parts: Any) -> str:
    """A stable key from ``parts`` (bytes, or anything whose ``repr`` is stable)."""
    h = hashlib.blake2b(digest_size=20)
    h.update(f"tasks-{FORMAT}".encode())
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def kept_results(store: TaskStore, keys: Sequence[str], order: Sequence[int],
                 compute: Callable[[list[int], Callable[[int, Any], None]], None],
                 slim: Callable[[Any], Any] | None = None) -> list[Any]:
    """Each task's result: read from ``store``, else computed (``compute(ks, done)`` computes
    the tasks ``ks`` and calls ``done(k, result)`` for each as it finishes) and written.
    ``order``: the tasks heaviest first (the shares); ``slim``: what of a result is kept."""
    results: dict[int, Any] = {}
    for k, key in enumerate(keys):
        found, value = store.load(key)
        if found:
            results[k] = value

    def done(k: int, value: Any) -> None:
        results[k] = value
        store.save(keys[k], slim(value) if slim is not None else value)

    kept = len(results)
    mine, others = store.shares(order)  # over every task: the same split in each job
    mine = [k for k in mine if k not in results]
    others = [k for k in others if k not in results]
    if mine:
        compute(mine, done)
    missing: list[int] = []
    if others:
        store.await_peers([keys[k] for k in others])
        for k in others:
            found, value = store.load(keys[k])
            if found:
                results[k] = value
        missing = [k for k in others if k not in results]
        if missing:
            compute(missing, done)
    log.info("tasks: %d kept, %d computed here, %d from other jobs", kept,
             len(mine) + len(missing), len(others) - len(missing))
    return [results[k] for k in range(len(keys))]
