"""Scoring rows and the results table: every item counts, the paper protocol as a labelled
second column, the blind panel's strongest member as the floor, pooled counting, clustered
bootstrap."""

from __future__ import annotations

import pytest

from xlebench.config.schema import EvalConfig
from xlebench.eval.markdown import to_markdown
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.score import ScoreSettings, score_items
from xlebench.eval.table import clustered_ci, results_table
from xlebench.tasks.recipe.registry import builtin_names, groups, load_recipe

RECIPES = {name: load_recipe(name) for name in builtin_names()}
GROUPS = groups(list(RECIPES.values()))

SETTINGS = ScoreSettings(bertscore=False, refusal_patterns=tuple(EvalConfig().refusal_patterns),
                         no_information_patterns=tuple(EvalConfig().no_information_patterns))


def _item(i: int, sub: str, cat: str, log: str, period=(0, 600), query: str = "",
          **answer) -> dict:
    base = {"text": "", "spans": [], "counts": {}, "order": []}
    return {"item_id": f"{log}-{sub}-{i}", "subtask": sub, "lifelog_id": log, "category": cat,
            "query": query or f"A question of {sub}?", "provenance": {},
            "period": {"start_s": period[0], "end_s": period[1]}, "answer": {**base, **answer}}


ITEMS = [
    _item(0, "object_retrieval", "short", "a", spans=[[100, 110]]),
    _item(1, "object_retrieval", "short", "b", spans=[[200, 210]]),
    _item(2, "object_retrieval", "long", "c", spans=[[300, 310]]),
    _item(3, "moment_retrieval", "short", "a", spans=[[0, 60], [120, 180]]),
    _item(4, "action_counting", "long", "c", counts={"cut onion": 2, "wash pan": 1}),
    _item(5, "action_counting", "long", "d", counts={"open door": 1, "a": 1, "b": 1, "c": 1}),
    _item(6, "summary_ordering", "long", "c", order=[2, 0, 1],
          query="Please rank ... Summary 0: C ate dinner. Summary 1: C read. Summary 2: C woke."),
    _item(7, "single_summary", "short", "a", text="C cooks pasta."),
]
RESPONSES = {
    "a-object_retrieval-0": "[00:01:41 - 00:01:49]",                 # hit
    "b-object_retrieval-1": "There is no information available.",    # no-information
    "c-object_retrieval-2": "[00:00:00 - 00:00:05]",                 # miss
    "a-moment_retrieval-3": "[00:02:05 - 00:02:55], [00:00:00 - 00:00:01]",  # second GT span
    "c-action_counting-4": "cut onion: 2; wash pan: 3",             # 1 of 2 actions
    "d-action_counting-5": "open door: 1; a: 1; b: 1; c: 1",        # 4 of 4
    "c-summary_ordering-6": "Correct order of the summaries: 2, 1, 0",
    "a-single_summary-7": "C cooks pasta.",
}


def _table(responses, items=ITEMS):
    rows = score_items(items, responses, RECIPES, SETTINGS)
    panel = panel_rows(items, RECIPES, SETTINGS, seed=0, draws=16)
    return rows, results_table(rows, panel, groups=GROUPS, n_boot=200, seed=1)


def test_headline_counts_every_item_and_the_paper_column_drops_no_information() -> None:
    rows, t = _table(RESPONSES)
    status = {r["item_id"]: r["status"] for r in rows}
    assert status["b-object_retrieval-1"] == "no_information"
    obj = t["rows"]["object_retrieval"]
    assert (obj["short"]["mean"], obj["short"]["n"]) == (0.5, 2)
    assert (obj["short"]["paper"]["mean"], obj["short"]["paper"]["n"]) == (1.0, 1)
    assert obj["short"]["no_information"] == 1 and obj["short"]["missing"] == 0
    assert (obj["all"]["mean"], obj["all"]["n"]) == (pytest.approx(1 / 3, abs=1e-4), 3)
    assert t["rows"]["moment_retrieval"]["all"]["mean"] == 1.0
    assert t["rows"]["summary_ordering"]["all"]["mean"] == pytest.approx(1 / 3, abs=1e-4)
    assert t["rows"]["single_summary"]["all"]["mean"] == 1.0
    avg = t["rows"]["temporal localisation AVG"]["all"]
    assert (avg["mean"], avg["n"]) == (pytest.approx((1 / 3 * 3 + 1.0 * 1) / 4, abs=1e-4), 4)


def test_counting_is_pooled_over_actions_with_the_item_mean_secondary() -> None:
    _, t = _table(RESPONSES)
    assert t["rows"]["action_counting"]["all"]["mean"] == pytest.approx(5 / 6, abs=1e-4)
    item_mean = t["extra"]["action_counting"]["count_acc_item"]["all"]["mean"]
    assert item_mean == pytest.approx((0.5 + 1.0) / 2, abs=1e-4)


