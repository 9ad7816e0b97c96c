"""The learned choice member's fits as the multiple-choice filters run them, two ways side by
side, alternating: each item's option features computed once per public view (the memo of
`xlebench.eval.scorers.option_features`, the default since issue 79) vs computed again for
every fit (the memo emptied before each fit, as every fit read them before; the options'
sentence vectors stay memoized per view either way, as they were). The fitted models' answers are
compared: the same either way.

    python benchmarks/option_features.py [--items 400] [--folds 5] [--repeats 2]

The items are synthetic five-option questions over a small vocabulary (the learned member's
features do not need a compiled benchmark); the fits are AFLite's: one per fold, on the
other folds' items, for ``--repeats`` partitions.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from xlebench.eval.panel.public import Public
from xlebench.eval.scorers.learned import choice_scores, fit_choice

WORDS = ("cut wash stir fold open pour rinse peel dry wipe onion pan soup towel door jar cup "
         "knife board sink tap lid bowl plate spoon fork glass kettle oven").split()


def items(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for k in range(n):
        options = [" ".join(rng.sample(WORDS, 5)) for _ in range(5)]
        out.append({"item_id": f"log{k % 40}-neptune_mcq-{k:04d}", "subtask": "neptune_mcq",
                    "lifelog_id": f"log{k % 40}", "category": "short",
                    "query": "What does C do? " + " ".join(f"Option {j}: {o}" for j, o in
                                                           enumerate(options)),
                    "period": {"start_s": 28_800 + 60 * k, "end_s": 28_980 + 60 * k},
                    "evidence": [{"video_uid": f"v{k}", "source_start_s": 0.0,
                                  "source_end_s": 180.0}],
                    "answer": {"options": options, "label": rng.randrange(5), "text": ""},
                    "provenance": {}})
    return out


def sweep(its: list[dict], folds: int, repeats: int, shared: bool) -> tuple[float, list]:
    start, answers = time.perf_counter(), []
    view = Public(its)
    for r in range(repeats):
        order = random.Random(r).sample(range(len(its)), len(its))
        fold = {its[k]["item_id"]: j % folds for j, k in enumerate(order)}
        for f in range(folds):
            if not shared:
                view._cache.pop("option-features", None)  # noqa: SLF001 - the old way
            model = fit_choice([it for it in its if fold[it["item_id"]] != f], view)
            answers += [round(max(choice_scores(it, model, view)), 9)
                        for it in its if fold[it["item_id"]] == f]
    return time.perf_counter() - start, answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=400)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    its = items(args.items)
    sweep(its[:20], 2, 1, True)  # load the sentence encoder before timing
    times = {"once per view": [], "again per fit": []}
    answers = {}
    for _ in range(2):  # alternating
        for name, shared in (("again per fit", False), ("once per view", True)):
            seconds, answers[name] = sweep(its, args.folds, args.repeats, shared)
            times[name].append(seconds)
    best = {k: min(v) for k, v in times.items()}
    print(json.dumps({"items": args.items, "fits": args.folds * args.repeats,
                      "seconds": {k: round(v, 2) for k, v in best.items()},
                      "speedup": round(best["again per fit"] / best["once per view"], 2),
                      "same answers": answers["again per fit"] == answers["once per view"]}))


if __name__ == "__main__":
    main()
