"""The blind panel and the validity check on small benchmarks built so that a blind trick
works: the panel must catch each trick (its member becomes the printed floor), learned
strategies must never see the answers of the log they answer, the option-only filter must
drop what option rules solve, and a recipe whose oracle cannot beat the panel says so."""

from __future__ import annotations

import random

import pytest

from xlebench.eval.markdown import to_markdown
from xlebench.eval.panel.blind import (
    _Apart,
    _fitted,
    folds,
    own_videos,
    panel_rows,
    training,
)
from xlebench.eval.panel.folding import PER_ITEM_FIT
from xlebench.eval.panel.public import Public
from xlebench.eval.panel.validity import validity
from xlebench.eval.score import score_items
from xlebench.eval.scorers import ScoreSettings
from xlebench.eval.scorers.base import Blind
from xlebench.eval.table import results_table
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.tasks.screening.filters import FilterContext, apply_filters

S = ScoreSettings(bertscore=False)
LOGS = [f"log{k}" for k in range(8)]


def _item(sub: str, log: str, k: int, query: str, **answer) -> dict:
    base = {"text": "", "spans": [], "counts": {}, "order": []}
    return {"item_id": f"{log}-{sub}-{k:03d}", "subtask": sub, "lifelog_id": log,
            "category": "short", "query": query, "provenance": {},
            "period": {"start_s": 3600.0 * k, "end_s": 3600.0 * k + 600},
            "answer": {**base, **answer}}


def _recipes(*names: str) -> dict:
    return {n: load_recipe(n) for n in names}


def test_a_shared_template_makes_the_constant_the_floor() -> None:
    """References differ in one word from a template: the best constant of other logs scores
    near the top, and the table prints it as the floor, named."""
    words = ["pasta", "rice", "soup", "bread", "salad", "eggs"]
    items = [_item("single_summary", log, k, f"Summarize the time period 0{k}:00 - 0{k}:10.",
                   text=f"C cooks {random.Random(log + str(k)).choice(words)} in the kitchen "
                        "and washes the pan at the sink.")
             for log in LOGS for k in range(4)]
    panel = panel_rows(items, _recipes("single_summary"), S, seed=0, draws=4)
    rows = score_items(items, {it["item_id"]: "" for it in items},
                       _recipes("single_summary"), S)
    table = results_table(rows, panel, n_boot=50)
    floor = table["rows"]["single_summary"]["all"]["floor"]
    assert floor["mean"] > 0.8 and floor["panel"]["constant"] > 0.8  # 5 of 6 content words
    assert floor["panel"]["generic"] < 0.3
    assert f"({floor['member']})" in to_markdown(table)


def test_learned_strategies_never_see_the_answers_of_their_own_log() -> None:
    """Each log's references are its own words: a constant fitted on the other logs can never
    be the answering log's text."""
    items = [_item("single_summary", log, k, "Summarize the time period.",
                   text=f"C {log} does {log} things with the {log} object.")
             for log in LOGS for k in range(3)]
    panel = panel_rows(items, _recipes("single_summary"), S, seed=1, draws=1)
    for it, row in zip(items, panel.rows["single_summary"]["constant"], strict=True):
        assert it["lifelog_id"] not in row["response"]
    one_per_log = [it for it in items if it["item_id"].endswith("-000")]
    fold = folds(one_per_log, seed=1)
    assert sorted(fold.values()) == [0, 0, 1, 1, 2, 2, 3, 4], "balanced, at most five folds"


def _about(video: str, log: str, k: int, **fields) -> dict:
    """A summary item of one source video (its evidence), on a log: logs reuse videos."""
    it = _item("single_summary", log, k, "Summarize the time period.", **fields)
    it["evidence"] = [{"video_uid": video, "source_start_s": 0.0, "source_end_s": 60.0}]
    return it


