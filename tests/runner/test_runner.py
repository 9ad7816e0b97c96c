"""The runner contract on small stages defined here (test-only, not shipped)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import ClassVar

import pytest

from xlebench.errors import DataError
from xlebench.runner.runner import Runner, RunnerOptions, StageSpec
from xlebench.runner.stage import BaseStage, Unit, UnitContext, check_unit_id


class Squares(BaseStage):
    """n units; unit i returns i*i plus a number from its own generator."""

    name: ClassVar[str] = "squares"
    version: ClassVar[str] = "1"

    def __init__(self, n: int = 6, fail: frozenset[int] = frozenset(), flaky: int = -1,
                 user_error: int = -1) -> None:
        self.n, self.fail, self.flaky, self.user_error = n, fail, flaky, user_error
        self.calls: list[int] = []

    def units(self, ctx):
        return [Unit(f"u{i:03d}", i) for i in range(self.n)]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        i = unit.payload
        self.calls.append(i)
        if i in self.fail:
            raise ValueError(f"unit {i} is broken")
        if i == self.user_error:
            raise DataError("input.json", "$.x", "expected a number")
        if i == self.flaky and self.calls.count(i) == 1:
            raise RuntimeError("transient")
        (ctx.workdir / "extra.txt").write_text(f"{i}\n")
        return {"i": i, "sq": i * i, "draw": int(ctx.rng().integers(0, 10**9))}


class Sums(BaseStage):
    name: ClassVar[str] = "sums"
    version: ClassVar[str] = "1"
    upstream: ClassVar[tuple[str, ...]] = ("squares",)

    def units(self, ctx):
        return [Unit("total")]

    def run(self, unit, ctx):
        return {"total": sum(r["sq"] for r in ctx.upstream["squares"].records.values())}


def _runner(tmp_path: Path, **kw) -> Runner:
    return Runner(RunnerOptions(cache_dir=tmp_path / "cache", seed=kw.pop("seed", 0),
                                progress=False, **kw))


def test_runs_caches_and_passes_records_downstream(tmp_path: Path) -> None:
    sq = Squares()
    summary = _runner(tmp_path).run([StageSpec(sq, {"a": 1}), StageSpec(Sums(), {})])
    assert summary.counter("squares").done == 6
    assert summary.results["sums"].records["total"]["total"] == sum(i * i for i in range(6))
    again = Squares()
    summary = _runner(tmp_path).run([StageSpec(again, {"a": 1}), StageSpec(Sums(), {})])
    assert again.calls == [] and summary.counter("squares").cached == 6
    assert summary.counter("sums").cached == 1
    extra = summary.results["squares"].unit_dir("u003") / "extra.txt"
    assert extra.read_text() == "3\n"


def test_config_change_recomputes_stage_and_downstream(tmp_path: Path) -> None:
    _runner(tmp_path).run([StageSpec(Squares(), {"a": 1}), StageSpec(Sums(), {})])
    s = _runner(tmp_path).run([StageSpec(Squares(), {"a": 2}), StageSpec(Sums(), {})])
    assert s.counter("squares").done == 6 and s.counter("sums").done == 1


def test_volatile_and_secret_keys_do_not_change_fingerprint(tmp_path: Path) -> None:
    a = _runner(tmp_path).run([StageSpec(Squares(), {"a": 1, "workers": 1, "api_key": "x"})])
    b = _runner(tmp_path).run([StageSpec(Squares(), {"a": 1, "workers": 8, "api_key": "y"})])
    assert a.counters[0].fingerprint == b.counters[0].fingerprint
    assert b.counters[0].cached == 6


def test_failures_are_recorded_and_do_not_stop_other_units(tmp_path: Path) -> None:
    s = _runner(tmp_path).run([StageSpec(Squares(fail=frozenset({2})), {})])
    c = s.counter("squares")
    assert (c.done, c.failed) == (5, 1) and "unit 2 is broken" in c.errors["u002"]
    failed = s.results["squares"].dir / "failed" / "u002.json"
    assert "ValueError" in failed.read_text()
    ok = _runner(tmp_path).run([StageSpec(Squares(), {})])  # the same fingerprint, fixed
    assert ok.counter("squares").done == 1 and ok.counter("squares").cached == 5
    assert not failed.exists()


def test_fail_fast_stops_at_first_failure(tmp_path: Path) -> None:
    sq = Squares(fail=frozenset({1}))
    s = _runner(tmp_path, fail_fast=True).run([StageSpec(sq, {}), StageSpec(Sums(), {})])
    assert sq.calls == [0, 1] and s.counter("squares").not_run == 4
    assert "sums" not in s.results


def test_retries_count_and_user_errors_are_not_retried(tmp_path: Path) -> None:
    sq = Squares(flaky=3, user_error=4)
    s = _runner(tmp_path, retries=2).run([StageSpec(sq, {})])
    c = s.counter("squares")
    assert c.retried == 1 and c.failed == 1 and sq.calls.count(4) == 1
    assert "$.x" in c.errors["u004"]


def test_force_recomputes(tmp_path: Path) -> None:
    _runner(tmp_path).run([StageSpec(Squares(), {})])
    sq = Squares()
    s = _runner(tmp_path, force=frozenset({"squares"})).run([StageSpec(sq, {})])
    assert s.counter("squares").done == 6 and len(sq.calls) == 6


def test_unit_rng_depends_on_seed_and_unit_only(tmp_path: Path) -> None:
    a = _runner(tmp_path / "a", seed=1).run([StageSpec(Squares(), {})]).results["squares"]
    b = _runner(tmp_path / "b", seed=1).run([StageSpec(Squares(n=3), {})]).results["squares"]
    c = _runner(tmp_path / "c", seed=2).run([StageSpec(Squares(n=3), {})]).results["squares"]
    assert all(a.records[k]["draw"] == b.records[k]["draw"] for k in b.records)
    assert any(c.records[k]["draw"] != b.records[k]["draw"] for k in c.records)


def test_process_pool_gives_identical_records(tmp_path: Path) -> None:
    one = _runner(tmp_path / "1").run([StageSpec(Squares(n=8), {})]).results["squares"]
    two = _runner(tmp_path / "2", workers=2).run([StageSpec(Squares(n=8), {})])
    assert two.counter("squares").done == 8
    assert dict(one.records) == dict(two.results["squares"].records)


class Threads(BaseStage):
    """Each unit records the forward passes' thread setting its process sees."""

    name: ClassVar[str] = "threads"
    version: ClassVar[str] = "1"

    def units(self, ctx):
        return [Unit(f"u{i}", i) for i in range(4)]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        import os

        return {"omp": os.environ.get("OMP_NUM_THREADS")}


