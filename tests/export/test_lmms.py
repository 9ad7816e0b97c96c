"""The exported lmms-eval tasks in the real lmms-eval package (``make test-lmms``, its own
environment): its task manager loads every task and the group from ``--include_path``, and a
run with a fixed-answer model gives the numbers ``xlebench stages=[evaluate]
eval.predictions=...`` gives for the same replies."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import FAST, cli_env, run_cli
from xlebench.export.lmms_task import lmms_metric

pytestmark = pytest.mark.lmms

SUBTASKS = ("object_retrieval", "people_retrieval", "moment_retrieval", "single_summary",
            "multi_summary", "holistic_summary", "action_counting", "summary_ordering")
ARGS = [*FAST, "stages=[library,persona,plan,simulate,render,annotate,export]",
        "render.max_logs=null", "eval.bertscore=false", "eval.bootstrap=20",
        "export.formats=[hf,lmms_eval]"]


def _replies(bench: Path) -> dict[str, str]:
    """Gold answers for two items in three, a no-information reply for the rest, and one
    unparseable reply: every status the scorers know."""
    out = {}
    for sub in SUBTASKS:
        for k, line in enumerate((bench / "annotations" / f"{sub}.jsonl").read_text()
                                 .splitlines()):
            it = json.loads(line)
            out[it["item_id"]] = (it["answer"]["text"] if k % 3 else
                                  "There is no information available." if k % 2 else "blah")
    return out


def _fixed_model(replies: dict[str, str]):
    """An lmms-eval model answering each document with a fixed reply found by its item id."""
    lmms_model = pytest.importorskip("lmms_eval.api.model",
                                     reason="lmms-eval is not installed: make test-lmms")

    class FixedModel(lmms_model.lmms):
        def __init__(self, replies: dict[str, str]) -> None:
            super().__init__()
            self.replies, self.task_dict, self.seen = replies, {}, 0

        def generate_until(self, requests) -> list[str]:
            out = []
            for req in requests:
                context, _gen, _visual, doc_id, task, split = req.args
                doc = self.task_dict[task][split][doc_id]
                assert doc["query"] in context and "Recordings in the video" in context
                self.seen += 1
                out.append(self.replies[doc["item_id"]])
            return out

        def loglikelihood(self, requests):  # pragma: no cover - generate_until tasks only
            raise NotImplementedError

        def generate_until_multi_round(self, requests):  # pragma: no cover
            raise NotImplementedError

    return FixedModel(replies)


def test_lmms_eval_loads_and_scores_like_xlebench(tmp_path: Path, monkeypatch) -> None:
    model = _fixed_model({})
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    run_cli(tmp_path, *ARGS, env=cli_env(HF_HOME=str(tmp_path / "hf_home")))
    bench = tmp_path / "benchmarks" / "demo"
    replies = _replies(bench)
    preds = tmp_path / "fixed.jsonl"
    preds.write_text("".join(json.dumps({"item_id": k, "response": v}) + "\n"
                             for k, v in replies.items()))
    run_cli(tmp_path, *ARGS, "stages=[evaluate]", "eval.systems=[]",
            f"eval.predictions={preds}")
    table = json.loads((bench / "results" / "predictions-fixed" / "table.json").read_text())

    from lmms_eval.evaluator import simple_evaluate
    from lmms_eval.tasks import TaskManager

    moved = tmp_path / "elsewhere" / "bench"  # the exported folder works wherever it is
    moved.parent.mkdir()
    bench.rename(moved)
    manager = TaskManager(include_path=str(moved / "export" / "lmms_eval"),
                          include_defaults=False)
    names = {f"xlebench_{s}" for s in SUBTASKS}
    assert names | {"xlebench"} <= set(manager.all_tasks)
    model.replies = replies
    out = simple_evaluate(model=model, tasks=["xlebench"], task_manager=manager,
                          batch_size=1, log_samples=False)
    assert model.seen == len(replies)
    checked = 0
    for sub in SUBTASKS:
        got = out["results"][f"xlebench_{sub}"]
        cells = {table["rows"][sub]["all"]["metric"]: table["rows"][sub]["all"],
                 **{m: c["all"] for m, c in table["extra"][sub].items()}}
        for metric, cell in cells.items():
            value = got[f"{lmms_metric(metric)},none"]
            if cell["mean"] is None:
                assert math.isnan(value)
            else:
                assert value == pytest.approx(cell["mean"], abs=5e-5), (sub, metric)
            checked += 1
    assert checked >= 2 * len(SUBTASKS)
    assert all("," not in key.split(",")[0] for key in got)
    group = out["results"]["xlebench"]
    assert 0 <= group["score,none"] <= 1, "the group reports its score"
