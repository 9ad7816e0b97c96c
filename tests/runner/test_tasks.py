"""A benchmark-wide step's keyed tasks kept in the stage's store (`xlebench.runner.tasks`):
computed once and read back after, resumed from what a killed step finished, shared by shard
jobs running at the same moment, each computing its share, and the same results whatever
the cores, the store and the shards."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from xlebench.runner import cores as C
from xlebench.runner.tasks import TaskStore, keeping, task_key


def _logged(folder: Path, k: int, fail_at: int | None = None) -> int:
    """A task that says it ran (a file per run) and fails where told."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{k}.{os.getpid()}.{len(list(folder.iterdir()))}").write_text("")
    if k == fail_at:
        raise RuntimeError(f"task {k} killed")
    return k * k


def _ran(folder: Path) -> list[int]:
    return sorted(int(p.name.split(".")[0]) for p in folder.iterdir()) if folder.exists() else []


def _tasks(folder: Path, n: int, fail_at: int | None = None) -> list:
    return [lambda k=k: _logged(folder, k, fail_at) for k in range(n)]


KEYS = [task_key("test", k) for k in range(10)]


@pytest.mark.parametrize("n", [1, 2])
def test_a_kept_task_is_read_back_not_computed_again(n: int, tmp_path: Path,
                                                     monkeypatch) -> None:
    monkeypatch.setattr(C, "available", lambda: 2)
    store = TaskStore(tmp_path / "tasks")
    with C.using(n), keeping(store):
        first = C.spread(_tasks(tmp_path / "ran1", 10), list(range(10)), keys=KEYS)
        again = C.spread(_tasks(tmp_path / "ran2", 10), list(range(10)), keys=KEYS)
    with C.using(n):
        plain = C.spread(_tasks(tmp_path / "ran3", 10), keys=KEYS)  # no store: computed
    assert first == again == plain == [k * k for k in range(10)]
    assert _ran(tmp_path / "ran1") == list(range(10)) == _ran(tmp_path / "ran3")
    assert _ran(tmp_path / "ran2") == [], "every task read from the store"


def test_a_killed_step_resumes_from_the_tasks_it_finished(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "tasks")
    with C.using(1), keeping(store):
        with pytest.raises(RuntimeError, match="task 4 killed"):
            C.spread(_tasks(tmp_path / "ran1", 10, fail_at=4), keys=KEYS)
        assert _ran(tmp_path / "ran1") == [0, 1, 2, 3, 4]
        out = C.spread(_tasks(tmp_path / "ran2", 10), keys=KEYS)
    assert out == [k * k for k in range(10)]
    assert _ran(tmp_path / "ran2") == [4, 5, 6, 7, 8, 9], "the finished four are not redone"


def test_a_changed_input_is_a_new_task(tmp_path: Path) -> None:
    assert task_key("panel", ("fold", 1), b"items") != task_key("panel", ("fold", 2), b"items")
    assert task_key("panel", b"ab", b"c") != task_key("panel", b"a", b"bc")
    assert task_key("panel", 1) == task_key("panel", 1)


def _shard_job(index: int, root: str, queue) -> None:
    store = TaskStore(Path(root) / "tasks", (index, 2), wait_s=20.0)
    with C.using(1), keeping(store):
        out = C.spread(_tasks(Path(root) / f"ran{index}", 10), list(range(10, 0, -1)),
                       keys=KEYS)
    queue.put((index, out))


def test_two_shard_jobs_each_compute_their_share_and_return_every_result(tmp_path: Path
                                                                        ) -> None:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    jobs = [ctx.Process(target=_shard_job, args=(i, str(tmp_path), queue)) for i in (0, 1)]
    for j in jobs:
        j.start()
    results = dict(queue.get(timeout=60) for _ in jobs)
    for j in jobs:
        j.join(timeout=60)
    assert results[0] == results[1] == [k * k for k in range(10)]
    # heaviest first (weights 10..1), dealt in turn: job 0 the even places, job 1 the odd
    assert _ran(tmp_path / "ran0") == [0, 2, 4, 6, 8]
    assert _ran(tmp_path / "ran1") == [1, 3, 5, 7, 9]


def test_a_shard_alone_computes_what_no_other_did(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "tasks", (1, 2), wait_s=0.0)
    with C.using(1), keeping(store):
        out = C.spread(_tasks(tmp_path / "ran", 10), keys=KEYS)
    assert out == [k * k for k in range(10)]
    assert _ran(tmp_path / "ran") == list(range(10)), "never fails for want of a peer"


def test_an_unreadable_task_file_is_computed_again(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "tasks")
    with C.using(1), keeping(store):
        C.spread(_tasks(tmp_path / "ran1", 3), keys=KEYS[:3])
        store.path(KEYS[1]).write_bytes(b"not a pickle")
        assert C.spread(_tasks(tmp_path / "ran2", 3), keys=KEYS[:3]) == [0, 1, 4]
    assert _ran(tmp_path / "ran2") == [1]


def test_slim_keeps_only_part_of_a_result(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "tasks")
    with C.using(1), keeping(store):
        first = C.spread([lambda: ("answer", ["fit"])], keys=KEYS[:1],
                         slim=lambda r: (r[0], []))
        again = C.spread([lambda: ("other", ["fit"])], keys=KEYS[:1])
    assert first == [("answer", ["fit"])] and again == [("answer", [])]


def test_a_job_starting_after_the_others_share_computes_only_its_own(tmp_path: Path) -> None:
    """The shares are dealt over every task, not over those still missing: a job that finds
    the other job's share stored computes its own and nothing more (dealing the rest again
    sent half of it to a peer that had finished, and the job waited for it in vain)."""
    store = TaskStore(tmp_path / "tasks", (0, 2), wait_s=30.0)
    for k in range(1, 10, 2):
        store.save(KEYS[k], k * k)
    with C.using(1), keeping(store):
        out = C.spread(_tasks(tmp_path / "ran", 10), keys=KEYS)
    assert out == [k * k for k in range(10)]
    assert _ran(tmp_path / "ran") == [0, 2, 4, 6, 8]


def test_a_killed_writers_file_is_swept_and_a_live_ones_kept(tmp_path: Path) -> None:
    """A writer killed between writing a task and renaming it leaves its temporary file; the
    next run of the stage removes it, not the file of a writer still running."""
    store = TaskStore(tmp_path / "tasks")
    store.save(KEYS[0], 1)
    dead = store.path(KEYS[1]).with_name(f".{KEYS[1]}.pkl.999999999.tmp")
    live = store.path(KEYS[2]).with_name(f".{KEYS[2]}.pkl.{os.getpid()}.tmp")
    for f in (dead, live):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"half")
    assert store.sweep() == 1
    assert not dead.exists() and live.exists() and store.load(KEYS[0]) == (True, 1)
