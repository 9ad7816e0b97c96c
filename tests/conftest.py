"""Shared fixtures: composing the real conf/ tree and running the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from xlebench.llm.client import LLMClient, LLMSettings
from xlebench.llm.loopback import LoopbackLLMServer
from xlebench.llm.scripted import ScriptedModel

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