def test_answering_only_easy_items_cannot_flatter() -> None:
    """A perfect reply to half the items is worth half, not 100."""
    items = [_item(i, "object_retrieval", "short", f"log{i % 7}", spans=[[10 * i, 10 * i + 8]])
             for i in range(40)]
    perfect = {it["item_id"]: f"[00:00:{10 * i:02d} - 00:00:{10 * i + 8:02d}]"
               if i < 6 else f"[00:{i // 6:02d}:{10 * i % 60:02d} - 00:{i // 6:02d}:"
               f"{10 * i % 60 + 8:02d}]" for i, it in enumerate(items)}
    _, full = _table(perfect, items)
    assert full["rows"]["object_retrieval"]["all"]["mean"] == 1.0
    half = {k: v for k, v in list(perfect.items())[:20]}
    rows, t = _table(half, items)
    cell = t["rows"]["object_retrieval"]["all"]
    assert cell["mean"] == 0.5 and cell["missing"] == 20
    assert cell["paper"]["mean"] == 0.5, "missing replies are never left out"


def test_floors_are_the_strongest_blind_member_on_the_same_items() -> None:
    _, t = _table(RESPONSES)
    obj = t["rows"]["object_retrieval"]["all"]["floor"]
    assert 0 <= obj["mean"] < 0.2 and obj["n"] == 3
    assert obj["member"] in obj["panel"] and obj["mean"] == max(
        v for v in obj["panel"].values() if v is not None)
    order = t["rows"]["summary_ordering"]["all"]["floor"]
    assert order["member"] in ("random_order", "shown_order") and order["n"] == 1
    counting = t["rows"]["action_counting"]["all"]["floor"]
    assert counting["mean"] == pytest.approx(5 / 6, abs=1e-4), "other logs' count (1)"
    assert t["panel"]["single_summary"]["sees"]["query_echo"] == "the query"


def test_panel_rows_are_reproducible_and_independent_of_item_order() -> None:
    def flat(panel):
        return sorted((sub, m, r["item_id"], sorted(r["scores"].items()))
                      for sub, members in panel.rows.items() for m, rows in members.items()
                      for r in rows)
    a = panel_rows(ITEMS, RECIPES, SETTINGS, seed=3, draws=16)
    assert flat(a) == flat(panel_rows(list(reversed(ITEMS)), RECIPES, SETTINGS, seed=3,
                                      draws=16))
    assert flat(a) != flat(panel_rows(ITEMS, RECIPES, SETTINGS, seed=4, draws=16))


def test_markdown_shows_floor_paper_and_failures() -> None:
    _, t = _table(RESPONSES)
    md = to_markdown(t, "demo — ORACLE", ["Answers from: Ego4D NLQ (object_retrieval)."])
    assert md.startswith("### demo — ORACLE\n\nAnswers from: Ego4D NLQ")
    assert "| floor (all) | paper protocol (all) | not answered (all) |" in md
    line = next(x for x in md.splitlines() if x.startswith("| object_retrieval |"))
    assert "33.3 " in line and "n=3" in line and "· floor" in line and "1 no-information" in line


def test_missing_and_unparseable_replies_are_counted() -> None:
    rows = score_items(ITEMS[:2], {"a-object_retrieval-0": "somewhere in the kitchen"},
                       RECIPES, SETTINGS)
    assert [r["status"] for r in rows] == ["unparseable", "missing"]
    assert all(r["scores"]["R@5,0.3"] == 0.0 for r in rows)


def test_clustered_bootstrap_resamples_logs() -> None:
    values = [("a", 1.0, 1.0)] * 10 + [("b", 0.0, 1.0)] * 10 + [("c", 1.0, 1.0)]
    lo, hi = clustered_ci(values, 500, seed=0)
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert clustered_ci(values, 500, seed=0) == (lo, hi), "seeded: reproducible"
    assert clustered_ci([("a", 1.0, 1.0)], 100, 0) is None, "one cluster: no interval"


def test_the_papers_layout_is_one_setting_away() -> None:
    """``eval.layout=paper`` prints X-LeBench's Table 5 metrics (ROUGE-L and BERTScore per
    length for the summaries) in the main table; the validity headline (content-word
    ROUGE-L) moves to the secondary metrics, where the default layout has ROUGE-L."""
    items = ITEMS + [_item(8, "single_summary", "long", "b", text="C washes the car.")]
    responses = {**RESPONSES, "b-single_summary-8": "C washes a red car."}
    settings = ScoreSettings(**{**vars(SETTINGS), "bertscore": True})
    from xlebench.eval.metrics.bertscore import BERTScorer

    rows = score_items(items, responses, RECIPES, settings, BERTScorer())
    t = results_table(rows, panel_rows(items, RECIPES, SETTINGS, seed=0, draws=4),
                      groups=GROUPS, n_boot=50, seed=1)
    t["paper_metrics"] = {n: list(r.paper_layout) for n, r in RECIPES.items()}
    main = [ln for ln in to_markdown(t).split("\n\n")[0].splitlines() if "single_summary" in ln]
    assert [ln.split("|")[2].strip() for ln in main] == ["rougeL_content"]
    t["layout"] = "paper"
    text = to_markdown(t)
    main, secondary = text.split("\n\n")[1], text.split("\n\n")[2]
    rows_shown = [ln.split("|")[2].strip() for ln in main.splitlines() if "single_summary" in ln]
    assert rows_shown == ["rougeL", "bertscore_f1"]
    assert "| single_summary | rougeL_content |" in secondary
    assert "| object_retrieval | R@5,0.3 |" in main  # a headline that is the paper's stays
    short, long = (t["extra"]["single_summary"]["rougeL"][c]["mean"] for c in ("short", "long"))
    assert short == 1.0 and 0 < long < 1  # per length, as the paper prints them
    footer = text.rstrip().splitlines()[-1]  # says what the main cells hold in this layout
    assert footer.startswith("Scores x100 by the paper's protocol: refusals and "
                             "no-information replies are left out")
    assert not to_markdown({**t, "layout": "validity"}).rstrip().splitlines()[-1].startswith(
        "Scores x100 by the paper's protocol")


