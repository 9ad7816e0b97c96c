"""The learned blind members (issue 56): on small benchmarks built so that a route no named
member covers works, the learner — told nothing of the route — finds it, so the printed floor
rises to meet it; AFLite drops the items it predicts. Each benchmark also shows the route
beating the named members, so the learner is what closes it."""

from __future__ import annotations

import random

import pytest

from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.panel.public import Public
from xlebench.eval.scorers import ScoreSettings
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.tasks.screening.aflite import aflite_verdicts

S = ScoreSettings(bertscore=False)


def _item(sub: str, log: str, k: int, query: str, start: float, length: float,
          video: str, **answer) -> dict:
    base = {"text": "", "spans": [], "counts": {}, "order": []}
    return {"item_id": f"{log}-{sub}-{k:03d}", "subtask": sub, "lifelog_id": log,
            "category": "short", "query": query, "provenance": {},
            "period": {"start_s": start, "end_s": start + length},
            "source": {"videos": [video], "annotations": [f"{video}/{k}"]},
            "answer": {**base, **answer}}


def _means(items: list[dict], sub: str, metric: str, public: list[dict] | None = None
           ) -> dict[str, float]:
    """Each panel member's mean on the ``sub`` items of ``items`` (``public``: every item a
    submitter reads, ``items`` when not given)."""
    mine = [it for it in items if it["subtask"] == sub]
    panel = panel_rows(mine, {sub: load_recipe(sub)}, S, seed=0, draws=4, public=public or items)
    return {m: sum(r["scores"].get(metric) or 0.0 for r in rows) / len(rows)
            for m, rows in panel.rows[sub].items()}


