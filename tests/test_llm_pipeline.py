"""planner=llm through the real CLI, litellm and a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli_env, last_summary, run_cli, tree_bytes
from xlebench.testing.loopback import LoopbackLLMServer
from xlebench.testing.scripted_llm import Fault, ScriptedModel

SMALL = ["library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan,UK]",
         "persona.mbti=[INTJ]", "simulation=medium", "progress=false", "planner=llm",
         "llm.model=openai/scripted", "stages=[library,persona,plan,simulate,annotate]"]
STAGES = ("persona", "plan", "simulate")
SECRET = "sk-test-NEVER-IN-OUTPUTS-9731"


def _llm(url: str) -> list[str]:
    return ["llm=litellm", f"llm.api_base={url}", "llm.backoff_s=0.01", "llm.timeout_s=5"]


def _answerer(url: str) -> list[str]:
    """Answering is the answerer group's (the llm group compiles)."""
    return ["answerer=litellm", f"answerer.api_base={url}", "answerer.backoff_s=0.01",
            "answerer.timeout_s=5", "answerer.model=openai/scripted"]


RESULTS = Path("benchmarks") / "demo" / "results" / "oracle_retrieve_socratic@openai--scripted"


@pytest.mark.slow  # LLM-planned compiles through the CLI, twice (20 s): the slow tier CI runs
def test_llm_planner_pipeline_caches_and_replays(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = cli_env(OPENAI_API_KEY=SECRET)
    model = ScriptedModel([Fault("daily_plan", "429"), Fault("chunking", "malformed")])
    with LoopbackLLMServer(model) as srv:
        run_cli(out, *SMALL, *_llm(srv.base_url), env=env)
        first = srv.request_count
        # 2 personas + 2 x (plan, chunks, info) + 2 x 8 reflections + 1 rate limit + 1 correction
        assert first == 2 + 6 + 16 + 2, model.by_task
        bench = out / "benchmarks" / "demo"
        logs = [json.loads(p.read_text()) for p in sorted((bench / "lifelogs").glob("*.json"))]
        assert len(logs) == 2 and all(len(lg["segments"]) == 9 for lg in logs)
        assert all(len(lg["reflections"]) == 8 for lg in logs)
        usage = json.loads((bench / "stats" / "llm_usage_plan.json").read_text())
        assert usage["requests"] == 7 and usage["prompt_tokens"] > 0  # 6 + 1 correction
        manifest = json.loads((bench / "manifest.json").read_text())
        assert manifest["counts"]["simulate"]["llm_usage"]["requests"] == 16

        # Recomputing every LLM stage makes no new request: answers come from the cache.
        before = tree_bytes(bench)
        run_cli(out, *SMALL, *_llm(srv.base_url), f"force=[{','.join(STAGES)}]", env=env)
        assert srv.request_count == first
        assert tree_bytes(bench) == before
        summary = last_summary(out)
        assert all(summary[s]["done"] == 2 for s in ("persona", "plan"))

    # The server is gone: llm=replay recomputes from the cache alone, identically.
    # Only the manifest's record of the llm config (backend, api_base) differs.
    run_cli(out, *SMALL, "llm=replay", f"force=[{','.join(STAGES)}]", env=env)
    after = tree_bytes(bench)
    assert {k: v for k, v in after.items() if k != "manifest.json"} == \
        {k: v for k, v in before.items() if k != "manifest.json"}
    fingerprints = [json.loads(t["manifest.json"])["fingerprints"] for t in (before, after)]
    assert fingerprints[0] == fingerprints[1], "replay must reuse the litellm run's stages"
    for f in out.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".txt", ".log", ".yaml"):
            assert SECRET not in f.read_text(errors="ignore"), f"API key leaked into {f}"


