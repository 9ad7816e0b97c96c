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
        "cycle to work": ("Bike", "C rides the bicycle on the road and holds the handlebar."),
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
