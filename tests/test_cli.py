"""The real CLI end to end: resume after SIGKILL, byte-identical outputs, selective
recomputation, multirun sweeps sharing the cache, and no secrets in outputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FAST, ROOT, cli_env, last_summary, run_cli, tree_bytes

PAPER_FAST = [*FAST, "simulation=paper", "persona.locations=[Japan,UK,Italy,India]",
              "persona.mbti=[INTJ,ESFP,INFP,ESTJ,ENFP,ISTJ]"]


def test_demo_pipeline_writes_benchmark_and_manifest(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, *FAST)
    assert "faiss.loader" not in proc.stderr  # faiss's loader reports each CPU build it tries
    bench = tmp_path / "benchmarks" / "demo"
    manifest = json.loads((bench / "manifest.json").read_text())
    assert set(manifest["fingerprints"]) == {"library", "persona", "plan", "simulate"}
    assert manifest["counts"]["simulate"]["lifelogs"] == 6
    assert "paths" not in manifest["config"] and manifest["packages"]["hydra-core"]
    logs = sorted((bench / "lifelogs").glob("*.json"))
    assert len(logs) == 6
    assert (bench / "stats" / "library.png").stat().st_size > 1000


@pytest.mark.slow  # a CLI process loading MiniLM (about 15 s): the slow tier CI runs
def test_loading_the_sentence_model_draws_no_bars(tmp_path: Path) -> None:
    """transformers draws a "Loading weights" bar per model load: not in a compile's output."""
    proc = run_cli(tmp_path, "stages=[library]", "library.n_videos=20", "matcher/embedder=minilm")
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr


@pytest.mark.slow  # three CLI compiles (18 s): the slow tier CI runs
def test_same_config_twice_and_worker_counts_give_identical_outputs(tmp_path: Path) -> None:
    run_cli(tmp_path / "a", *FAST)
    run_cli(tmp_path / "b", *FAST)
    run_cli(tmp_path / "c", *FAST, "workers=2")
    a, b, c = (tree_bytes(tmp_path / x / "benchmarks" / "demo") for x in "abc")
    assert a == b
    assert a == c


@pytest.mark.slow  # two CLI compiles (11-14 s): the slow tier CI runs
def test_changing_one_stage_key_recomputes_it_and_downstream_only(tmp_path: Path) -> None:
    run_cli(tmp_path, *FAST)
    # Another configuration publishes under another name (the same name is refused).
    run_cli(tmp_path, *FAST, "planner.gap_max_s=900", "name=gap900")
    s = last_summary(tmp_path)
    assert s["library"]["cached"] == 1 and s["persona"]["cached"] == 6
    assert s["plan"]["done"] == 6 and s["simulate"]["done"] == 6
    run_cli(tmp_path, *FAST, "planner.gap_max_s=900", "simulation.day_end=truncate",
            "name=truncate")
    s = last_summary(tmp_path)
    assert s["plan"]["cached"] == 6 and s["simulate"]["done"] == 6


def _markers(outputs: Path, stage: str) -> int:
    return sum(1 for _ in (outputs / "cache" / stage).glob("*/done/*.json"))


@pytest.mark.slow  # a minute or more of CLI compiles: kept out of the default suite
def test_sigkill_midway_then_resume(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    run_cli(ref, *PAPER_FAST)
    out = tmp_path / "killed"
    run_cli(out, *PAPER_FAST, "stages=[plan]")  # upstream ready; the kill lands in simulate
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", *PAPER_FAST]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=cli_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while _markers(out, "simulate") < 5 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _markers(out, "simulate")
    total = 24 * 3
    assert 0 < before < total, f"kill did not land mid-stage ({before} of {total} done)"
    run_cli(out, *PAPER_FAST)
    s = last_summary(out)["simulate"]
    assert s["cached"] >= before and s["done"] == total - s["cached"] and s["failed"] == 0
    assert tree_bytes(out / "benchmarks" / "demo") == tree_bytes(ref / "benchmarks" / "demo")


@pytest.mark.slow  # a joblib sweep of two CLI compiles (9-19 s): the slow tier CI runs
def test_multirun_sweep_with_joblib_shares_the_cache(tmp_path: Path) -> None:
    run_cli(tmp_path, "-m", "seed=0,1", "hydra/launcher=joblib", *FAST, timeout=400)
    benches = sorted(p for p in (tmp_path / "benchmarks" / "demo").iterdir()
                     if not p.name.startswith(".") and p.is_dir())
    assert [b.name.rsplit("__", 1)[-1] for b in benches if b.is_dir()] == ["seed=0", "seed=1"]
    assert all("[" not in b.name and "," not in b.name for b in benches)
    summary = (tmp_path / "benchmarks" / "demo" / "summary.md").read_text()
    assert "seed=0`" in summary and "seed=1`" in summary and "life logs" in summary
    assert len(list((tmp_path / "cache" / "library").iterdir())) == 1  # shared across seeds
    assert len(list((tmp_path / "cache" / "simulate").iterdir())) == 2
    a = json.loads((benches[0] / "manifest.json").read_text())["fingerprints"]
    b = json.loads((benches[1] / "manifest.json").read_text())["fingerprints"]
    assert a["library"] == b["library"] and a["persona"] != b["persona"]


def test_no_secret_from_the_environment_lands_in_outputs(tmp_path: Path) -> None:
    secret = "sk-test-DO-NOT-LEAK-4242"
    env = cli_env(OPENAI_API_KEY=secret, GEMINI_API_KEY=secret)
    run_cli(tmp_path, *FAST, "llm=litellm", env=env)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), f"secret leaked into {path}"


