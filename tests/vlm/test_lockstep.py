"""Batches across life logs (`xlebench.vlm.lockstep`): rounds of every member's next call,
batched in member order whatever the threads' timing; failures stay with their member."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from xlebench.config.schema import VLMConfig
from xlebench.vlm.cached import CachedVLM
from xlebench.vlm.lockstep import run_lockstep
from xlebench.vlm.messages import message


class Recorder(CachedVLM):
    """Answers each request with its text; records the batches the model saw."""

    def __init__(self, cache: Path, batch_size: int = 64, fail_on: str | None = None) -> None:
        super().__init__(VLMConfig(backend="scripted", model="rec", batch_size=batch_size),
                         cache)
        self.batches: list[list[str]] = []
        self.fail_on = fail_on

    def _generate(self, batch):
        texts = [m[0]["content"][0] for m in batch]
        if self.fail_on in texts:
            raise RuntimeError("the model failed")
        self.batches.append(texts)
        return [f"re:{t}" for t in texts]


def _member(vlm: CachedVLM, name: str, calls: list[int], seed: int):
    """A log asking ``calls[k]`` questions in its k-th call, pausing at random between."""
    pause = random.Random(seed)

    def run() -> list[str]:
        got = []
        for step, n in enumerate(calls):
            time.sleep(pause.uniform(0, 0.02))
            asks = [[message("user", f"{name}.{step}.{q}")] for q in range(n)]
            got += [c.text for c in vlm.answer_batch(asks)]
        return got
    return run


def test_rounds_batch_every_members_next_call_in_member_order(tmp_path: Path) -> None:
    plans = {"a": [2, 1, 3], "b": [1], "c": [3, 2]}
    seen = []
    for trial in range(4):
        vlm = Recorder(tmp_path / f"c{trial}")
        out = run_lockstep([_member(vlm, name, calls, seed=trial * 10 + k)
                            for k, (name, calls) in enumerate(plans.items())])
        for (name, calls), got in zip(plans.items(), out, strict=True):
            assert got == [f"re:{name}.{s}.{q}" for s, n in enumerate(calls) for q in range(n)]
        seen.append(vlm.batches)
    assert all(batches == seen[0] for batches in seen), "the same batches whatever the timing"
    assert [len(b) for b in seen[0]] == [6, 3, 3], "round k: every running member's k-th call"
    assert seen[0][0][:2] == ["a.0.0", "a.0.1"], "member order, not arrival order"


def test_a_failing_member_leaves_and_the_others_go_on(tmp_path: Path) -> None:
    vlm = Recorder(tmp_path / "c")

    def broken() -> list[str]:
        vlm.answer_batch([[message("user", "x.0.0")]])
        raise ValueError("frames missing")
    out = run_lockstep([_member(vlm, "a", [1, 1, 1], 0), broken, _member(vlm, "b", [2, 2], 1)])
    assert isinstance(out[1], ValueError)
    assert out[0] == ["re:a.0.0", "re:a.1.0", "re:a.2.0"] and len(out[2]) == 4


def test_a_model_failure_reaches_every_member_of_its_round(tmp_path: Path) -> None:
    vlm = Recorder(tmp_path / "c", fail_on="b.1.0")
    out = run_lockstep([_member(vlm, "a", [1, 1], 0), _member(vlm, "b", [1, 1], 1)])
    assert all(isinstance(o, RuntimeError) for o in out)


def test_calls_outside_a_group_run_at_once(tmp_path: Path) -> None:
    vlm = Recorder(tmp_path / "c", batch_size=2)
    assert [c.text for c in vlm.answer_batch([[message("user", "q")]])] == ["re:q"]
    assert run_lockstep([lambda: 7]) == [7]
    with pytest.raises(ZeroDivisionError):
        raise run_lockstep([lambda: 1 / 0])[0]