def test_counts_that_scale_with_the_window_are_learned() -> None:
    """Every action is done once a minute: the count is the window's length in minutes,
    whatever the action. The per-action prior ignores the length; the learner reads it from
    the query and is nearly always right."""
    actions = ["cut onion", "wash pan", "stir soup", "open door", "fold towel", "pick up cup"]
    items = []
    for v in range(60):
        rng = random.Random(v)
        length = rng.choice([60, 120, 180])
        listed = rng.sample(actions, 3)
        counts = {a: length // 60 for a in listed}
        query = (f"In the record provided for the 08:00 - 08:30 time period, how many times "
                 f"have each of the actions in the following list been performed in the "
                 f"10-{10 + length} second record of the period? Action list: "
                 + ", ".join(f"{i + 1}. {a}" for i, a in enumerate(listed)))
        items.append(_item("action_counting", f"log{v}", 0, query, 28_800, 1800, f"v{v}",
                           counts=counts, text=""))
    means = _means(items, "action_counting", "count_acc")
    assert means["learned"] > 0.9
    assert means["action_prior"] < 0.6 and means["mode_count"] < 0.6


def test_decoys_no_other_question_names_are_learned() -> None:
    """The right option is an act the rest of the benchmark names (a counting list, another
    question); the decoys pair verbs and objects nothing else names. Option-only rules sit at
    chance; the learner reads how often the benchmark names each option."""
    verbs = ["cuts", "washes", "stirs", "opens", "folds", "lifts", "pours", "dries"]
    nouns = ["onion", "pan", "soup", "door", "towel", "cup", "milk", "plate", "jar", "lid"]
    items = []
    for v in range(80):
        rng = random.Random(v)
        right = f"C {rng.choice(verbs)} the {rng.choice(nouns)}"
        wrong = [f"C {rng.choice(verbs)} the {n}{rng.randrange(1000)}" for n in
                 rng.sample(nouns, 4)]
        options = [right, *wrong]
        rng.shuffle(options)
        label = options.index(right)
        query = "What does C do? " + " ".join(f"{k}: {o}." for k, o in enumerate(options))
        items.append(_item("neptune_mcq", f"log{v}", 0, query, 0, 600, f"v{v}",
                           options=options, label=label, text=right))
        named = right.removeprefix("C ")
        items.append(_item("action_counting", f"log{v}", 1, "How many times? Action list: "
                           f"1. {named}", 0, 600, f"w{v}", counts={named: 1}))
    mcq = [it for it in items if it["subtask"] == "neptune_mcq"]
    means = _means(items, "neptune_mcq", "acc")
    assert means["learned"] > 0.8
    assert max(means[m] for m in ("centroid", "outlier", "longest", "shortest")) < 0.45
    # AFLite drops what the learner predicts, and says why per item
    spec = {"partitions": 4, "threshold": 0.75, "rounds": 2, "balance": False}
    verdicts = aflite_verdicts(mcq, load_recipe("neptune_mcq"), spec, Public(items), seed=0)
    dropped = [v for v in verdicts.values() if not v["kept"]]
    assert len(dropped) > 0.6 * len(mcq)
    assert all(v["predictability"] >= 0.75 and v["round"] is not None for v in dropped)
    # balanced (the default): only the excess over chance goes, so some predictable items
    # stay and the learner is at chance on what is kept, neither above nor below
    from xlebench.tasks.screening.balance import Z_BALANCED, deviation

    noise = []
    for v in range(80, 160):  # right options built like the wrong ones: nothing to learn
        rng = random.Random(v)
        options = [f"C {rng.choice(verbs)} the {n}{rng.randrange(1000)}"
                   for n in rng.sample(nouns, 5)]
        noise.append(_item("neptune_mcq", f"log{v}", 0, "What does C do?", 0, 600, f"v{v}",
                           options=options, label=v % 5, text=options[v % 5]))
    balanced = aflite_verdicts(mcq + noise, load_recipe("neptune_mcq"),
                               {**spec, "balance": True}, Public(items + noise), seed=0)
    kept = [i for i, v in balanced.items() if v["kept"]]
    assert 0 < len(mcq) + len(noise) - len(kept) < len(dropped) + len(noise)
    assert any(balanced[i]["predictability"] >= 0.75 for i in kept)
    p = {i: balanced[i]["predictability"] for i in kept}
    assert abs(deviation(kept, p, dict.fromkeys(kept, 0.2))) <= Z_BALANCED + 0.5


def test_a_text_seen_only_as_a_decoy_elsewhere_is_remembered() -> None:
    """Decoys are other items' right answers (another record's summary): an item's right
    option is the one text the items about other videos never had right. Option-only rules
    see nothing; the learner's memory of right and wrong options finds it (not always: a
    decoy whose own item is held out in the same fold looks as unseen as the answer)."""
    texts = [f"C cooks dish number {k} in the kitchen and cleans up after." for k in range(60)]
    items = []
    for v in range(60):
        rng = random.Random(v)
        wrong = rng.sample([t for k, t in enumerate(texts) if k != v], 4)
        options = [texts[v], *wrong]
        rng.shuffle(options)
        items.append(_item("summary_mcq", f"log{v}", 0, "Which summary?", 0, 600, f"v{v}",
                           options=options, label=options.index(texts[v]), text=texts[v]))
    means = _means(items, "summary_mcq", "acc")
    assert means["learned"] > 0.6
    assert max(means[m] for m in ("centroid", "longest", "uniform")) < 0.4


def test_ordering_placed_by_the_logs_other_questions_is_learned() -> None:
    """Each shown text shares its words with one question of the same log whose period puts
    it on the clock; words alone say nothing (every text is used at every hour across logs)."""
    things = ["guitar", "bicycle", "laptop", "garden", "piano", "camera", "kettle", "ladder"]
    items = []
    for v in range(50):
        rng = random.Random(v)
        chosen = rng.sample(things, 4)
        shown = list(range(4))
        rng.shuffle(shown)
        order = [shown.index(j) for j in range(4)]
        query = ("Please rank the following summaries of camera wearer C's activities in order "
                 "of presentation of the life-log recordings. "
                 + " ".join(f"Summary {i}: C uses the {chosen[j]} for a while." for i, j in
                            enumerate(shown)))
        log = f"log{v}"
        items.append(_item("summary_ordering", log, 0, query, 25_000, 50_000, f"v{v}",
                           order=order, text=""))
        for j, thing in enumerate(chosen):
            items.append(_item("object_retrieval", log, j + 1, f"Where is the {thing} in the "
                               "record provided for the time period?", 26_000 + 10_000 * j,
                               600, f"v{v}-{j}", spans=[[26_000 + 10_000 * j, 26_010 +
                                                          10_000 * j]]))
    means = _means(items, "summary_ordering", "position_acc")
    assert means["learned"] > 0.9
    assert means["word_time_prior"] < 0.5
    # AFLite filters orders as it filters options: what the learner orders right goes
    orders = [it for it in items if it["subtask"] == "summary_ordering"]
    verdicts = aflite_verdicts(orders, load_recipe("summary_ordering"), {
        "partitions": 2, "threshold": 0.75, "rounds": 1}, Public(items), seed=0)
    dropped = [v for v in verdicts.values() if not v["kept"]]
    assert len(dropped) > 0.8 * len(orders)
    assert all(v["predictability"] >= 0.75 for v in dropped)


def test_a_summary_is_read_off_the_logs_other_questions_by_the_nearest_reader() -> None:
    """The record's other questions name what it shows; items about other videos whose
    questions name the same things have nearly the same reference: the nearest item's
    reference scores high, the best constant does not."""
    scenes = {"kitchen": "C cooks pasta in the kitchen and washes the pan at the sink.",
              "garden": "C waters the plants in the garden and rakes the leaves on the lawn.",
              "garage": "C repairs the bicycle in the garage and tightens the chain.",
              "office": "C types the report at the desk and answers emails on the laptop."}
    names = sorted(scenes)
    items = []
    for v in range(80):
        scene = names[v % 4]
        log = f"log{v}"
        items.append(_item("single_summary", log, 0, "Summarize the activities performed in "
                           "the recordings provided for the time period 08:00 - 08:40.",
                           28_800, 2400, f"v{v}", text=scenes[scene]))
        items.append(_item("object_retrieval", log, 1, f"What did I use in the {scene} in the "
                           "record provided for the 08:00 - 08:40 time period?", 28_900, 600,
                           f"v{v}", spans=[[28_950, 28_960]]))
    means = _means(items, "single_summary", "rougeL_content")
    assert means["learned"] > 0.9
    assert means["constant"] < 0.5


def _order_items(n: int) -> list[dict]:
    """The construction the round-6 reviewer found in EgoSchema's order questions: three
    wrong options are other orders of the right three acts, and the fourth swaps one act
    for another, keeping the other two in their right places."""
    acts = ["carries the pot", "waters the plant", "harvests the beans", "looks at the sky",
            "washes the cup", "cuts the onion", "folds the towel", "opens the door",
            "stirs the soup", "dries the plate"]
    items = []
    for v in range(n):
        rng = random.Random(v)
        right = rng.sample(acts, 3)
        swap = rng.randrange(3)
        odd = list(right)
        odd[swap] = rng.choice([a for a in acts if a not in right])
        others = [p for p in ([right[1], right[0], right[2]], [right[2], right[1], right[0]],
                              [right[0], right[2], right[1]], [right[1], right[2], right[0]],
                              [right[2], right[0], right[1]])]
        orders = [right, odd, *rng.sample(others, 3)]
        options = ["C " + ", then ".join(o) for o in orders]
        rng.shuffle(options)
        label = options.index("C " + ", then ".join(right))
        query = "In what order does C do these? " + " ".join(
            f"{k}: {o}." for k, o in enumerate(options))
        items.append(_item("egoschema_mcq", f"log{v}", 0, query, 0, 180, f"v{v}",
                           options=options, label=label, text=options[label]))
    return items


def test_an_option_that_stands_out_among_its_siblings_is_learned() -> None:
    """The right order is the one permutation agreeing with the odd option in two places:
    no option alone tells it, and the word centroid ties the four permutations; the learner
    compares each option with its siblings and finds it."""
    means = _means(_order_items(120), "egoschema_mcq", "acc")
    assert means["learned"] > 0.8
    assert means["centroid"] < 0.4 and means["word_odds"] < 0.4


def test_the_clock_and_the_wearer_are_learned() -> None:
    """Breakfast in the morning, dinner in the evening, and in Italy pasta: the options are
    the same four meals on every item, in a random order, so only the period's hour and the
    wearer's location tell them apart — which the query prints and the learner reads."""
    meals = ["C eats breakfast", "C eats dinner", "C eats pasta", "C eats rice"]
    items = []
    for v in range(160):
        rng = random.Random(v)
        place = rng.choice(["italy", "japan"])
        hour = rng.choice([7, 19])
        right = ("C eats pasta" if place == "italy" and hour == 19 else
                 "C eats rice" if hour == 19 else "C eats breakfast" if hour == 7
                 else "C eats dinner")
        options = rng.sample(meals, 4)
        query = (f"What does C do in the record provided for the {hour:02d}:00 - {hour:02d}:20 "
                 f"time period? " + " ".join(f"{k}: {o}." for k, o in enumerate(options)))
        items.append(_item("neptune_mcq", f"{place}-intj-{v:06x}-short", 0, query,
                           hour * 3600, 1200, f"v{v}", options=options,
                           label=options.index(right), text=right))
    means = _means(items, "neptune_mcq", "acc")
    assert means["learned"] > 0.9
    assert means["word_odds"] < 0.6


_SAME_EVERY_RUN = """
import json, random, sys
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.panel.public import Public
from xlebench.eval.scorers import ScoreSettings, learned
from xlebench.eval.scorers.option_features import option_features
from xlebench.tasks.recipe.registry import load_recipe
sys.path.insert(0, {tests!r})
from test_learned import _item
words = "cut wash stir fold open pour rinse peel dry wipe onion pan soup towel door jar cup".split()
items = []
for v in range(40):
    rng = random.Random(v)
    options = [" ".join(rng.sample(words, 6)) for _ in range(5)]
    items.append(_item("egoschema_mcq", f"log{{v % 8}}", v, "Which describes what C does? "
                       + " ".join(f"Option {{k}}: {{o}}" for k, o in enumerate(options)),
                       28_800 + 60 * v, 180, f"v{{v}}", options=options,
                       label=rng.randrange(5), text=""))
public = Public(items)
rows = [option_features(it, public, learned._vocabulary(items)) for it in items]
panel = panel_rows(items, {{"egoschema_mcq": load_recipe("egoschema_mcq")}},
                   ScoreSettings(bertscore=False), seed=0, draws=1)
print(json.dumps([rows, panel.rows], sort_keys=True, default=str))
"""


@pytest.mark.slow  # two interpreters with other hash seeds (18 s): the slow tier CI runs
def test_the_blind_panel_is_the_same_whatever_the_hash_seed() -> None:
    """Python orders a set of strings by a hash seeded per process: a float summed over a set
    (the attestation of an option's words) came out in the last bits differently per run, and
    the learned member's answers and the filters that read it changed between two compiles of
    one configuration (egoschema_mcq kept 165 or 169 items). Two processes with different
    hash seeds now give the same features and the same panel."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = _SAME_EVERY_RUN.format(tests=str(Path(__file__).parent))
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
           for seed in ("1", "2")]
    assert out[0] and out[0] == out[1]


def test_the_stacked_reader_avoids_what_a_filter_taught_to_be_wrong() -> None:
    """The fingerprint a filter leaves when it drops every item a rule answers: the right
    option is never the longest nor the shortest. The rules are below chance; the stacked
    reader learns their inverse (any of the three others: a third) where the uniform guess
    stays at a fifth, and the learned member's inverse never picks the learned pick."""
    nouns = ["box", "cup", "rag", "pan", "mat", "jar", "net", "pot", "pen", "map"]
    items = []
    for v in range(120):
        rng = random.Random(f"stack{v}")
        lengths = rng.sample([1, 2, 3, 4, 5], 5)
        options = [f"C moves the {' and the '.join(rng.sample(nouns, n))}." for n in lengths]
        label = rng.choice([k for k, n in enumerate(lengths) if n not in (1, 5)])
        items.append(_item("neptune_mcq", f"log{v % 24}", v // 24, "What does C do?",
                           3600.0 * (v % 7), 600, f"v{v}", options=options, label=label,
                           text=options[label]))
    panel = panel_rows(items, {"neptune_mcq": load_recipe("neptune_mcq")}, S, seed=0, draws=1)
    rows = panel.rows["neptune_mcq"]
    means = {m: sum(r["scores"]["acc"] for r in rs) / len(rs) for m, rs in rows.items()}
    assert means["longest"] == means["shortest"] == 0.0
    assert means["stacked"] > 0.28 > 0.2 == pytest.approx(means["uniform"])
    assert all(not set(a.get("picks", ())) & set(b.get("picks", ())) for a, b in
               zip(rows["learned"], rows["learned_inverse"], strict=True) if "picks" in a
               and len(a["picks"]) < 5)


def _orderings(n: int) -> list[dict]:
    """Ordering items of 3 to 6 shown summaries (positions rank / (n - 1): thirds and fifths
    are inexact in binary, so a sum in another order would show), with the log's questions."""
    words = "guitar bicycle laptop garden piano camera kettle ladder sink desk".split()
    items = []
    for v in range(n):
        rng = random.Random(v)
        k = 3 + v % 4
        chosen = rng.sample(words, k)
        shown = list(range(k))
        rng.shuffle(shown)
        query = "Rank the summaries. " + " ".join(
            f"Summary {i}: C uses the {chosen[j]} near the {rng.choice(words)}." for i, j in
            enumerate(shown))
        items.append(_item("summary_ordering", f"log{v}", 0, query, 25_000, 50_000, f"v{v}",
                           order=[shown.index(j) for j in range(k)], text=""))
        items.append(_item("object_retrieval", f"log{v}", 1, f"Where is the {chosen[0]}?",
                           26_000, 600, f"v{v}-0", spans=[[26_000, 26_010]]))
    return items


def test_the_orderings_fits_equal_their_plain_forms() -> None:
    """The word-position prior summed by ``bincount`` and the ridge fitted on each item's
    hashed rows stacked give the bits of the plain loop and of hashing every row at once."""
    import numpy as np
    from sklearn.linear_model import Ridge

    from xlebench.eval.metrics import rouge_tokens
    from xlebench.eval.scorers import order
    from xlebench.eval.scorers.learned import by_id, hashed

    items = _orderings(40)
    public = Public(items)
    orders = [it for it in items if it["subtask"] == "summary_ordering"]
    for train in (orders, orders[5:30], orders[::3]):
        total: dict[str, float] = {}
        count: dict[str, int] = {}
        rows, places = [], []
        for it in train:
            texts, gt = order.shown(it), it["answer"]["order"]
            for rank, k in enumerate(gt):
                for w in set(rouge_tokens(texts[k])):
                    total[w] = total.get(w, 0.0) + rank / (len(gt) - 1)
                    count[w] = count.get(w, 0) + 1
        for it in by_id(train):
            texts, gt = order.shown(it), it["answer"]["order"]
            for rank, k in enumerate(gt):
                rows.append(order._text_features(it, texts[k], public))
                places.append(rank / (len(gt) - 1))
        plain = {w: (total[w] + 0.5 * order.SHRINK) / (count[w] + order.SHRINK) for w in total}
        assert order.fit_word_positions(train) == plain
        want = Ridge(alpha=1.0).fit(hashed().transform(rows), places)
        got = order.fit_order(train, public)
        assert np.array_equal(got.coef_, want.coef_) and got.intercept_ == want.intercept_
