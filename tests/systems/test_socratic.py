"""Socratic / Retrieve-Socratic prompts: the paper's time-stamped context, answered via litellm."""

from __future__ import annotations

from tests.conftest import make_client
from xlebench.systems.baselines.captions import Caption
from xlebench.systems.baselines.socratic import SocraticBaseline, build_context, build_messages
from xlebench.tasks.recipe.registry import load_recipe

RECIPE = load_recipe("object_retrieval")

CAPS = [Caption(t, "v", t - 25000, f"C does thing {k}.") for k, t in
        enumerate([25000.0, 25010.0, 25040.0, 40000.0])]
ITEM = {"item_id": "x", "subtask": "object_retrieval", "query": "Where is the pot in the record "
        "provided for the 06:56 - 06:58 time period?",
        "period": {"start_s": 24990.0, "end_s": 25100.0}}


def test_context_is_the_papers_time_stamped_format() -> None:
    full = build_context(ITEM, CAPS, retrieve=False)
    lines = full.splitlines()
    assert lines[0] == ("The following records are recorded during time of [06:56:30 – "
                        "06:57:00]: C does thing 0. C does thing 1.")
    assert len(lines) == 3, "captions grouped into 30-second records"
    only = build_context(ITEM, CAPS, retrieve=True)
    assert "11:06:30" not in only and "11:06:30" in full, "retrieve keeps the queried period"
    msgs = build_messages(ITEM, RECIPE.answer_format, CAPS, retrieve=True)
    assert msgs[0]["content"].startswith("Task: socratic.")
    assert "Life Recording Assistant" in msgs[0]["content"]
    assert ITEM["query"] in msgs[1]["content"] and "[HH:MM:SS - HH:MM:SS]" in msgs[1]["content"]


def test_socratic_answers_through_litellm_and_caches(server, tmp_path) -> None:
    client = make_client(server, tmp_path)
    captions = type("Fixed", (), {"reads": None, "captions": lambda self, log: CAPS})()
    base = SocraticBaseline(lambda m: client.complete(m).text, captions, retrieve=True)
    assert base.name == "retrieve_socratic"
    assert base.respond([ITEM], {"object_retrieval": RECIPE}, {}) == {
        "x": "[06:56:30 - 06:57:00]"}
    assert base.answer(ITEM, RECIPE, {}, CAPS) == "[06:56:30 - 06:57:00]"
    assert base.answer(ITEM, RECIPE, {}, CAPS) == "[06:56:30 - 06:57:00]"
    assert server.request_count == 1
