"""Shared fixtures: composing the real conf/ tree and running the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

#: xdist runs one worker per core; a torch pass at every core in each worker would spin two
#: workers' threads against each other (the passes follow OMP_NUM_THREADS:
#: `xlebench.library.threads.pass_threads`). Set before anything imports torch.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    os.environ.setdefault("OMP_NUM_THREADS", str(max(
        1, len(os.sched_getaffinity(0)) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))

from xlebench.llm.client import LLMClient, LLMSettings  # noqa: E402
from xlebench.testing.loopback import LoopbackLLMServer
from xlebench.testing.scripted_llm import ScriptedModel

#: Evaluation records carry the date their numbers were produced; tests pin it the way
#: reproducible builds do, so published bytes do not depend on the day (2026-01-01).
os.environ.setdefault("SOURCE_DATE_EPOCH", "1767225600")

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
SHARED = ROOT.parent / "shared" / "data"

#: Small, fast settings for CLI runs: a 60-video synthetic corpus and the hashing embedder.
FAST = [
    "stages=[library,persona,plan,simulate]",
    "library.n_videos=60",
    "matcher/embedder=hashing",
    "persona.locations=[Japan,UK]",
    "persona.mbti=[INTJ,ESFP,INFP]",
    "progress=false",
]


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env.update(HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", **extra)
    return env


def run_cli(outputs: Path, *args: str, check: bool = True, env: dict | None = None,
            timeout: int = 240) -> subprocess.CompletedProcess:
    """Run `python -m xlebench` with outputs under `outputs`."""
    flags = [a for a in args if a.startswith("-")]  # Hydra flags go before the overrides
    rest = [a for a in args if not a.startswith("-")]
    cmd = [sys.executable, "-m", "xlebench", *flags, f"paths.outputs={outputs}", *rest]
    proc = subprocess.run(cmd, cwd=ROOT, env=env or cli_env(), capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"xlebench failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc


@dataclass
class Ran:
    """What one in-process run of the CLI returned and printed."""

    rc: int
    text: str


def run_inprocess(outputs: Path, *args: str) -> Ran:
    """The real entry point (`xlebench.commands.cli.main`, Hydra included) in this process, its
    output captured: ten times faster than a subprocess, for the many short runs of the
    bad-input corpus."""
    import contextlib
    import io

    from hydra.core.global_hydra import GlobalHydra

    from xlebench.commands import cli

    flags = [a for a in args if a.startswith("-")]
    rest = [a for a in args if not a.startswith("-")]
    _protect_capture_streams()
    buffer = io.StringIO()
    argv = sys.argv
    sys.argv = ["xlebench", *flags, f"paths.outputs={outputs}", "progress=false", *rest]
    GlobalHydra.instance().clear()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            cli.main()
        rc = 0
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = argv
        GlobalHydra.instance().clear()
    return Ran(rc, buffer.getvalue())


def _protect_capture_streams() -> None:
    """absl (imported by rouge-score) makes a log handler on the stderr of the moment — in a
    test, pytest's capture stream — and closes that stream when Hydra reconfigures logging,
    unless it is the *current* stderr. Point it at the real stderr first."""
    absl = sys.modules.get("absl.logging")
    inner = getattr(getattr(absl, "_absl_handler", None), "python_handler", None)
    if inner is not None:
        inner.setStream(sys.__stderr__)


def last_summary(outputs: Path) -> dict:
    """Counters of the most recent run (from the Hydra run folder)."""
    files = sorted((outputs / "runs").glob("*/*/run_summary.json"))
    assert files, f"no run_summary.json under {outputs / 'runs'}"
    data = json.loads(files[-1].read_text())
    return {s["stage"]: s for s in data["stages"]}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="session")
def shared_video_info() -> Path:
    path = SHARED / "xlebench_video_info.json"
    if not path.is_file():
        pytest.skip("../shared/data/xlebench_video_info.json is not present")
    return path


# --- a loopback OpenAI-compatible server with the scripted model ----------------------------


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel(timeout_delay_s=3.0)


@pytest.fixture
def server(scripted: ScriptedModel) -> Iterator[LoopbackLLMServer]:
    with LoopbackLLMServer(scripted) as srv:
        yield srv


def make_client(server: LoopbackLLMServer, cache: Path, **overrides) -> LLMClient:
    settings = dict(backend="litellm", model="openai/scripted", api_base=server.base_url, backoff_s=0.01,
                    timeout_s=1.0, max_retries=2, max_retries_on_rate_limit=3,
                    api_key_env="XLEBENCH_TEST_KEY")
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings), cache)


def tree_digest(folder: Path) -> str:
    """One digest of every file under ``folder``, names and bytes (a published benchmark
    changed in any way changes it)."""
    import hashlib

    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()
