"""The client behind the fault-injecting proxy: every fault is retried within its bound, only
validated answers reach the cache, and a failure caches nothing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import make_client
from xlebench.errors import LLMCallError, LLMResponseError
from xlebench.llm.client import Usage
from xlebench.llm.structured import ask_json
from xlebench.testing.faults import FAULTS, FaultProxy

HELLO = [{"role": "system", "content": "Task: persona."},
         {"role": "user", "content": 'Input:\n```json\n{"location": "Japan", "mbti": "INTJ"}\n```'}]


def _cached(cache: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(cache.rglob("*.json"))]


@pytest.mark.parametrize("fault", FAULTS)
def test_one_fault_is_retried_and_only_the_good_answer_is_cached(server, tmp_path, fault):
    with FaultProxy(server.base_url, schedule={1: fault}, hang_s=1.5) as proxy:
        client = make_client(proxy, tmp_path, timeout_s=0.5)
        start = time.perf_counter()
        if fault == "bad_content":
            # A well-formed reply with unusable text is the caller's to judge: ask_json
            # rejects it, asks again, and caches only the conversation that ended well.
            value = ask_json(client, HELLO, lambda v: v["name"], max_retries=2, usage=Usage())
            assert value and proxy.requests == 2
        else:
            text = client.complete(HELLO).text
            assert '"name"' in text and proxy.requests == 2
        assert proxy.injected[fault] == 1
        assert time.perf_counter() - start < 5, "a retry must not wait for a hung answer"
    stored = _cached(tmp_path)
    assert stored and all('"name"' in rec["text"] or "{'answer'" in rec["text"]
                          for rec in stored)
    assert all(rec["text"] for rec in stored), "a null or empty answer is never cached"


@pytest.mark.parametrize("fault", ["server_error", "non_json", "truncated", "null_content",
                                   "hang"])
def test_persistent_fault_fails_after_the_bound_and_caches_nothing(server, tmp_path, fault):
    with FaultProxy(server.base_url, rule=lambda n, body: fault, hang_s=1.0) as proxy:
        client = make_client(proxy, tmp_path, timeout_s=0.4, max_retries=2)
        with pytest.raises(LLMCallError, match="no usable answer after 3 attempts"):
            client.complete(HELLO)
        assert proxy.requests == 3
    assert not _cached(tmp_path)


def test_rate_limit_honours_retry_after(server, tmp_path):
    with FaultProxy(server.base_url, schedule={1: "rate_limit", 2: "rate_limit"},
                    retry_after_s=0.3) as proxy:
        client = make_client(proxy, tmp_path, backoff_s=0.0)
        start = time.perf_counter()
        assert client.complete(HELLO).text
        assert time.perf_counter() - start >= 0.6 and proxy.requests == 3


def test_invalid_answers_are_not_cached_so_a_healthy_rerun_asks_again(server, tmp_path):
    with FaultProxy(server.base_url, rule=lambda n, body: "bad_content") as proxy:
        client = make_client(proxy, tmp_path)
        with pytest.raises(LLMResponseError):
            ask_json(client, HELLO, lambda v: v["name"], max_retries=1, usage=Usage())
        assert proxy.requests == 2
    assert not _cached(tmp_path), "a failed exchange must leave nothing to replay"
    healthy = make_client(server, tmp_path)
    assert ask_json(healthy, HELLO, lambda v: v["name"], max_retries=1, usage=Usage())
    assert server.request_count == 3, "the healthy run asked the model, not the cache"
    replay = make_client(server, tmp_path, backend="replay")
    assert ask_json(replay, HELLO, lambda v: v["name"], max_retries=1, usage=Usage())


def test_proxy_refuses_non_loopback_upstream():
    with pytest.raises(ValueError, match="loopback"):
        FaultProxy("http://8.8.8.8/v1")