def test_the_papers_layout_prints_table_5s_average_row_and_protocol() -> None:
    """Under ``eval.layout=paper`` an AVG row prints the paper's metric its members share
    (the summaries' ROUGE-L, pooled over their items, not the validity headline), and every
    cell of the main table leaves refusals and no-information replies out, as Table 5 does;
    the column beside it holds every item's figure."""
    items = [_item(k, sub, "short", f"l{k}", text="C washes the car.")
             for k, sub in enumerate(["single_summary", "multi_summary"] * 3)]
    replies = {it["item_id"]: "C washes the car." for it in items}
    replies[items[0]["item_id"]] = "There is no information available."
    rows = score_items(items, replies, RECIPES, SETTINGS)
    paper = {n: r.paper_layout for n, r in RECIPES.items()}
    t = results_table(rows, panel_rows(items, RECIPES, SETTINGS, seed=0, draws=4),
                      groups=GROUPS, n_boot=20, seed=1, paper=paper)
    avg = next(n for n, cells in t["rows"].items() if cells["all"].get("members"))
    assert set(t["rows"][avg]["all"]["members"]) == {"single_summary", "multi_summary"}
    pooled = t["extra"][avg]["rougeL"]["all"]
    assert pooled["n"] == 6 and pooled["mean"] == pytest.approx(5 / 6, abs=1e-4)
    assert pooled["paper"]["n"] == 5 and pooled["paper"]["mean"] == pytest.approx(1.0)
    t.update(layout="paper", paper_metrics={n: list(m) for n, m in paper.items()})
    main = to_markdown(t).split("\n\n")[1]
    line = next(ln for ln in main.splitlines() if ln.startswith(f"| {avg} |"))
    assert line.split("|")[2].strip() == "rougeL"
    assert line.split("|")[3].strip().startswith("100.0") and "n=5" in line.split("|")[3]
    assert "every item (all)" in main.splitlines()[0]
    assert not any(ln.startswith(f"| {avg} | rougeL_content") for ln in main.splitlines())


def test_the_panel_computes_model_metrics_only_where_a_floor_or_verdict_reads_them() -> None:
    """A system that answers none of a subtask's items (its source holds nothing there) gets
    no row, so no floor, for it: the panel leaves that subtask's model metrics out, and the
    table is the one every subtask's model metrics give."""
    from xlebench.eval.metrics.bertscore import BERTScorer
    from xlebench.eval.panel.scoring import model_subtasks

    texts = ["C cooks pasta.", "C walks the dog.", "C reads a book.", "C washes the car."]
    items = [_item(20 + k, sub, "short", log, text=t) for k, (sub, log, t) in enumerate(
        (sub, log, t) for sub in ("single_summary", "multi_summary")
        for log, t in zip("abcd", texts, strict=True))]
    settings = ScoreSettings(**{**vars(SETTINGS), "bertscore": True})
    scorer = BERTScorer()
    rows = [r for r in score_items(items, {it["item_id"]: "C cooks." for it in items}, RECIPES,
                                   settings, scorer) if r["subtask"] == "single_summary"]
    assert model_subtasks(rows, RECIPES) == {"single_summary"}
    every = panel_rows(items, RECIPES, settings, seed=0, draws=4, bertscorer=scorer)
    some = panel_rows(items, RECIPES, settings, seed=0, draws=4, bertscorer=scorer,
                      models=model_subtasks(rows, RECIPES))
    assert some.rows["single_summary"] == every.rows["single_summary"]
    assert all("bertscore_f1" in r["scores"] for m in every.rows["multi_summary"].values()
               for r in m if r["status"] == "ok")
    assert not any("bertscore_f1" in r["scores"] or "sent_sim" in r["scores"]
                   for m in some.rows["multi_summary"].values() for r in m)
    assert results_table(rows, some, n_boot=50, seed=1) == results_table(rows, every,
                                                                         n_boot=50, seed=1)


def test_a_verdict_that_reads_a_model_metric_keeps_it_in_the_panel() -> None:
    from types import SimpleNamespace

    from xlebench.eval.panel.scoring import model_subtasks

    recipes = {"a": SimpleNamespace(primary="sent_sim", check=None),
               "b": SimpleNamespace(primary="rougeL", check="bertscore_f1"),
               "c": SimpleNamespace(primary="rougeL", check=None)}
    assert model_subtasks([{"subtask": "d"}], recipes) == {"a", "b", "d"}