def test_process_workers_share_the_cpus_and_keep_a_users_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers of a 2-CPU machine: one thread each for their torch passes, not two each
    spinning against the other's; a user's OMP_NUM_THREADS is theirs."""
    import os

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    got = _runner(tmp_path / "a", workers=2).run([StageSpec(Threads(), {})]).results["threads"]
    share = str(max(1, len(os.sched_getaffinity(0)) // 2))
    assert {r["omp"] for r in got.records.values()} == {share}
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    got = _runner(tmp_path / "b", workers=2).run([StageSpec(Threads(), {})]).results["threads"]
    assert {r["omp"] for r in got.records.values()} == {"3"}


def test_leftovers_of_a_killed_run_are_settled(tmp_path: Path) -> None:
    s = _runner(tmp_path).run([StageSpec(Squares(n=2), {})])
    stage_dir = s.results["squares"].dir
    (stage_dir / "done" / "u001.json").unlink()  # killed between rename and marker
    (stage_dir / ".tmp" / "u000.999999999.dead").mkdir(parents=True)  # a dead process's tmp
    sq = Squares(n=2)
    again = _runner(tmp_path).run([StageSpec(sq, {})])
    assert sq.calls == [] and again.counter("squares").cached == 2
    assert not (stage_dir / ".tmp" / "u000.999999999.dead").exists()


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "x" * 300, "a b"])
def test_unsafe_unit_ids_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        check_unit_id(bad)


def test_units_are_synced_once_per_stage_and_records_are_compact(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from xlebench.runner import runner as runner_module

    fsyncs, barriers = [], []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd)))
    real_barrier = runner_module.barrier
    monkeypatch.setattr(runner_module, "barrier",
                        lambda p: (barriers.append(p), real_barrier(p)))
    summary = _runner(tmp_path).run([StageSpec(Squares(n=40), {"a": 1})])
    assert summary.counter("squares").done == 40
    # stage.json is the only fsynced file; the 40 records and markers wait for one barrier
    assert len(fsyncs) == 1 and barriers == [summary.results["squares"].dir]
    record = (summary.results["squares"].unit_dir("u007") / "record.json").read_text()
    assert record.count("\n") == 1 and '"sq":49' in record
    _runner(tmp_path).run([StageSpec(Squares(n=40), {"a": 1})])
    assert len(barriers) == 1, "a stage served from the cache writes nothing to sync"


class Published(Squares):
    """Writes its record's published form itself and names it as the record file."""

    name: ClassVar[str] = "published"
    record_file: ClassVar[str] = "out.json"

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        from xlebench.runner.atomic import dumps

        record = super().run(unit, ctx)
        if unit.payload != 3:  # unit 3 forgets the file: the runner encodes the record
            (ctx.workdir / self.record_file).write_text(dumps(record), encoding="utf-8")
        return record