def test_unknown_stage_says_so(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, *FAST, "stages=[reprot]", check=False)
    assert proc.returncode == 2
    assert "unknown stage" in proc.stderr and "report" in proc.stderr


def test_help_and_cfg_job_work() -> None:
    for args in (["--help"], ["--cfg", "job"], ["--info", "defaults"]):
        proc = subprocess.run([sys.executable, "-m", "xlebench", *args], cwd=ROOT,
                              env=cli_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    assert "library" in proc.stdout


@pytest.mark.parametrize("override,needle", [
    ("persona.mbti=[XXXX]", "MBTI"),
    ("library=xlebench_release library.path=/nonexistent/video_info.json", "video_info.json"),
])
def test_user_errors_are_one_clear_line(tmp_path: Path, override: str, needle: str) -> None:
    base = [a for a in FAST if not a.startswith("library.")]
    proc = run_cli(tmp_path, *base, *override.split(), check=False)
    assert proc.returncode == 2 and needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_fast_help_lists_exactly_what_hydra_lists() -> None:
    """`xlebench --help` shares one copy of the config repository across group listings; the
    text is the same as Hydra's own, unpatched listing."""
    fast = subprocess.run([sys.executable, "-m", "xlebench", "--help"], cwd=ROOT, env=cli_env(),
                          capture_output=True, text=True, timeout=60)
    plain = subprocess.run(
        [sys.executable, "-c", "import sys; from xlebench.commands.cli import _hydra_main; "
         "sys.argv = ['xlebench', '--help']; _hydra_main()"],
        cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=60)
    assert fast.returncode == plain.returncode == 0
    assert fast.stdout == plain.stdout and "tasks:" in fast.stdout


@pytest.mark.parametrize("args,needed", [
    ([], False),
    (["paths.outputs=/tmp/x", "experiment=paper", "tasks=[moment_retrieval]"], False),
    (["name=-m"], False),
    (["-m", "seed=0,1"], True),
    (["--multirun", "seed=0,1"], True),
    (["hydra.mode=MULTIRUN"], True),
    (["++hydra.sweeper.params.seed=0,1"], True),
    (["hydra/launcher=joblib_local"], True),
    (["--config-dir", "/my/conf"], True),
    (["-cn", "other"], True),
    (["--config-path=/my/conf"], True),
])
def test_mode_probe_is_skipped_only_when_nothing_can_set_the_mode(args: list[str],
                                                                   needed: bool) -> None:
    from xlebench.commands.cli import mode_probe_needed

    assert mode_probe_needed(args) is needed


def test_a_run_without_the_mode_probe_is_a_single_run(tmp_path: Path) -> None:
    """The probe's answer is given (RUN) and the run folder records it as Hydra would (a sweep
    asked for on the command line still sweeps: `test_multirun_sweep_with_joblib_...`)."""
    import yaml

    run_cli(tmp_path, *FAST, "stages=[persona]")
    [hydra_yaml] = (tmp_path / "runs").glob("*/*/.hydra/hydra.yaml")
    assert yaml.safe_load(hydra_yaml.read_text())["hydra"]["mode"] == "RUN"
