"""The script in the public view (`xlebench.eval.panel.public.script_of`, `Public.chunk`) and
the blind members that read it (`xlebench.eval.scorers.script`): a life log's plan is public,
so the floor prices in what it says about a period."""

from __future__ import annotations

import random

from tests.eval.test_blind import S, _item, _recipes
from xlebench.eval.metrics import rouge_l
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.panel.public import Public, script_of

ACTS = {"cook dinner": ("Cooking", "C cooks pasta in the kitchen and stirs the pot."),
        "cycle to work": ("Bike", "C cycles to work on the bicycle and holds the handlebar."),
        "play the piano": ("Playing music", "C plays the piano and turns the sheet music."),
        "wash the car": ("Car washing", "C washes the car with a sponge and a bucket.")}


def _logs(n: int, seed: int = 0) -> list[dict]:
    """Life logs of four chunks an hour apart, their activities drawn, each chunk matched to
    a video of its own (the source the panel folds by)."""
    rng, out = random.Random(seed), []
    for k in range(n):
        segs = []
        for j in range(4):
            act = rng.choice(sorted(ACTS))
            chunk = {"chunk_id": f"p{k}-c{j}", "activity": act, "scenarios": [ACTS[act][0]],
                     "description": f"C is going to {act}.", "start_s": 3600.0 * j,
                     "end_s": 3600.0 * j + 1800, "slot": "x"}
            segs.append({"chunk": chunk, "video_uid": f"v{k}-{j}", "start_s": 3600.0 * j + 60})
        out.append({"lifelog_id": f"log{k}", "segments": segs})
    return out


def _items(logs: list[dict]) -> list[dict]:
    out = []
    for log in logs:
        for j, seg in enumerate(log["segments"]):
            it = _item("single_summary", log["lifelog_id"], j,
                       f"Summarize the time period {j:02d}:00 - {j:02d}:10.",
                       text=ACTS[seg["chunk"]["activity"]][1])
            it["evidence"] = [{"video_uid": seg["video_uid"]}]
            out.append(it)
    return out


def test_the_script_is_the_plans_chunks_and_never_the_matching() -> None:
    logs = _logs(2)
    script = script_of(logs)
    assert set(script) == {"log0", "log1"} and len(script["log0"]) == 4
    assert all(set(c) == {"activity", "scenarios", "description", "start_s", "end_s"}
               for c in script["log0"]), "no video, slot or chunk id"
    view = Public(_items(logs), script)
    item = _items(logs)[2]
    assert view.chunk(item)["activity"] == logs[0]["segments"][2]["chunk"]["activity"]
    assert view.script_text(item).startswith(logs[0]["segments"][2]["chunk"]["activity"])
    assert Public(_items(logs)).script_text(item) == "", "no script, nothing read"
    assert Public(_items(logs), script).key != Public(_items(logs)).key


def test_the_plan_members_read_what_the_plan_says_and_the_floor_prices_it_in() -> None:
    """References follow the planned activity: the plan's readers score far above the
    members that never read it, the printed floor is theirs, and no reader of the plan
    answers an item from its own reference (fitted on other videos only)."""
    logs = _logs(12)
    items = _items(logs)
    panel = panel_rows(items, _recipes("single_summary"), S, seed=0, draws=2,
                       script=script_of(logs))
    rows = panel.rows["single_summary"]

    def mean(member: str) -> float:
        return sum(r["scores"]["rougeL_content"] for r in rows[member]) / len(rows[member])
    assert mean("plan_memory") > 0.9 and mean("plan_memory") > mean("constant") + 0.3
    assert mean("plan_echo") > mean("generic")
    blind = panel_rows(items, _recipes("single_summary"), S, seed=0, draws=2)
    assert "plan_memory" in blind.rows["single_summary"]  # without a script: a fallback
    assert sum(r["scores"]["rougeL_content"] for r in blind.rows["single_summary"]
               ["plan_memory"]) < sum(r["scores"]["rougeL_content"] for r in rows["plan_memory"])
    for it, row in zip(items, rows["plan_memory"], strict=True):
        others = [o["answer"]["text"] for o in items if o["evidence"] != it["evidence"]]
        assert any(rouge_l(row["response"], o) == 1.0 for o in others), "from other videos"


