"""A benchmark scored a subtask per core (`score_spread`) gives the rows of one call."""

from __future__ import annotations

import json
import random

import pytest

from tests.eval.test_blind import _item
from xlebench.config.schema import EvalConfig
from xlebench.eval.score import score_items, score_spread
from xlebench.eval.scorers import ScoreSettings
from xlebench.runner import cores
from xlebench.runner.cores import using
from xlebench.tasks.recipe.registry import load_recipe

S = ScoreSettings(bertscore=False, refusal_patterns=tuple(EvalConfig().refusal_patterns))
WORDS = "pasta rice soup bread salad eggs bicycle garden laptop email dishes laundry".split()


def _benchmark() -> tuple[list[dict], dict[str, str]]:
    rng = random.Random(5)

    def text(n: int) -> str:
        return "C " + " and ".join(f"cooks {rng.choice(WORDS)}" for _ in range(n)) + "."

    items, replies = [], {}
    for log in (f"log{k}" for k in range(6)):
        for k in range(4):
            items.append(_item("single_summary", log, k, f"Summarize 0{k}:00 - 0{k}:10.",
                               text=text(3)))
        items.append(_item("holistic_summary", log, 0, "Summarize the day.", text=text(40)))
        shown = [text(2) for _ in range(4)]
        items.append(_item("summary_ordering", log, 0, " ".join(
            f"Summary {i}: {t}" for i, t in enumerate(shown)), order=rng.sample(range(4), 4)))
        options = [text(1) for _ in range(5)]
        items.append(_item("egoschema_mcq", log, 0, "What does C do? " + " ".join(options),
                           options=options, label=2, text=options[2]))
    for it in items:  # every kind of reply: fair, missing, refused, unreadable, empty
        pick = rng.random()
        if pick < 0.1:
            continue
        replies[it["item_id"]] = (
            "I cannot help with that." if pick < 0.2 else "" if pick < 0.25
            else "Correct order of the summaries: 3, 1, 0, 2" if it["subtask"] ==
            "summary_ordering" else f"({rng.randrange(5)})" if it["subtask"] == "egoschema_mcq"
            else text(3 if it["subtask"] == "single_summary" else 30))
    rng.shuffle(items)  # subtasks interleaved: the rows come back in the items' order
    return items, replies


@pytest.mark.parametrize("n", [1, 2])
def test_rows_equal_one_call_at_any_core_count(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(cores, "available", lambda: 2)  # also in a test worker's share of one
    items, replies = _benchmark()
    recipes = {sub: load_recipe(sub) for sub in {it["subtask"] for it in items}}
    whole = score_items(items, replies, recipes, S)
    with using(n):
        spread = score_spread(items, replies, recipes, S)
    assert json.dumps(spread, sort_keys=True) == json.dumps(whole, sort_keys=True)
    statuses = {r["status"] for r in whole}
    assert {"ok", "missing", "refusal"} <= statuses
    assert any(r["scores"].get("window_id") not in (None, 0.5) for r in whole)
