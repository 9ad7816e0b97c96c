"""The benchmark scripts' own measurement code: the simulate breakdown adds up to the stage's
recorded time and refuses a folder where other stages ran; the LLM benchmark reads a process's
CPU time and summarises its runs as median and range."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import FAST, ROOT, cli_env, run_cli


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _breakdown(outputs: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "simulate_breakdown.py"),
                           f"paths.outputs={outputs}", *FAST], cwd=ROOT, env=cli_env(),
                          capture_output=True, text=True, timeout=240)


def test_simulate_breakdown_adds_up_to_the_stage(tmp_path: Path) -> None:
    upstream = [a for a in FAST if not a.startswith("stages=")]
    run_cli(tmp_path, *upstream, "stages=[library,persona,plan]")
    proc = _breakdown(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    logs = list((tmp_path / "benchmarks" / "demo" / "lifelogs").glob("*.json"))
    assert report["units"] == len(logs) > 0
    parts = report["parts_seconds"]
    assert set(parts) == {"setup", "matching", "reflection_and_segments", "published_encoding",
                          "unit_other", "record_and_publish", "runner_rest"}
    # each part is rounded to the millisecond; the remainder closes the sum
    assert sum(parts.values()) == pytest.approx(report["stage_seconds"], abs=0.004)
    assert parts["matching"] > 0 and parts["setup"] > 0
    segments = sum(len(json.loads(p.read_text())["segments"]) for p in logs)
    assert report["matching_calls"] == segments


def test_simulate_breakdown_refuses_a_folder_where_other_stages_run(tmp_path: Path) -> None:
    proc = _breakdown(tmp_path)  # nothing cached: library, persona and plan run too
    assert proc.returncode != 0
    assert "run this where library, persona and plan are cached" in proc.stderr


def test_process_cpu_reads_this_process() -> None:
    llm = _script("llm_concurrency")
    if not Path(f"/proc/{os.getpid()}/stat").exists():
        pytest.skip("no /proc here")
    before = llm.process_cpu_s(os.getpid())
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    assert llm.process_cpu_s(os.getpid()) >= before + 0.03
    assert llm.process_cpu_s(None) is None


def test_llm_summary_is_median_and_range_over_runs() -> None:
    llm = _script("llm_concurrency")

    def run(persona: float, plan: float, cpu: float | None = None) -> dict:
        stage = {"calls": 16, "ideal_calls_per_s": 64.0}
        extra = {} if cpu is None else {"client_cpu_ms_per_answer": cpu}
        return {"persona": {**stage, "achieved_over_ideal": persona},
                "plan": {**stage, "calls": 48, "achieved_over_ideal": plan, **extra}}

    out = llm.summarise([run(0.9, 0.8, 7.0), run(0.97, 0.75, 9.0), run(0.95, 0.87)])
    assert out["persona"]["achieved_over_ideal_median"] == 0.95
    assert out["persona"]["achieved_over_ideal_range"] == [0.9, 0.97]
    assert out["plan"] == {"calls": 48, "ideal_calls_per_s": 64.0,
                           "achieved_over_ideal_median": 0.8,
                           "achieved_over_ideal_range": [0.75, 0.87],
                           "client_cpu_ms_per_answer_median": 8.0}