def test_a_stage_record_file_becomes_the_record_without_a_second_encoding(
        tmp_path: Path) -> None:
    """record.json is a hard link to the stage's own published file (no second encoding or
    write); a unit without that file gets the compact record; both read back as returned."""
    first = _runner(tmp_path).run([StageSpec(Published(), {"a": 1})])
    result = first.results["published"]
    linked, compact = result.unit_dir("u002"), result.unit_dir("u003")
    assert (linked / "record.json").samefile(linked / "out.json")
    assert (linked / "record.json").read_text().count("\n") > 1  # the indented form
    assert not (compact / "out.json").exists()
    assert (compact / "record.json").read_text().count("\n") == 1
    again = Published()
    cached = _runner(tmp_path).run([StageSpec(again, {"a": 1})]).results["published"]
    assert again.calls == [] and cached.records == result.records
    assert cached.records["u002"] == {"i": 2, "sq": 4, "draw": result.records["u002"]["draw"]}


def test_a_record_lost_before_the_barrier_is_recomputed(tmp_path: Path) -> None:
    """A power cut between a unit's marker and the stage's sync can leave the marker and an
    empty or torn record: resume computes that unit again instead of failing downstream."""
    first = _runner(tmp_path).run([StageSpec(Squares(), {"a": 1})])
    stage_dir = first.results["squares"].dir
    (stage_dir / "units" / "u002" / "record.json").write_text("")
    (stage_dir / "units" / "u004" / "record.json").write_text('{"i": 4, "sq"')
    again = Squares()
    summary = _runner(tmp_path).run([StageSpec(again, {"a": 1}), StageSpec(Sums(), {})])
    assert sorted(again.calls) == [2, 4] and summary.counter("squares").cached == 4
    assert summary.results["squares"].records == first.results["squares"].records
    assert summary.results["sums"].records["total"]["total"] == sum(i * i for i in range(6))


def test_written_files_get_the_umask_mode(tmp_path: Path) -> None:
    """Published benchmarks are shared: files are not left at mkstemp's private 0600."""
    import os

    from xlebench.runner.atomic import write_json

    old = os.umask(0o022)
    os.umask(old)
    write_json(tmp_path / "x.json", {"a": 1})
    assert (tmp_path / "x.json").stat().st_mode & 0o777 == 0o666 & ~old