def test_every_recipe_kind_has_a_reader_of_the_plan() -> None:
    """Ordering, choice, retrieval and counting each have a member that reads the script,
    and it uses it: the summaries in the plan's order, the option most like the chunk,
    windows inside the chunk the question names, counts by whether the chunk names the act."""
    from xlebench.eval.scorers.base import PICKS, BlindContext
    from xlebench.eval.scorers.choice import _by_plan as choose
    from xlebench.eval.scorers.order import _by_plan as order
    from xlebench.eval.scorers.spans import plan_windows

    logs = _logs(1, seed=3)
    chunks = [s["chunk"] for s in logs[0]["segments"]]
    view = Public([], script_of(logs))
    ctx = BlindContext(S, None, 1, view)
    base = {"lifelog_id": "log0", "period": {"start_s": 0.0, "end_s": 4 * 3600.0}}
    texts = [ACTS[c["activity"]][1] for c in chunks]
    distinct = list(dict.fromkeys(c["activity"] for c in chunks))
    shuffled = sorted(range(len(distinct)), key=lambda k: -k)
    query = " ".join(f"Summary {j}: {ACTS[distinct[k]][1]}" for j, k in enumerate(shuffled))
    said = order({**base, "query": query}, None, ctx)
    assert said.endswith(", ".join(str(shuffled.index(k)) for k in range(len(distinct))))
    first = {**base, "period": {"start_s": 0.0, "end_s": 600.0}, "query": "What does C do?",
             "answer": {"options": sorted(set(texts) | {ACTS["wash the car"][1]}), "label": 0}}
    picks = choose(first, None, ctx)[PICKS]
    assert [first["answer"]["options"][k] for k in picks] == [texts[0]]
    asked = {**base, "query": f"When did I ({chunks[2]['activity']})?"}
    windows = plan_windows(asked, {"width": 60.0, "bins": [0]}, 3, view)
    assert all(chunks[2]["start_s"] <= a < b <= chunks[2]["end_s"] for a, b in windows)
    from xlebench.eval.scorers.counts import _by_plan as count
    from xlebench.eval.scorers.counts import fit_plan_counts

    def counted(act: str, n: int, period: float) -> dict:
        return {**base, "period": {"start_s": period, "end_s": period + 600},
                "answer": {"counts": {act: n}}}
    named = chunks[0]["activity"].split()[0]  # the first chunk's verb: its plan names it
    train = [counted(named, 5, 0.0), counted(named, 5, 60.0), counted("jump rope", 1, 0.0)]
    model = fit_plan_counts(train, view)
    assert count(counted(named, 0, 120.0), model, ctx) == f"{named}: 5"


def test_short_grounded_and_event_answers_have_readers_of_the_plan_too() -> None:
    """Neptune's short answers, MultiHop's grounded ones and VidSitu's verbs: each panel has
    a member that reads the script, and it says what the plan says."""
    from xlebench.eval.scorers.base import BlindContext
    from xlebench.eval.scorers.events import _plan_verbs, fit_plan_verbs
    from xlebench.eval.scorers.grounded import _by_plan as grounded

    for name in ("neptune_qa", "multihop_qa", "event_srl", "event_roles"):
        members = {b.name for b in _recipes(name)[name].scorer.blind() if b.public}
        assert any(m.startswith("plan_") for m in members) or name == "event_roles", name
    logs = _logs(1, seed=5)
    chunk = logs[0]["segments"][1]["chunk"]
    view = Public([], script_of(logs))
    ctx = BlindContext(S, None, 1, view)
    item = {"lifelog_id": "log0", "period": {"start_s": 3600.0, "end_s": 5400.0},
            "query": f"Where did I {chunk['activity']}?", "answer": {"events": [{}] * 2}}
    reply = grounded(item, {"positions": {"bins": [0], "width": 30.0}, "k": 1}, ctx)
    assert chunk["activity"] in reply
    train = [{**item, "answer": {"events": [{"verbs_gt": ["stir"]}, {"verbs_gt": ["pour"]}]}}]
    assert "stir" in _plan_verbs(item, fit_plan_verbs(train, view), ctx)