def test_no_strategy_learns_an_answer_about_the_video_it_answers() -> None:
    """Eight logs reuse four videos, each video's summary the same in every log: folded by
    life log, a remembered answer would be the right one; folded by source video, a strategy
    never sees an item about the video it answers, so memory scores nothing."""
    items = [_about(f"video{v}", log, v, text=f"C repairs engine {v} with spanner {v} today.")
             for log in LOGS for v in range(4)]
    for it in items:
        it["period"]["end_s"] = it["period"]["start_s"] + 60.0 * (it["period"]["start_s"]
                                                                  // 3600 + 1)
    fold = folds(items, seed=0)
    for it in items:
        for other in training(items, fold, fold[it["item_id"]]):
            assert other["evidence"][0]["video_uid"] != it["evidence"][0]["video_uid"]
    panel = panel_rows(items, _recipes("single_summary"), S, seed=0, draws=1)
    for member in ("constant", "duration_memory"):
        for it, row in zip(items, panel.rows["single_summary"][member], strict=True):
            assert row["response"] != it["answer"]["text"], member


def test_a_single_life_log_runs_only_the_strategies_that_learn_nothing() -> None:
    items = [_item("single_summary", "only", k, "Q?", text="C cooks.") for k in range(3)]
    panel = panel_rows(items, _recipes("single_summary"), S, seed=0, draws=1)
    assert set(panel.rows["single_summary"]) == {"query_echo", "generic", "plan_echo"}, \
        "one video"
    assert "constant" in panel.skipped["single_summary"]


def _mcq(log: str, k: int, right_longest: bool) -> dict:
    rng = random.Random(f"{log}{k}")
    wrong = [f"C {rng.choice(['eats', 'reads', 'walks'])} {w}." for w in ("one", "two", "three",
                                                                           "four")]
    right = "C eats one and reads two and walks three." if right_longest else "C sleeps."
    options = [right, *wrong]
    rng.shuffle(options)
    it = _item("egoschema_mcq", log, k, "What does C do? " + " ".join(options),
               options=options, label=options.index(right), text=right)
    it["provenance"]["question"] = "What does C do?"
    return it


def test_an_option_only_trick_is_caught_and_the_filter_drops_it() -> None:
    """The right option is always the longest and the one sharing most words with the others:
    the panel's rules find it, the floor says so, and the default option_only filter drops
    every such item while keeping items without the trick."""
    items = [_mcq(log, k, True) for log in LOGS for k in range(4)]
    panel = panel_rows(items, _recipes("egoschema_mcq"), S, seed=0, draws=1)
    rows = score_items(items, {}, _recipes("egoschema_mcq"), S)
    floor = results_table(rows, panel, n_boot=20)["rows"]["egoschema_mcq"]["all"]["floor"]
    assert floor["mean"] == 1.0 and floor["member"] in ("longest", "centroid")
    spec = {"kind": "option_only", "drop_if_correct_at_least": 2, "balance": False}
    kept, dropped = apply_filters(items, [spec], FilterContext())
    assert kept == [] and dropped["dropped by the option_only filter"] == len(items)
    fair = [_mcq(log, k, False) for log in LOGS[:2] for k in range(2)]
    kept, _ = apply_filters(fair, [spec], FilterContext())
    assert kept and all(it["provenance"]["filters"]["option_only"]["kept"] for it in kept)


def test_the_balanced_option_only_filter_decides_over_the_whole_benchmark() -> None:
    """Balanced (the default), the option-only filter drops nothing per unit and records each
    rule's pick; over the whole benchmark the excess of the rules' right picks goes: every
    trick item (the rules are always right on them) and none of the items the rules miss,
    counted under the filter's reason."""
    from xlebench.tasks.screening.set_filters import balance_item_filters

    spec = {"kind": "option_only", "drop_if_correct_at_least": 2}
    items = [_mcq(log, k, True) if k % 4 == 0 else _fair(log, k) for log in LOGS
             for k in range(12)]
    kept, dropped = apply_filters(items, [spec], FilterContext())
    assert len(kept) == len(items) and not dropped
    assert all(set(it["provenance"]["filters"]["option_only"]["picks"]) ==
               {"centroid", "outlier", "longest", "shortest", "question_overlap"} for it in kept)
    records = {log: {"subtask": "egoschema_mcq", "stats": {},
                     "items": [it for it in kept if it["lifelog_id"] == log]} for log in LOGS}
    out = balance_item_filters(records, {"egoschema_mcq": [spec]}, seed=0)
    left = [it for rec in out.values() for it in rec["items"]]
    gone = sum(rec["stats"].get("dropped by the option_only filter", 0) for rec in out.values())
    assert gone == len(items) - len(left) > 0
    assert not any(it["answer"]["text"].startswith("C eats one") for it in left)
    verdicts = {it["item_id"]: it["provenance"]["filters"]["option_only"] for it in items}
    assert all(v["kept"] == (v["reader"] is None) for v in verdicts.values())


def test_words_that_tell_the_time_of_day_are_caught_for_ordering() -> None:
    day = ["C eats breakfast", "C works at the office", "C eats lunch", "C cooks dinner",
           "C goes to bed"]
    items = []
    for log in LOGS:
        shown = list(range(5))
        random.Random(log).shuffle(shown)
        order = [shown.index(j) for j in range(5)]
        query = "Please rank ... " + " ".join(f"Summary {i}: {day[j]}."
                                              for i, j in enumerate(shown))
        items.append(_item("summary_ordering", log, 0, query, order=order))
    panel = panel_rows(items, _recipes("summary_ordering"), S, seed=0, draws=8)
    rows = score_items(items, {}, _recipes("summary_ordering"), S)
    floor = results_table(rows, panel, n_boot=20)["rows"]["summary_ordering"]["all"]["floor"]
    assert floor["member"] == "word_time_prior" and floor["mean"] == 1.0


def test_counts_that_repeat_across_logs_are_caught() -> None:
    items = [_item("action_counting", log, 0, "How many?", counts={"cut onion": 3,
                                                                  "wash pan": 1})
             for log in LOGS]
    panel = panel_rows(items, _recipes("action_counting"), S, seed=0, draws=1)
    rows = panel.rows["action_counting"]["action_prior"]
    assert all(r["scores"]["count_acc"] == 1.0 for r in rows)


@pytest.mark.parametrize(("oracle", "verdict"), [
    ("reference", "measures the video"),
    ("constant", "DOES NOT MEASURE THE VIDEO"),
    ("wrong", "ANSWERS DISAGREE WITH THEIR SOURCES")])
def test_validity_says_in_words_when_a_recipe_measures_nothing(oracle: str, verdict: str
                                                                ) -> None:
    """A recipe whose references are one constant sentence: its oracle equals the blind
    constant (no headroom); an oracle that disagrees with the references is a GT bug."""
    text = "C cooks pasta in the kitchen." if oracle == "constant" else None
    items = [_item("single_summary", log, k, "Summarize the time period.",
                   text=text or f"C handles item {log} {k} in room {k}.")
             for log in LOGS for k in range(3)]
    replies = {it["item_id"]: "C sleeps." if oracle == "wrong" else it["answer"]["text"]
               for it in items}
    result = validity(items, replies, _recipes("single_summary"), S, seed=0, draws=1)
    assert result["single_summary"]["verdict"].startswith(verdict)


def test_items_about_several_videos_learn_from_items_sharing_none() -> None:
    """A day's summary is about four videos: fitted per item, a strategy learns from the
    items sharing none of them (some always remain), never from one sharing any."""
    def fit(train: list[dict]) -> list[set[str]]:
        return [{v["video_uid"] for v in t["evidence"]} for t in train]

    items = []
    for k, log in enumerate(LOGS * 3):
        it = _item("holistic_summary", log, k, "Summarize all.", text="C does things.")
        it["evidence"] = [{"video_uid": f"v{(k + j) % 12}"} for j in range(4)]
        items.append(it)
    assert own_videos(items, "video") and not own_videos(items, "life_log")
    probe, models = Blind("probe", "test", lambda *_: "", fit), {}
    apart = _Apart(items, PER_ITEM_FIT)
    for it in items:
        learned = _fitted(probe, it, items, {}, "video", models, per_item=apart,
                          public=Public(items))
        mine = {v["video_uid"] for v in it["evidence"]}
        assert learned and all(mine.isdisjoint(v) for v in learned)


def _fair(log: str, k: int) -> dict:
    """An item whose right option no rule finds (drawn like the others, at a random place)."""
    rng = random.Random(f"fair{log}{k}")
    options = [f"C {rng.choice(['cuts', 'moves', 'folds', 'lifts'])} the {noun}."
               for noun in rng.sample(["box", "cup", "rag", "pan", "mat", "jar", "net"], 5)]
    label = rng.randrange(5)
    it = _item("egoschema_mcq", log, k, "What does C do?", options=options, label=label,
               text=options[label])
    it["provenance"]["question"] = "What does C do?"
    return it


def test_the_panel_filter_drops_what_the_panel_answers_and_keeps_the_rest() -> None:
    """Half the items have the longest-option trick (the panel answers them in every seed),
    half a short right option no rule finds: the panel filter drops the first half only,
    records its verdict on the kept ones, and the unit-level filters leave it alone."""
    from xlebench.tasks.screening.panel_filter import panel_verdicts

    items = [_mcq(log, k, True) if k % 2 == 0 else _fair(log, k)
             for log in LOGS for k in range(4)]
    spec = {"kind": "panel", "seeds": 3, "drop_if_correct_at_least": 2, "balance": False}
    verdicts = panel_verdicts(items, load_recipe("egoschema_mcq"), spec, S, seed=0)
    dropped = {i for i, v in verdicts.items() if not v["kept"]}
    trick = {it["item_id"] for it in items if it["answer"]["text"].startswith("C eats one")}
    assert dropped == trick
    assert all(v["right"] <= 1 and len(v["members"]) == 3 for i, v in verdicts.items()
               if i not in dropped)
    kept, counts = apply_filters(items, [spec], FilterContext())
    assert len(kept) == len(items) and not counts  # set-level: applied by the annotate stage


def test_the_balanced_panel_filter_leaves_no_reader_and_no_inverse_informative() -> None:
    """A third of the items have the longest-option trick, the rest a right option no rule
    finds. Dropping every item the panel answers (``balance: false``) leaves the longest
    option never right, so avoiding it beats chance; balanced, the filter drops only the
    excess (the trick items all go: where the panel is sure it is always right), and on what
    it keeps no option-only rule, nor its inverse, is right more often than chance allows."""
    from xlebench.eval.scorers.choice import rule_picks
    from xlebench.tasks.screening.balance import Z_BALANCED, deviation
    from xlebench.tasks.screening.panel_filter import panel_verdicts

    items = [_mcq(log, k, True) if k % 3 == 0 else _fair(log, k) for log in LOGS
             for k in range(9)]
    spec = {"kind": "panel", "seeds": 1, "drop_if_correct_at_least": 1, "rounds": 1}
    verdicts = panel_verdicts(items, load_recipe("egoschema_mcq"), spec, S, seed=0)
    kept = [it for it in items if verdicts[it["item_id"]]["kept"]]
    assert 0 < len(kept) < len(items)
    assert all(verdicts[i]["reader"] for i, v in verdicts.items() if not v["kept"])
    ids = [it["item_id"] for it in kept]
    base = dict.fromkeys(ids, 0.2)
    for rule in ("longest", "shortest", "centroid"):
        picks = {it["item_id"]: (it["answer"]["label"], rule_picks(it)[rule]) for it in kept}
        follow = {i: float(lab in t) / len(t) for i, (lab, t) in picks.items()}
        avoid = {i: float(lab not in t) / (5 - len(t)) if len(t) < 5 else 0.2
                 for i, (lab, t) in picks.items()}
        assert abs(deviation(ids, follow, base)) <= Z_BALANCED + 0.5
        assert abs(deviation(ids, avoid, base)) <= Z_BALANCED + 0.5


def test_the_balanced_panel_filter_may_keep_nothing() -> None:
    """Every item with the longest-option trick: the panel is always right where it is sure,
    so balancing keeps none, and says so per item instead of failing."""
    from xlebench.tasks.screening.panel_filter import panel_verdicts

    items = [_mcq(log, k, True) for log in LOGS for k in range(3)]
    spec = {"kind": "panel", "seeds": 1, "drop_if_correct_at_least": 1, "rounds": 1}
    verdicts = panel_verdicts(items, load_recipe("egoschema_mcq"), spec, S, seed=0)
    assert len(verdicts) == len(items) and not any(v["kept"] for v in verdicts.values())


def test_the_panel_filter_never_drops_an_item_for_its_position() -> None:
    """Labels skewed toward one position make the position prior the strongest member; the
    filter does not drop by it (that would empty the position and create the skew the prior
    then reads as accuracy), so the kept labels keep every position."""
    from xlebench.tasks.screening.panel_filter import panel_verdicts

    items = []
    for log in LOGS:
        for k in range(6):
            rng = random.Random(f"pos{log}{k}")
            options = [f"C {rng.choice(['cuts', 'moves', 'folds', 'lifts'])} the {noun}."
                       for noun in rng.sample(["box", "cup", "rag", "pan", "mat", "jar"], 5)]
            label = 0 if k < 4 else rng.randrange(1, 5)
            it = _item("egoschema_mcq", log, k, "What does C do?", options=options,
                       label=label, text=options[label])
            it["provenance"]["question"] = "What does C do?"
            items.append(it)
    spec = {"kind": "panel", "seeds": 3, "drop_if_correct_at_least": 2, "balance": False}
    verdicts = panel_verdicts(items, load_recipe("egoschema_mcq"), spec, S, seed=0)
    assert all("position_prior" not in m for v in verdicts.values() for m in v["members"])
    kept = [it for it in items if verdicts[it["item_id"]]["kept"]]
    assert sum(it["answer"]["label"] == 0 for it in kept) >= len(kept) / 3


def test_a_window_with_a_remembered_verb_sequence_gets_that_windows_roles() -> None:
    from xlebench.eval.scorers.events import _remembered_window, fit_sequences

    def window(verbs: list[str], obj: str) -> dict:
        return {"answer": {"events": [{"verbs_gt": [v], "roles": {"Arg0": "C", "Arg1": obj}}
                                      for v in verbs]}}
    model = fit_sequences([window(["cut", "wash"], "onion"), window(["cut", "fry"], "egg")])
    reply = _remembered_window(window(["cut", "fry"], "?"), model, None)
    assert reply == "Event 1: Arg0: C; Arg1: egg\nEvent 2: Arg0: C; Arg1: egg"
    unseen = _remembered_window(window(["wash", "cut"], "?"), model, None)
    assert unseen.startswith("Event 1: Arg0: C; Arg1: ")  # the verbs' roles instead


def test_location_affinity_reads_the_wearers_place_and_leans_on_the_pool() -> None:
    from xlebench.eval.scorers.choice import PLACE_SHRINK, fit_place_odds, wearer_place

    assert wearer_place({"lifelog_id": "new_york-intj-3fa2c1-long"}) == "new_york"
    assert wearer_place({"lifelog_id": "a1b2c3d4_0f0f0f0f"}) == ""
    train = []
    for k in range(PLACE_SHRINK):
        log = "japan-intj-000000-short" if k % 2 else "rwanda-esfp-000000-short"
        word = "rice" if k % 2 else "beans"
        train.append({"lifelog_id": log, "answer": {"options": [f"C eats {word}.",
                                                                "C sleeps."], "label": 0}})
    odds = fit_place_odds(train)
    assert odds["japan"]["rice"] > odds[""]["rice"] > odds["rwanda"]["rice"]


def test_a_fit_per_item_reads_at_most_a_bounded_set_in_a_fixed_order() -> None:
    """Items about several videos are each answered by a fit on the items sharing none of
    them; over a large benchmark that is one fit per item over all the others (the square of
    its size), so a fit reads at most `PER_ITEM_FIT` of them — the same ones for every fit
    and run, the first by `_fit_rank`, in their own order — and all of them below that; found
    by one walk of the ranked items, not by filtering and ranking them all per video set."""
    import random

    from xlebench.eval.panel.folding import _fit_rank
    from xlebench.eval.provenance import source_videos

    rng = random.Random(0)
    items = [{"item_id": f"i{k:04d}", "evidence": [
        {"video_uid": f"v{rng.randrange(40)}"} for _ in range(rng.randrange(1, 4))]}
        for k in range(PER_ITEM_FIT + 300)]

    def reference(mine: frozenset[str], pool: list[dict], n: int) -> list[dict]:
        apart = [o for o in pool if mine.isdisjoint(source_videos(o))]
        if len(apart) <= n:
            return apart
        keep = set(sorted(_fit_rank(o["item_id"]) for o in apart)[:n])
        return [o for o in apart if _fit_rank(o["item_id"]) in keep]
    for pool, n in ((items, PER_ITEM_FIT), (items[:200], PER_ITEM_FIT), (items, 50)):
        walk = _Apart(pool, n)
        for it in pool[:60]:
            mine = frozenset(source_videos(it))
            assert walk(mine) == reference(mine, pool, n)
    kept = _Apart(items, PER_ITEM_FIT)(frozenset({"none"}))
    assert len(kept) == PER_ITEM_FIT and kept == [it for it in items if it in kept]


def test_a_fit_is_reused_for_the_same_items_and_redone_for_new_content(monkeypatch) -> None:
    """The validity check and an evaluation fit the same members on the same items once per
    process; items whose ids coincide but whose contents differ (another benchmark compiled
    in the same process) are fitted anew, so the floor is the same either way."""
    from dataclasses import replace

    import xlebench.eval.panel.blind as B
    from xlebench.eval.scorers import text as T

    calls = []
    real = T.fit_constants
    monkeypatch.setattr(B, "_FITS", B._Fits(B.FITS_KEPT))

    def counted(train):
        calls.append(len(train))
        return real(train)

    def panel(texts: str) -> dict:
        items = [_item("single_summary", log, k, "Summarize the time period.",
                       text=f"C {texts} item {log} {k} in room {k}.")
                 for log in LOGS for k in range(3)]
        recipes = _recipes("single_summary")
        blinds = [replace(b, fit=counted) if b.fit is real else b
                  for b in recipes["single_summary"].scorer.blind()]
        monkeypatch.setattr(recipes["single_summary"].scorer, "blind", lambda: blinds)
        return panel_rows(items, recipes, S, seed=0, draws=1).rows["single_summary"]
    first = panel("handles")
    fitted = len(calls)
    assert fitted > 0
    assert panel("handles") == first and len(calls) == fitted  # nothing fitted again
    other = panel("washes")
    assert len(calls) == 2 * fitted and other != first


def test_a_member_outside_chances_interval_is_named_either_way() -> None:
    """The validity record of a multiple-choice recipe gives chance's 95% interval and names
    the members outside it: above (a floor) and below (its inverse reads the items)."""
    from xlebench.eval.panel.validity import chance_band

    items = [_fair(log, k) for log in LOGS for k in range(25)]

    def rows(share: float) -> list[dict]:
        return [{"scores": {"acc": float(k < share * len(items))}} for k in range(len(items))]

    band = chance_band(items, {"fair": rows(0.2), "sure": rows(0.5), "inverse": rows(0.05)},
                       "acc")
    assert band["mean"] == pytest.approx(0.2) and band["ci95"][0] < 0.2 < band["ci95"][1]
    assert set(band["outside"]) == {"sure", "inverse"}


def test_answers_are_reused_whatever_the_model_metrics_and_redone_for_another_seed(
        monkeypatch) -> None:
    """The evaluate stage's panel (model metrics on) answers the published items as the
    annotate stage's validity check (off) did: its learning members' answers come from the
    process's memory, so their fits are not made twice; another seed folds anew."""
    from dataclasses import replace

    import xlebench.eval.panel.blind as B

    monkeypatch.setattr(B, "_ANSWERS", B.OrderedDict())
    items = [_item("single_summary", log, k, "Summarize the time period.",
                   text=f"C cooks item {log} {k} in room {k}.") for log in LOGS for k in range(3)]
    recipes = _recipes("single_summary")
    calls: list[str] = []
    blinds = [replace(b, answer=lambda it, m, c, b=b: calls.append(b.name) or b.answer(it, m, c))
              for b in recipes["single_summary"].scorer.blind()]
    monkeypatch.setattr(recipes["single_summary"].scorer, "blind", lambda: blinds)
    first = panel_rows(items, recipes, S, seed=0, draws=1).rows["single_summary"]
    learned = {b.name for b in blinds if b.fit is not None}
    assert learned and learned <= set(calls)
    calls.clear()
    again = panel_rows(items, recipes, replace(S, bertscore=True), seed=0,
                       draws=1).rows["single_summary"]
    assert again == first and not learned & set(calls)
    panel_rows(items, recipes, S, seed=1, draws=1)
    assert learned <= set(calls)


def _fresh() -> None:
    """Forget this process's fits and answers, so that a second run recomputes them."""
    from xlebench.eval.panel import blind

    blind._ANSWERS.clear()
    blind._FITS.models.clear()


def test_the_panel_and_the_filters_are_the_same_whatever_the_cores(monkeypatch) -> None:
    """The benchmark-wide steps spread their members' folds over processes
    (`xlebench.runner.cores`): the panel's rows, the balanced panel filter's and AFLite's
    verdicts are the same at one core and at two, computed afresh each time."""
    import json

    from xlebench.runner import cores
    from xlebench.runner.cores import using
    from xlebench.tasks.screening.aflite import aflite_verdicts
    from xlebench.tasks.screening.panel_filter import panel_verdicts

    words = ["pasta", "rice", "soup", "bread", "salad", "eggs"]
    text = [_item("single_summary", log, k, f"Summarize the time period 0{k}:00 - 0{k}:10.",
                  text=f"C cooks {random.Random(log + str(k)).choice(words)} in the kitchen.")
            for log in LOGS for k in range(4)]
    mcq = [_mcq(log, k, True) if k % 3 == 0 else _fair(log, k) for log in LOGS
           for k in range(9)]
    recipe = load_recipe("egoschema_mcq")
    spec = {"kind": "panel", "seeds": 2, "drop_if_correct_at_least": 1, "rounds": 2}
    afl = {"partitions": 3, "threshold": 0.75, "rounds": 2}
    monkeypatch.setattr(cores, "available", lambda: 2)  # also in a test worker's share of one
    runs = []
    for n in (1, 2):
        _fresh()
        with using(n):
            panel = panel_rows(text + mcq, _recipes("single_summary", "egoschema_mcq"), S,
                               seed=0, draws=4)
            runs.append(json.dumps([panel.rows, panel.sees, panel.skipped,
                                    panel_verdicts(mcq, recipe, spec, S, seed=0),
                                    aflite_verdicts(mcq, recipe, afl, Public(mcq), seed=0)],
                                   sort_keys=True))
    assert runs[0] == runs[1]


def test_a_reused_answer_keeps_the_model_metrics_the_settings_ask_for(monkeypatch) -> None:
    """An expected answer that holds a model metric (MultiHop's random spans: the Sent.Sim of
    their constant text) has it in the evaluate stage's rows (model metrics on) though the
    validity check (off) answered first in the same process, and not in the check's: the
    rows are those each would compute alone."""
    from dataclasses import replace

    import xlebench.eval.panel.blind as B

    monkeypatch.setattr(B, "_ANSWERS", B.OrderedDict())
    items = [_item("single_summary", log, k, "Summarize the time period.",
                   text=f"C cooks item {log} {k}.") for log in LOGS for k in range(2)]
    recipes = _recipes("single_summary")

    def answer(it, model, ctx):
        return {"rougeL": 0.25, **({"sent_sim": 0.5} if ctx.settings.bertscore else {})}
    member = Blind("expected", "a constant score", answer, lambda train: len(train))
    monkeypatch.setattr(recipes["single_summary"].scorer, "blind", lambda: [member])
    off = panel_rows(items, recipes, S, seed=0, draws=1).rows["single_summary"]["expected"]
    on = panel_rows(items, recipes, replace(S, bertscore=True), seed=0,
                    draws=1).rows["single_summary"]["expected"]
    assert all("sent_sim" not in r["scores"] for r in off)
    assert all(r["scores"]["sent_sim"] == 0.5 for r in on)