class Slow(BaseStage):
    """Units that take a while each (the parent process lists the ones it ran itself)."""

    name: ClassVar[str] = "slow"
    version: ClassVar[str] = "1"

    def __init__(self) -> None:
        self.here: list[int] = []

    def units(self, ctx):
        return [Unit(f"u{i:03d}", i) for i in range(24)]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        self.here.append(unit.payload)
        time.sleep(0.05)
        return {"i": unit.payload, "draw": int(ctx.rng().integers(0, 10**9))}


def test_a_pool_is_worth_it_only_for_what_is_left_beyond_its_start_up() -> None:
    from xlebench.runner.runner import POOL_START_S, PROBE_S, UNIT_COST_S, worth_a_pool

    pace, t = 0.01, 2 * PROBE_S  # seconds a unit; seconds of them timed
    assert not worth_a_pool(PROBE_S / 2, 5, 10**6, 16)  # too soon to trust the pace
    even = POOL_START_S / (pace / 2 - UNIT_COST_S)  # units left at which two workers break even
    assert not worth_a_pool(t, int(t / pace), int(even * 0.95), 2)
    assert worth_a_pool(t, int(t / pace), int(even * 1.05), 2)
    assert worth_a_pool(t, int(t / pace), int(even * 0.6), 16)  # more workers: sooner
    assert not worth_a_pool(t, 20, 1, 2)  # fewer units left than workers
    quick = 2 * UNIT_COST_S * 0.9  # a unit quicker than handing it over twice: never spread
    assert not worth_a_pool(t, int(t / quick), 10**9, 2)


def test_workers_auto_hands_the_rest_to_a_pool_with_the_same_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``workers=0`` (the default) runs units here, and once the rest is projected to take
    longer than a pool costs to start, spreads the rest over the run's cores; the records
    are those of one process."""
    import xlebench.runner.runner as R

    one = _runner(tmp_path / "1", workers=1).run([StageSpec(Slow(), {})]).results["slow"]
    monkeypatch.setattr(R, "cores", lambda: 2)
    monkeypatch.setattr(R, "PROBE_S", 0.1)
    monkeypatch.setattr(R, "POOL_START_S", 0.2)
    stage = Slow()
    auto = _runner(tmp_path / "0", workers=0).run([StageSpec(stage, {})])
    assert auto.counter("slow").done == 24
    assert 0 < len(stage.here) < 12  # the first few here, the rest in the pool's processes
    assert dict(auto.results["slow"].records) == dict(one.records)
    stage = Slow()
    stage.spreads = True  # units that spread over the cores themselves stay here
    _runner(tmp_path / "s", workers=0).run([StageSpec(stage, {})])
    assert stage.here == list(range(24))
    stage = Slow()
    stage.forks = False  # a stage where forking was measured not to pay
    _runner(tmp_path / "f", workers=0).run([StageSpec(stage, {})])
    assert stage.here == list(range(24))
    monkeypatch.setattr(R, "POOL_START_S", 1e9)  # a pool never pays: every unit here
    stage = Slow()
    _runner(tmp_path / "00", workers=0).run([StageSpec(stage, {})])
    assert stage.here == list(range(24))


class Waits(BaseStage):
    """Network-bound units (threads) that note how many of them run at once."""

    name: ClassVar[str] = "waits"
    version: ClassVar[str] = "1"
    io_bound: ClassVar[bool] = True

    def __init__(self, threads: int) -> None:
        import threading

        self.threads, self.lock, self.now, self.most = threads, threading.Lock(), 0, 0

    def units(self, ctx):
        return [Unit(f"u{i}", i) for i in range(8)]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.05)
        with self.lock:
            self.now -= 1
        return {"i": unit.payload}


@pytest.mark.parametrize("threads", [1, 3])
def test_workers_auto_keeps_a_network_stage_to_what_its_client_allows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """An API that takes one request at a time gets one, whatever the cores (``workers=0``
    chooses the client's count, not the machine's)."""
    import xlebench.runner.runner as R

    monkeypatch.setattr(R, "cores", lambda: 2)
    stage = Waits(threads)
    _runner(tmp_path, workers=0).run([StageSpec(stage, {})])
    assert stage.most == threads


class SetOnce(Slow):
    """Units that read what the stage's set-up built; each set-up is noted in a file."""

    name: ClassVar[str] = "set_once"

    def __init__(self, log: Path, fail: int | None = None) -> None:
        super().__init__()
        self.log, self.fail, self.table = log, fail, None

    def units(self, ctx):
        return [Unit(f"u{i:03d}", i) for i in range(40)]

    def setup(self, ctx) -> None:
        with self.log.open("a") as f:
            f.write(f"{os.getpid()}\n")
        self.table = {i: i * i for i in range(40)}

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        if unit.payload == self.fail:
            raise RuntimeError(f"unit {unit.payload} broke")
        record = super().run(unit, ctx)
        return {**record, "square": self.table[unit.payload], "pid": os.getpid()}


