"""Same config, same bytes: whatever the worker count, and after a kill at any point of any
stage followed by a rerun. Runs the real CLI in subprocesses with the MiniLM embedder and
BERTScore, the two places where float noise used to leak into the outputs."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from tests.conftest import cli_env, run_cli, tree_bytes

FULL = ["library.n_videos=60", "persona.locations=[Japan,UK]", "persona.mbti=[INTJ,ESFP]",
        "render=none", "eval.bootstrap=50", "progress=false"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("reference")
    run_cli(out, *FULL, timeout=400)
    return tree_bytes(out / "benchmarks" / "demo")


@pytest.mark.slow
def test_two_workers_give_the_same_bytes(reference, tmp_path: Path) -> None:
    run_cli(tmp_path, *FULL, "workers=2", timeout=400)
    got = tree_bytes(tmp_path / "benchmarks" / "demo")
    assert sorted(got) == sorted(reference)
    assert [k for k in reference if got[k] != reference[k]] == []


@pytest.mark.slow
def test_one_core_gives_the_same_bytes(reference, tmp_path: Path) -> None:
    """The benchmark-wide steps (the validity check's and the evaluate stage's blind panels)
    spread over every core by default (`xlebench.runner.cores`); on one they publish the same
    bytes. The reference runs at ``cores=0``: every CPU where the tier runs without xdist."""
    env = {k: v for k, v in cli_env().items() if k != "OMP_NUM_THREADS"}
    run_cli(tmp_path, *FULL, "cores=1", env=env, timeout=400)
    got = tree_bytes(tmp_path / "benchmarks" / "demo")
    assert sorted(got) == sorted(reference)
    assert [k for k in reference if got[k] != reference[k]] == []


KILLS = ["library:unit", "persona:unit:2", "plan:unit:3", "simulate:unit:2",
         "annotate:unit:7", "evaluate:unit", "simulate:export", "annotate:export"]


@pytest.mark.slow
@pytest.mark.parametrize("kill", KILLS)
def test_kill_then_rerun_gives_the_same_bytes(kill: str, reference, tmp_path: Path) -> None:
    killed = run_cli(tmp_path, *FULL, check=False, timeout=400,
                     env=cli_env(XLEBENCH_KILL_AT=kill))
    assert killed.returncode == -signal.SIGKILL, f"the run was not killed at {kill}"
    assert not (tmp_path / "benchmarks" / "demo").exists(), "nothing is published half-way"
    run_cli(tmp_path, *FULL, timeout=400)
    got = tree_bytes(tmp_path / "benchmarks" / "demo")
    assert [k for k in reference if got.get(k) != reference[k]] == []
    assert sorted(got) == sorted(reference)
    leftovers = [p.name for p in (tmp_path / "benchmarks").iterdir() if "staging" in p.name]
    assert leftovers == [], "the killed run's staging folder was removed"


@pytest.mark.slow
def test_kill_while_publishing_keeps_the_published_benchmark(reference, tmp_path: Path
                                                             ) -> None:
    run_cli(tmp_path, *FULL, timeout=400)
    killed = run_cli(tmp_path, *FULL, "force=[evaluate]", check=False, timeout=400,
                     env=cli_env(XLEBENCH_KILL_AT="*:publish"))
    assert killed.returncode == -signal.SIGKILL
    assert tree_bytes(tmp_path / "benchmarks" / "demo") == reference
    run_cli(tmp_path, *FULL, timeout=400)
    assert tree_bytes(tmp_path / "benchmarks" / "demo") == reference
    assert sorted(p.name for p in (tmp_path / "benchmarks").iterdir()
                  if not p.name.endswith(".lock")) == ["demo"]


@pytest.mark.slow
def test_shard_jobs_share_the_benchmark_wide_steps(reference, tmp_path: Path) -> None:
    """With annotate and evaluate sharded, two jobs (submitit_local) split their units and
    the tasks of the validity check's and the evaluate stage's panels
    (`xlebench.runner.tasks`); the merge run computes none of them and publishes the bytes
    one job alone does."""
    # a long wait: a loaded machine may start one job late; a dead peer only costs time
    sweep = run_cli(tmp_path, "-m", *FULL, "shard.stages=[plan,annotate,evaluate]",
                    "shard.index=0,1", "shard.count=2", "shard.wait_s=600",
                    "hydra/launcher=submitit_local", timeout=900)
    assert sweep.returncode == 0
    assert not list((tmp_path / "benchmarks").rglob("manifest.json")), "shards publish nothing"
    logs = [p.read_text() for p in sorted((tmp_path / "multirun").rglob("*_log.err"))]
    assert len(logs) == 2
    # which job finds the other's share already stored when it starts a step is a race, and
    # a job scoring no system skips a step: count, over both jobs, what each computed
    here = [sum(map(int, re.findall(r"tasks: \d+ kept, (\d+) computed here", t))) for t in logs]
    stored = list((tmp_path / "cache").glob("*/*/tasks/*/*.pkl"))
    assert all(n > 0 for n in here), "each job computed a share of the tasks"
    assert sum(here) == len(stored), "no task computed by both jobs"
    merged = run_cli(tmp_path, *FULL, timeout=400)
    computed = re.findall(r"tasks: \d+ kept, (\d+) computed here", merged.stderr)
    assert computed and set(computed) == {"0"}, "the merge run reads every task"
    got = tree_bytes(tmp_path / "benchmarks" / "demo")
    assert sorted(got) == sorted(reference)
    assert [k for k in reference if got[k] != reference[k]] == []