def test_unusable_answers_fail_only_that_unit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    model = ScriptedModel([Fault("persona", "wrong_shape", times=100, match="UK")])
    with LoopbackLLMServer(model) as srv:
        proc = run_cli(out, *SMALL, *_llm(srv.base_url), "llm.max_retries=1", check=False)
        assert proc.returncode == 1
        assert model.by_task["persona"] == 1 + 2, "one good persona, one bounded failure"
    assert "LLMResponseError" in proc.stdout + proc.stderr
    failed = next((out / "cache" / "persona").glob("*/failed/uk-intj-*.json"))
    record = json.loads(failed.read_text())
    assert not record["user_error"] and len(record["artifacts"]) == 3
    raw = next(p for p in record["artifacts"] if p.endswith("response_0.txt"))
    assert '"items"' in Path(raw).read_text()
    summary = last_summary(out)
    assert summary["persona"]["done"] == 1, "the Japan persona is built and cached"
    assert "plan" not in summary, "nothing downstream runs on an incomplete persona stage"
    assert "not run, because a stage before them failed: plan, simulate" in proc.stderr


def test_planner_llm_without_a_model_is_a_clear_config_error(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, *SMALL[:-1], check=False)
    assert proc.returncode == 2
    assert "planner=llm" in proc.stderr and "llm=litellm" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow  # a compile and the Socratic system through the CLI (15 s): the slow tier CI runs
def test_retrieve_socratic_evaluation_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
            "persona.mbti=[INTJ]", "progress=false", "eval.bertscore=false",
            "eval.bootstrap=20", "eval.systems=[retrieve_socratic]",
            "stages=[library,persona,plan,simulate,annotate,evaluate]",
            # one persona: keep every recipe's items (by default a log's items either show
            # its records or describe them, and the coin may leave no summary at all)
            "annotate.printed_answers=keep"]
    model = ScriptedModel()
    with LoopbackLLMServer(model) as srv:
        run_cli(out, *args, *_answerer(srv.base_url))
        asked = model.by_task.get("socratic", 0)
    table = json.loads((out / RESULTS / "table.json").read_text())
    n_items = sum(c["all"]["n"] for s, c in table["rows"].items() if "AVG" not in s)
    assert asked == n_items > 0, "one request per item"
    # The scripted model answers every question with the first record's span: localisation
    # replies parse, an ordering reply is unparseable and counts as a wrong answer.
    assert table["rows"]["single_summary"]["all"]["unparseable"] == 0
    assert table["rows"]["summary_ordering"]["all"]["unparseable"] == 1
    assert table["rows"]["summary_ordering"]["all"]["mean"] == 0.0
    assert table["oracle"] and "ORACLE" in (table_md := (out / RESULTS / "table.md").read_text()
                                            ) and "Answers from:" in table_md
    assert "answered by openai/scripted (litellm)" in table_md
    assert table["model"] == {"name": "openai/scripted", "backend": "litellm",
                              "config": "answerer", "identity": "openai/scripted",
                              "stand_in": False}


@pytest.mark.slow  # a minute or more of CLI compiles: kept out of the default suite
def test_a_garbage_answer_is_never_scored_and_a_healthy_rerun_asks_again(tmp_path: Path
                                                                         ) -> None:
    """A Socratic evaluation behind an endpoint that answers 200 with no content: the client
    retries, the evaluation unit fails, nothing is cached; against a healthy endpoint the
    same command then scores real answers."""
    from xlebench.testing.faults import FaultProxy

    out = tmp_path / "out"
    args = ["library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
            "persona.mbti=[INTJ]", "progress=false", "eval.bertscore=false",
            "eval.bootstrap=20", "eval.systems=[retrieve_socratic]", "render=none",
            "answerer.max_retries=1", "annotate.printed_answers=keep"]
    model = ScriptedModel()
    with LoopbackLLMServer(model) as srv:
        for k, fault in enumerate(("null_content", "html_content")):
            bad = lambda n, body, f=fault: f if n > 3 else None  # noqa: E731 - a schedule
            with FaultProxy(srv.base_url, rule=bad) as proxy:
                proc = run_cli(out, *args, *_answerer(proxy.base_url), check=False)
            assert proc.returncode == 1 and "no usable answer after 2 attempts" in proc.stderr
            assert not (out / "benchmarks" / "demo").exists()
            cached = list((out / "cache" / "llm").rglob("*.json"))
            assert len(cached) == 3 * (k + 1), "only the answers received before the fault"
            assert not any("Bad Gateway" in p.read_text() for p in cached)
        run_cli(out, *args, *_answerer(srv.base_url))
    table = json.loads((out / RESULTS / "table.json").read_text())
    assert table["rows"]["single_summary"]["all"]["unparseable"] == 0
