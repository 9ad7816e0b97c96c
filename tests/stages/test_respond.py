"""The respond stage's waves (``vlm.logs_per_batch``): a unit answers the next pending logs of
its system together with its own, each unit then records its own replies; a failure stays with
its log, and a retried unit runs alone."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from xlebench.config.schema import VLMConfig
from xlebench.runner.stage import StageContext, StageResult, Unit, UnitContext
from xlebench.stages.respond import RespondStage

LOGS = ["a", "b", "c", "d"]


class Together:
    """A system that records which logs were being answered at the same time."""

    def __init__(self, broken: str | None = None) -> None:
        self.broken, self.calls, self.running, self.peak = broken, [], 0, 0
        self._lock = threading.Lock()
        self._gate = threading.Barrier(3, timeout=10)  # the first wave: three logs at once

    def respond(self, items, recipes, log):
        with self._lock:
            self.calls.append(log["lifelog_id"])
            self.running += 1
            self.peak = max(self.peak, self.running)
        if log["lifelog_id"] in "abc" and len(self.calls) <= 3:
            self._gate.wait()
        with self._lock:
            self.running -= 1
        if log["lifelog_id"] == self.broken:
            raise RuntimeError(f"frames of {self.broken} are missing")
        return {f"{log['lifelog_id']}-item": f"reply to {log['lifelog_id']}"}


class Systems:
    def __init__(self, system: Together, per_wave: int) -> None:
        self.by_name = {"s": system}
        self.fingerprints = {"s": {"system": "s"}}
        self.network = False
        self.vlm = type("V", (), {"settings": VLMConfig(logs_per_batch=per_wave)})()

    def probe(self) -> None:
        return None


def _stage(system: Together, per_wave: int, tmp: Path) -> tuple[RespondStage, UnitContext,
                                                                  list[Unit]]:
    stage = RespondStage(systems=Systems(system, per_wave), recipes={}, root=None)
    stage._items = {lid: [] for lid in LOGS}
    simulate = StageResult("simulate", "f", tmp, {lid: {"lifelog_id": lid} for lid in LOGS})
    ctx = StageContext(0, {"simulate": simulate})
    units = [Unit(f"s.k.{lid}", {"system": "s", "lifelog": lid}) for lid in LOGS]
    stage.prepare(units, ctx)
    return stage, UnitContext("respond", "u", 0, tmp, ctx), units


def test_a_unit_answers_its_wave_and_each_unit_records_its_own(tmp_path: Path) -> None:
    system = Together()
    stage, ctx, units = _stage(system, 3, tmp_path)
    assert stage.serial, "waves need the pending order: one process"
    records = [stage.run(u, ctx) for u in units]
    assert [r["responses"] for r in records] == [{f"{x}-item": f"reply to {x}"} for x in LOGS]
    assert sorted(system.calls[:3]) == ["a", "b", "c"]
    assert system.peak == 3 and system.calls[3] == "d", "a, b and c together, then d"


def test_a_failure_stays_with_its_log_and_a_retry_runs_alone(tmp_path: Path) -> None:
    system = Together(broken="b")
    stage, ctx, units = _stage(system, 3, tmp_path)
    assert stage.run(units[0], ctx)["responses"] == {"a-item": "reply to a"}
    with pytest.raises(RuntimeError, match="frames of b"):
        stage.run(units[1], ctx)
    assert stage.run(units[2], ctx)["responses"] == {"c-item": "reply to c"}
    system.broken = None
    assert stage.run(units[1], ctx)["responses"] == {"b-item": "reply to b"}, "retried alone"
    assert system.calls.count("b") == 2 and len(system.calls) == 4


def test_one_log_per_wave_by_default(tmp_path: Path) -> None:
    system = Together()
    system._gate = threading.Barrier(1)
    stage, ctx, units = _stage(system, 1, tmp_path)
    assert [stage.run(u, ctx)["lifelog_id"] for u in units] == LOGS
    assert system.peak == 1
