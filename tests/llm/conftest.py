"""A loopback OpenAI-compatible server and clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from xlebench.llm.client import LLMClient, LLMSettings
from xlebench.llm.loopback import LoopbackLLMServer
from xlebench.llm.scripted import ScriptedModel


@pytest.fixture
def scripted() -> ScriptedModel:
    return ScriptedModel(timeout_delay_s=3.0)


@pytest.fixture
def server(scripted: ScriptedModel) -> Iterator[LoopbackLLMServer]:
    with LoopbackLLMServer(scripted) as srv:
        yield srv


def make_client(server: LoopbackLLMServer, cache: Path, **overrides) -> LLMClient:
    settings = dict(model="openai/scripted", api_base=server.base_url, backoff_s=0.01,
                    timeout_s=1.0, max_retries=2, max_retries_on_rate_limit=3,
                    api_key_env="XLEBENCH_TEST_KEY")
    settings.update(overrides)
    return LLMClient(LLMSettings(**settings), cache)
