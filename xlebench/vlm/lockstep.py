"""Batches across life logs that do not depend on timing (``vlm.logs_per_batch``).

An in-process model answers fastest in batches, but a system asks for one log at a time and
some ask in several steps (``notes``: a request per chunk of frames, then a last one). Here k
logs run in threads as *members* of one group, and the model's calls advance in rounds: a
round is every still-running member's next call, and the last member to arrive runs them all
together through the backend (which sorts them by shape and pads per ``vlm.batch_size``).

A round's requests are concatenated in member order, never in arrival order, so which
requests share a batch depends only on the group and each member's own calls: the same logs
give the same batches (and, on a GPU whose numerics follow the batch, the same answers)
however the threads are scheduled. Calls from threads outside a group run at once, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_member = threading.local()


class Lockstep:
    """One group of members advancing call by call (see the module's docstring)."""

    def __init__(self, members: int) -> None:
        self._cond = threading.Condition()
        self._active = members
        self._calls: dict[int, tuple[Any, list[list[dict]], int]] = {}
        self._results: dict[int, list[Any] | BaseException] = {}

    def submit(self, index: int, backend: Any, batch: Sequence[list[dict]],
               sample: int) -> list[Any]:
        """Member ``index``'s call to ``backend``: waits for the round, returns its own
        answers (the round calls ``backend.answer_now(requests, sample)``)."""
        with self._cond:
            self._calls[index] = (backend, list(batch), sample)
            self._maybe_run()
            while index not in self._results:
                self._cond.wait()
            out = self._results.pop(index)
        if isinstance(out, BaseException):
            raise out
        return out

    def leave(self) -> None:
        """A member is done (or failed): the others no longer wait for it."""
        with self._cond:
            self._active -= 1
            self._maybe_run()

    def _maybe_run(self) -> None:
        """Run the round once every active member has called (the lock is held)."""
        if not self._calls or len(self._calls) < self._active:
            return
        calls, self._calls = sorted(self._calls.items()), {}
        # one backend call per (backend, sample), its requests in member order
        by_call: dict[tuple[int, int], list[tuple[int, Any, list[list[dict]]]]] = {}
        for index, (backend, batch, sample) in calls:
            by_call.setdefault((id(backend), sample), []).append((index, backend, batch))
        for (_, sample), members in by_call.items():
            union = [req for _, _, batch in members for req in batch]
            if len(members) > 1:
                getattr(members[0][1], "report", _ignore)("calls batched across logs",
                                                          len(members))
            try:
                answers = members[0][1].answer_now(union, sample)
            except BaseException as exc:  # every member of the call sees the failure
                for index, _, _ in members:
                    self._results[index] = exc
                continue
            at = 0
            for index, _, batch in members:
                self._results[index] = answers[at:at + len(batch)]
                at += len(batch)
        self._cond.notify_all()


def _ignore(counter: str, n: int) -> None:
    """No live display bound."""


def current() -> tuple[Lockstep, int] | None:
    """The group and member index of the calling thread, if it runs inside a group."""
    return getattr(_member, "slot", None)


def run_lockstep(tasks: Sequence[Callable[[], T]]) -> list[T | BaseException]:
    """Each task in its own thread as a member of one group; per task its result or the
    exception it raised (a failing member leaves; the others go on)."""
    if len(tasks) <= 1:
        return [_outcome(t) for t in tasks]
    group = Lockstep(len(tasks))

    def member(index: int) -> T | BaseException:
        _member.slot = (group, index)
        try:
            return _outcome(tasks[index])
        finally:
            _member.slot = None
            group.leave()

    with ThreadPoolExecutor(max_workers=len(tasks), thread_name_prefix="lockstep") as pool:
        return list(pool.map(member, range(len(tasks))))


def _outcome(task: Callable[[], T]) -> T | BaseException:
    try:
        return task()
    except Exception as exc:  # returned, so the caller decides what a failure means
        return exc
