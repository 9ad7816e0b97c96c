"""The litellm client against a loopback server: caching, retries, errors, concurrency."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import make_client
from xlebench.errors import ConfigError, LLMCallError, UserError
from xlebench.llm.client import LLMSettings
from xlebench.testing.loopback import LoopbackLLMServer, Reply
from xlebench.testing.scripted_llm import Fault

HELLO = [{"role": "system", "content": "Task: persona."},
         {"role": "user", "content": 'Input:\n```json\n{"location": "Japan", "mbti": "INTJ"}\n```'}]


def test_answer_is_cached_and_replayable(server, tmp_path) -> None:
    client = make_client(server, tmp_path)
    first = client.complete(HELLO)
    assert not first.cached and '"daily_routine"' in first.text
    assert first.prompt_tokens > 0 and first.completion_tokens > 0
    again = client.complete(HELLO)
    assert again.cached and again.text == first.text
    assert server.request_count == 1, "a cached answer must not be requested again"
    other_sample = client.complete(HELLO, sample=1)
    assert not other_sample.cached and server.request_count == 2
    replay = make_client(server, tmp_path, backend="replay")
    assert replay.complete(HELLO).text == first.text and server.request_count == 2
    with pytest.raises(UserError, match="llm=replay: no cached answer"):
        replay.complete(HELLO, sample=7)


def test_log_probabilities_are_asked_for_cached_and_kept(tmp_path) -> None:
    """``logprobs=k`` sends OpenAI's logprobs / top_logprobs, returns each generated token's
    alternatives, keeps them in the cache, and is never served a text-only cached answer."""
    judge = [{"role": "system", "content": "Task: gem_judge."},
             {"role": "user", "content": "Candidate answer: C cuts onion\n"
                                         "Reference answer: C cuts the onion"}]
    from xlebench.testing.scripted_llm import ScriptedModel

    with LoopbackLLMServer(ScriptedModel()) as srv:
        client = make_client(srv, tmp_path)
        text = client.complete(judge)
        assert text.top_logprobs == () and "logprobs" not in srv.requests[-1]
        graded = client.complete(judge, logprobs=5)
        assert not graded.cached and srv.requests[-1]["top_logprobs"] == 5
        verdict = graded.top_logprobs[2]
        assert set(verdict) == {" TRUE", " FALSE"} and verdict[" TRUE"] > verdict[" FALSE"]
        asked = srv.request_count
        again = client.complete(judge, logprobs=5)
        assert again.cached and again.top_logprobs == graded.top_logprobs
        assert srv.request_count == asked


def test_rate_limit_then_success(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("persona", "429", times=2))
    client = make_client(server, tmp_path)
    assert '"name"' in client.complete(HELLO).text
    assert server.request_count == 3


def test_rate_limit_forever_is_bounded(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("persona", "429", times=100))
    with pytest.raises(LLMCallError, match="still rate limited after 4 attempts"):
        make_client(server, tmp_path).complete(HELLO)
    assert server.request_count == 4  # 1 + max_retries_on_rate_limit


def test_server_error_recovers_within_bound(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("persona", "500", times=2))
    assert make_client(server, tmp_path).complete(HELLO).text
    assert server.request_count == 3


def test_server_error_forever_fails_clearly(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("persona", "500", times=100))
    with pytest.raises(LLMCallError, match=r"no usable answer after 3 attempts \(InternalServer"):
        make_client(server, tmp_path).complete(HELLO)
    assert server.request_count == 3
    assert not list(tmp_path.rglob("*.json")), "failed calls are not cached"


def test_timeout_is_retried_then_fails(server, scripted, tmp_path) -> None:
    scripted.faults.append(Fault("persona", "timeout", times=100))
    start = time.perf_counter()
    with pytest.raises(LLMCallError, match="Timeout"):
        make_client(server, tmp_path, timeout_s=0.3, max_retries=1).complete(HELLO)
    assert server.request_count == 2
    assert time.perf_counter() - start < 2.5, "the client must not wait for the slow answer"


def test_missing_key_without_api_base_is_a_config_error(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("XLEBENCH_ABSENT_KEY", raising=False)
    from xlebench.llm.client import LLMClient

    client = LLMClient(LLMSettings(backend="litellm", model="gpt-4o-mini",
                                   api_key_env="XLEBENCH_ABSENT_KEY"),
                       tmp_path)
    with pytest.raises(ConfigError, match="XLEBENCH_ABSENT_KEY is not set"):
        client.complete(HELLO)


def test_api_key_is_sent_but_never_stored(server, tmp_path, monkeypatch) -> None:
    secret = "sk-test-DO-NOT-LEAK-4242"
    monkeypatch.setenv("XLEBENCH_TEST_KEY", secret)
    seen = []
    original = server.responder
    server.responder = lambda body: (seen.append(1), original(body))[1]
    make_client(server, tmp_path).complete(HELLO)
    assert seen
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert secret not in f.read_text(), f"API key leaked into {f}"


def test_concurrency_is_limited(tmp_path) -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()

    def slow(body):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.15)
        with lock:
            in_flight[0] -= 1
        return Reply('{"ok": true}')

    with LoopbackLLMServer(slow) as srv:
        client = make_client(srv, tmp_path, max_concurrency=2)
        prompts = [[{"role": "user", "content": f"question {i}"}] for i in range(8)]
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(client.complete, prompts))
    assert srv.request_count == 8
    assert peak[0] == 2, f"{peak[0]} requests in flight, max_concurrency is 2"


def test_loopback_server_refuses_other_addresses() -> None:
    with pytest.raises(ValueError, match="loopback"):
        LoopbackLLMServer(lambda body: Reply(""), host="0.0.0.0")
