"""Open-ended answer judges (RECIPES.md R6): parsing of real judge replies over the loopback
server, failures that fail loudly, ordering refused, and the judges through the real CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import FAST, make_client, run_inprocess
from xlebench.errors import ConfigError, LLMResponseError
from xlebench.eval.judges.check import dev_pairs
from xlebench.eval.judges.llm import Judges, judged_subtasks, parse_score10
from xlebench.eval.scorers import ScoreSettings, TextSimilarity
from xlebench.llm.client import Usage
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.testing.loopback import LoopbackLLMServer, Reply
from xlebench.testing.scripted_llm import ScriptedModel


@pytest.mark.parametrize(("reply", "value"), [
    ("TRUE", 1.0), ("true.", 1.0), ("ANSWERS_ARE_EQUIVALENT: FALSE", 0.0),
    ("ANSWERS ARE EQUIVALENT: true", 1.0), ("junk", None)])
def test_equivalence_judge_replies(tmp_path: Path, reply: str, value: float | None) -> None:
    with LoopbackLLMServer(lambda body: Reply(reply)) as srv:
        judges = Judges(["gem"], make_client(srv, tmp_path / "c", max_retries=1))
        if value is None:
            with pytest.raises(LLMResponseError):
                judges.judge("gem", "Q?", "a", "b", Usage())
            assert srv.request_count == 2  # asked again once, then failed: never a silent 0
        else:
            assert judges.judge("gem", "Q?", "a " * 300, "b", Usage()) == value


@pytest.mark.parametrize(("logprob", "reply", "read"), [
    (-0.1, "FALSE", 0.909), (1000.0, "FALSE", 0.0), (1000.0, "TRUE", 1.0),
    (float("nan"), "TRUE", 1.0), (float("inf"), "FALSE", 0.0), (-float("inf"), "TRUE", 1.0),
    (-float("inf"), "FALSE", 0.0)])
def test_p_true_reads_only_log_probabilities(tmp_path: Path, logprob: float, reply: str,
                                             read: float) -> None:
    """A server's log-probability of 1000, NaN or +-inf is no verdict (1000 raised
    OverflowError; a non-finite one stopped the evaluation where the reply was cached): the
    reply's text is read instead, the fallback is counted, and a rerun reads the same from
    the cache without asking the server again."""
    alts = {" TRUE": logprob, " FALSE": -2.4}
    way = "P(TRUE)" if math.isfinite(logprob) and logprob <= 0 else \
        "text (no usable log-probabilities)"
    with LoopbackLLMServer(lambda body: Reply(reply, logprobs=[alts])) as srv:
        for _ in range(2):
            judges = Judges(["gem"], make_client(srv, tmp_path / "c"), p_true=True)
            value = judges.score("gem", "Q?", "a", "b", Usage())
            assert value == pytest.approx(read, abs=1e-3)
            assert judges.read == {way: 1}
        assert srv.request_count == 1  # the second run read the cached reply


@pytest.mark.parametrize(("logprob", "text", "read"), [
    (float("inf"), "FALSE", 0.0), (float("nan"), "TRUE", 1.0), ("-0.1", "FALSE", 0.0),
    (True, "FALSE", 0.0), (-float("inf"), "TRUE", 1.0), (None, "TRUE", 1.0)])
def test_p_true_falls_back_to_the_text_where_a_log_probability_is_not_one(
        logprob: object, text: str, read: float) -> None:
    """inf, -inf and NaN (a JSON ``Infinity`` / ``NaN``; inf gave a NaN P(TRUE), scored "not
    equivalent"), null (how the cache stores them), a string or a bool are not
    log-probabilities."""
    from types import SimpleNamespace

    judges = Judges(["gem"], None, p_true=True)  # type: ignore[arg-type]
    reply = SimpleNamespace(text=text, top_logprobs=({" TRUE": logprob, " FALSE": -0.5},))
    assert judges._p_true_or_text(reply) == read
    assert sum(judges.read.values()) == 1


def test_score10_and_truncation(tmp_path: Path) -> None:
    assert parse_score10({"score": 7, "rationale": "ok"}) == 0.7
    with pytest.raises(ValueError):
        parse_score10({"score": 11})
    seen: list[str] = []

    def reply(body: dict) -> Reply:
        seen.append(body["messages"][-1]["content"])
        return Reply('{"score": 8, "rationale": "close"}')
    with LoopbackLLMServer(reply) as srv:
        judges = Judges(["score10"], make_client(srv, tmp_path / "c"), truncate_words=5)
        assert judges.judge("score10", "Q?", "one two three four five six seven", "ref",
                            Usage()) == 0.8
    assert seen[0].endswith("one two three four five") and "six" not in seen[0]


def test_judges_are_refused_for_ordering() -> None:
    recipes = {n: load_recipe(n) for n in ("single_summary", "summary_ordering",
                                           "object_retrieval")}
    assert judged_subtasks(recipes, None) == {"single_summary"}
    with pytest.raises(ConfigError, match="Neptune D.4"):
        judged_subtasks(recipes, ["summary_ordering"])
    with pytest.raises(ConfigError, match="no free-text answer"):
        judged_subtasks(recipes, ["object_retrieval"])


def test_sent_sim_of_a_text_with_itself_is_one() -> None:
    from xlebench.eval.metrics.bertscore import BERTScorer

    it = {"answer": {"text": "C cooks pasta in the kitchen."}}
    rows = [{"status": "ok", "response": "C cooks pasta in the kitchen.", "scores": {}},
            {"status": "ok", "response": "C washes the car outside.", "scores": {}}]
    TextSimilarity().model_metrics(rows, [it, it], ScoreSettings(), BERTScorer())
    assert rows[0]["scores"]["sent_sim"] == pytest.approx(1.0)
    assert rows[1]["scores"]["sent_sim"] < 0.8


@pytest.mark.slow  # four compiles through the CLI, a judge on the loopback (18 s): the slow tier CI runs
def test_judges_through_the_cli(tmp_path: Path) -> None:
    args = [*FAST, "stages=[library,persona,plan,simulate,annotate,evaluate]", "render=none",
            "tasks=[single_summary,summary_ordering]", "eval.bertscore=false",
            "eval.bootstrap=20", "eval.judges=[gem,score10]"]
    ran = run_inprocess(tmp_path, *args)
    assert ran.rc == 2 and "eval.judges needs a language model" in ran.text
    assert "judge=litellm" in ran.text  # the judge is its own model, not the compiling llm
    ran = run_inprocess(tmp_path, *args, "eval.judging.subtasks=[summary_ordering]",
                        "judge=litellm", "judge.api_base=http://127.0.0.1:9")
    assert ran.rc == 2 and "Neptune D.4" in ran.text
    with LoopbackLLMServer(ScriptedModel()) as srv:
        # The scripted judge calls only identical texts equivalent: it fails the dev set, so
        # its column is withheld and the table says why; with the threshold at 0 it prints.
        ran = run_inprocess(tmp_path, *args, "judge=litellm", f"judge.api_base={srv.base_url}",
                            "judge.backoff_s=0.01")
        assert ran.rc == 0, ran.text[-2000:]
        table = json.loads((tmp_path / "benchmarks" / "demo" / "results"
                            / "oracle_text_retrieval" / "table.json").read_text())
        check = table["judge_check"]
        assert check["n"] == len(dev_pairs()) >= 200 and not check["judges"]["gem"]["passed"]
        assert 0 < check["judges"]["gem"]["f1"] < 0.7
        assert "gem_judge" not in table["extra"]["single_summary"]
        md = (tmp_path / "benchmarks" / "demo" / "results" / "oracle_text_retrieval"
              / "table.md").read_text()
        assert "Judge gem (gem_judge; read by its text verdict): dev-set F1" in md
        assert "WITHHELD" in md
        text_f1 = check["judges"]["gem"]["f1"]
        # read by P(TRUE) (the scripted judge's grows with shared words), at the threshold
        # fitted on the dev set; its printed F1 is cross-fitted
        ran = run_inprocess(tmp_path, *args, "judge=litellm", f"judge.api_base={srv.base_url}",
                            "judge.backoff_s=0.01", "eval.judging.p_true=true",
                            "eval.judging.min_dev_f1=0")
        assert ran.rc == 0, ran.text[-2000:]
        table = json.loads((tmp_path / "benchmarks" / "demo" / "results"
                            / "oracle_text_retrieval" / "table.json").read_text())
        gem = table["judge_check"]["judges"]["gem"]
        assert gem["mode"] == "P(TRUE)" and 0.02 < gem["threshold"] < 0.98
        assert gem["f1"] > text_f1
        md = (tmp_path / "benchmarks" / "demo" / "results" / "oracle_text_retrieval"
              / "table.md").read_text()
        assert f"gem_judge (dev F1 {100 * gem['f1']:.1f}, P(TRUE) >= " in md
        ran = run_inprocess(tmp_path, *args, "judge=litellm", f"judge.api_base={srv.base_url}",
                            "judge.backoff_s=0.01", "eval.judging.min_dev_f1=0")
        assert ran.rc == 0, ran.text[-2000:]
        calls = srv.request_count
    record = json.loads((tmp_path / "benchmarks" / "demo" / "results" / "oracle_text_retrieval"
                         / "evaluation.json").read_text())
    assert record["config"]["judge"]["model"] == "gpt-4o-mini"
    table = json.loads((tmp_path / "benchmarks" / "demo" / "results" / "oracle_text_retrieval"
                        / "table.json").read_text())
    extra = table["extra"]["single_summary"]
    assert {"gem_judge", "score10_judge"} <= set(extra)
    assert extra["score10_judge"]["all"]["mean"] == 0.5  # the scripted grade: 5 of 10
    # The floor's judge value is the judged blind member's (the strongest on the headline: a
    # reference of other logs), which the scripted judge calls equivalent exactly where it is
    # the item's own reference (a video several logs share).
    floor = extra["gem_judge"]["all"]["floor"]
    member = floor["member"]
    assert member.removesuffix("_remembered") in ("constant", "duration_memory")
    items = [json.loads(x) for x in (tmp_path / "benchmarks" / "demo" / "annotations"
                                     / "single_summary.jsonl").read_text().splitlines()]
    scores = {r["item_id"]: r for r in map(json.loads, (
        tmp_path / "benchmarks" / "demo" / "results" / "oracle_text_retrieval" / "scores.jsonl")
        .read_text().splitlines())}
    assert len(scores) >= len(items)
    from xlebench.eval.panel.blind import panel_rows
    from xlebench.tasks.recipe.registry import load_recipe

    panel = panel_rows(items, {"single_summary": load_recipe("single_summary")},
                       ScoreSettings(bertscore=False), seed=0, draws=1)
    same = [r["response"].lower() == it["answer"]["text"].lower()
            for r, it in zip(panel.rows["single_summary"][member], items, strict=True)]
    assert floor["mean"] == pytest.approx(sum(same) / len(same), abs=1e-4)
    assert "gem_judge" not in table["extra"]["summary_ordering"]
    assert calls > 0


def test_judges_read_clean_references_and_skip_time_only_items() -> None:
    """The reference a judge reads has no <Tk> tokens and no Evidence line; the reply's spans
    are cut too; an item answered by spans alone is not judged at all."""
    seen: list[tuple[str, str]] = []

    class Recording(Judges):
        def judge(self, name, question, candidate, reference, usage):
            seen.append((candidate, reference))
            return 1.0

    grounded = {"item_id": "g", "subtask": "multihop_qa", "query": "How many times?",
                "answer": {"text": "You <T1>opened the fridge</T1> 3 times.\n"
                                   "Evidence: [10:00:10 - 10:00:13]", "time_only": False}}
    timed = {"item_id": "t", "subtask": "multihop_qa", "query": "When did I open it?",
             "answer": {"text": "<T1></T1>\nEvidence: [10:00:10 - 10:00:13]",
                        "time_only": True}}
    rows = [{"status": "ok", "response": "You opened it 3 times.\nEvidence: [10:00:10 - "
             "10:00:12]", "scores": {}}, {"status": "ok", "response": "[10:00:10 - 10:00:12]",
                                         "scores": {}}]
    Recording(["gem"], llm=None).apply(rows, [grounded, timed], {"multihop_qa"}, Usage())
    assert seen == [("You opened it 3 times.", "You opened the fridge 3 times.")]
    assert rows[0]["scores"] == {"gem_judge": 1.0} and rows[1]["scores"] == {}


@pytest.mark.parametrize(("threshold", "equivalent"), [(0.6, 1.0), (0.8, 0.0), (0.2, 1.0),
                                                       (0.75, 0.0)])
def test_gem_counts_a_reply_equivalent_at_its_fitted_threshold(tmp_path: Path, threshold: float,
                                                               equivalent: float) -> None:
    """A P(TRUE) of 0.7 is equivalent at a fitted threshold of 0.6 and not at 0.75 or 0.8:
    the threshold fitted on the dev set decides, never a fixed 0.5."""
    alts = {" TRUE": math.log(0.7), " FALSE": math.log(0.3)}
    with LoopbackLLMServer(lambda body: Reply("TRUE", logprobs=[alts])) as srv:
        judges = Judges(["gem"], make_client(srv, tmp_path / "c"), p_true=True,
                        thresholds={"gem": threshold})
        assert judges.judge("gem", "Q?", "a", "b", Usage()) == equivalent