def _auto(monkeypatch: pytest.MonkeyPatch) -> None:
    import xlebench.runner.runner as R

    monkeypatch.setattr(R, "cores", lambda: 2)
    monkeypatch.setattr(R, "PROBE_S", 0.1)
    monkeypatch.setattr(R, "POOL_START_S", 0.0)


def test_the_forked_pool_starts_with_the_stage_set_up_here(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``workers=0`` forks the rest of a stage from the process that set it up: the stage is
    set up once, the children read what it built, and the records are those of one process
    (but for the pid that computed them)."""
    one = _runner(tmp_path / "1", workers=1).run(
        [StageSpec(SetOnce(tmp_path / "one.log"), {})]).results["set_once"]
    _auto(monkeypatch)
    stage = SetOnce(tmp_path / "auto.log")
    auto = _runner(tmp_path / "0", workers=0).run([StageSpec(stage, {})])
    assert auto.counter("set_once").done == 40
    assert (tmp_path / "auto.log").read_text().splitlines() == [str(os.getpid())]
    records = auto.results["set_once"].records
    assert 0 < len(stage.here) < 40  # the rest ran in the children, on their copy of the stage
    assert len({r["pid"] for r in records.values()} - {os.getpid()}) >= 1
    drop = lambda rs: {k: {**v, "pid": 0} for k, v in rs.items()}  # noqa: E731
    assert drop(records) == drop(one.records)


@pytest.mark.parametrize("fail_fast", [False, True])
def test_a_unit_that_fails_in_the_forked_pool_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_fast: bool) -> None:
    _auto(monkeypatch)
    runner = _runner(tmp_path, workers=0, fail_fast=fail_fast)
    summary = runner.run([StageSpec(SetOnce(tmp_path / "log", fail=30), {})])
    counter = summary.counter("set_once")
    assert counter.failed == 1 and "unit 30 broke" in counter.errors["u030"]
    assert (counter.done + counter.failed + counter.not_run == 40)
    assert (counter.not_run > 0) == fail_fast
    stage_dir = next((tmp_path / "cache" / "set_once").iterdir())
    assert (stage_dir / "failed" / "u030.json").is_file()


def test_a_forked_pools_tasks_are_a_tenth_of_a_second_and_eight_a_child() -> None:
    from xlebench.runner.forked import TASK_S, TASKS_PER_CHILD, chunk_size

    assert chunk_size(100_000, 0.001, 2) == round(TASK_S / 0.001)
    assert chunk_size(40, 0.001, 2) == 40 // (2 * TASKS_PER_CHILD)
    assert chunk_size(5, 10.0, 2) == 1
