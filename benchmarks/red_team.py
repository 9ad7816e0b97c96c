"""The reviewer of issue 56, as a measurement: video-blind routes the panel was not told about.

Each route reads only what a submitter reads — an item's query, options and period, every other
item's query and period — and, where it learns, the answers of items about other source
videos (cross-fitted by source video, as the panel is). Per subtask it prints the route's score
beside the printed floor and its interval (the strongest member of the panel, the learned
members included, `stats/tasks.json`), and says whether the route beats the interval.

Routes:

* ``fingerprint_words`` (summaries): a period's length names its video across life logs; the
  reader gathers what every item printing a record of that length asks (counted actions,
  moment labels, NLQ objects) and what the log's other items about the period ask, and
  answers with those words.
* ``window_mode`` (counting): the most common count per (action, window length), backing off
  to (verb, window length), then the window length.
* ``clock_placement`` (ordering): each shown text is matched, through what the log's other
  items (and the items elsewhere printing their records' lengths) ask, to the record periods
  they print, and takes its record's clock position.
* ``decoy_rules`` (multiple choice): options a reader rules out without the video — a
  verb–object pair nothing else in the benchmark names, a count outside the range right
  counts take, a place of another kind than the others — and a uniform pick among the rest.

Issue 68's reviewer added two:

* ``clock_phrases`` (summaries): the reference of another log's period nearest in time of
  day (the panel's ``clock_memory``), followed by what the log's items about the period ask.
* ``sibling_agreement`` (multiple choice): the options read side by side — each option's
  words compared position by position with its siblings', the option agreeing most with
  the others picked (ties uniform): a right answer built differently from its wrong options
  stands out this way.
* ``odd_one_agreement`` (multiple choice): the round's EgoSchema route as the reviewer ran it —
  the option whose set of steps no sibling shares is set aside, and the option agreeing with
  it step by step in most places is picked (uniform where no option is the odd one).
* ``sentence_centroid`` (multiple choice): the option whose MiniLM sentence vector is nearest
  the mean of its item's options' vectors (the reviewer's 35.4 on the old EgoSchema items).

Issue 77's reviewer added one for summaries:

* ``persona_clock`` (summaries): the reference of another log of the same persona (the life-log
  id's location and type) nearest in time of day, whatever its query, and the log's own
  questions within the hour (the panel's ``routine_memory`` reads the same, preferring the
  same query shape).

and two that read the panel itself, which is open source:

* ``inverse_panel`` (multiple choice): the panel's learned choice member, fitted as the panel
  fits it, and a uniform pick among the options it does *not* pick: where a filter kept just
  the items the panel gets wrong, avoiding its pick beats chance.
* ``stacked`` (multiple choice): a logistic regression over each option's standing with every
  route and member above (picked by the learned member, its score and rank, picked by the
  sentence centroid, by sibling agreement, by each option-only rule of the panel), fitted on
  the items of other source videos.

    python benchmarks/red_team.py [--bench outputs/benchmarks/demo] [--tasks a,b]

Without ``--bench`` it compiles the demo's eight subtasks (compile stages only) in a
temporary folder through the real CLI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from xlebench.eval.panel.blind import panel_rows, strongest
from xlebench.eval.panel.public import (
    Public,
    bigrams,
    clock_gap,
    content_words,
    query_phrases,
    wearer,
)
from xlebench.eval.score import corpus_metrics
from xlebench.eval.scorers import ScoreSettings
from xlebench.eval.scorers.base import Blind, BlindContext, most_common
from xlebench.eval.scorers.memory import clock_answer, clock_middle, fit_clock
from xlebench.eval.scorers.option_features import steps
from xlebench.eval.scorers.order import shown
from xlebench.eval.scorers.sentences import option_vectors
from xlebench.eval.scorers.text_shapes import reference
from xlebench.eval.table import estimate
from xlebench.tasks.recipe.registry import load_recipe

ROOT = Path(__file__).resolve().parents[1]
#: Bootstrap resamples (by source video) of each route's interval in the report.
N_BOOT = 1000
#: Two printed lengths within this many seconds are one fingerprint.
SAME_S = 1.0


def _length(item: dict) -> float:
    return float(item["period"]["end_s"]) - float(item["period"]["start_s"])


def _by_length(public: Public) -> dict[int, list[dict]]:
    def build() -> dict[int, list[dict]]:
        out: dict[int, list[dict]] = defaultdict(list)
        for it in public.items.values():
            out[round(_length(it))].append(it)
        return out
    return public.memo("red-by-length", build)


def _same_length(item: dict, public: Public) -> list[dict]:
    """Items of other life logs whose period is as long as ``item``'s."""
    near = _by_length(public)
    n = round(_length(item))
    return [o for k in (n - 1, n, n + 1) for o in near.get(k, ())
            if o["lifelog_id"] != item["lifelog_id"] and abs(_length(o) - _length(item)) <= SAME_S]


def _phrases(item: dict) -> list[str]:
    return query_phrases(item["query"])


def _linked(item: dict, public: Public) -> list[dict]:
    """The items a reader links to ``item``'s records: the log's items about its period, and
    the items of other logs printing the same length as one of those (or as ``item``)."""
    near = public.neighbours(item)
    out = list(near)
    for o in [item, *near]:
        out += _same_length(o, public)
    return out


def _fingerprint_words(item: dict, _model: Any, ctx: BlindContext) -> str:
    phrases = list(dict.fromkeys(p for o in _linked(item, ctx.public) for p in _phrases(o)))
    return "C " + ", ".join(phrases) + "." if phrases else "C does things."


def fit_window_modes(train: Sequence[dict]) -> dict:
    from xlebench.eval.parse import counting_window

    tallies: dict[tuple, list[int]] = defaultdict(list)
    for it in train:
        w = counting_window(it["query"])
        length = (w[1] - w[0]) if w else 0
        for act, n in it["answer"]["counts"].items():
            verb = act.split()[0] if act.split() else act
            for key in (("a", act, length), ("v", verb, length), ("w", length), ("all",)):
                tallies[key].append(int(n))
    return {k: most_common(v, 1) for k, v in tallies.items()}


def _window_mode(item: dict, modes: dict, _ctx: BlindContext) -> str:
    from xlebench.eval.parse import counting_window

    w = counting_window(item["query"])
    length = (w[1] - w[0]) if w else 0

    def guess(act: str) -> int:
        verb = act.split()[0] if act.split() else act
        for key in (("a", act, length), ("v", verb, length), ("w", length), ("all",)):
            if key in modes:
                return modes[key]
        return 1
    return "; ".join(f"{a}: {guess(a)}" for a in item["answer"]["counts"])


def _clock_placement(item: dict, _model: Any, ctx: BlindContext) -> str:
    texts = shown(item)
    lo = float(item["period"]["start_s"])
    records = []  # (period start, words) of each record the log's items print
    for o in ctx.public.neighbours(item):
        words = set(content_words(o["query"]))
        for x in _same_length(o, ctx.public):
            words |= set(content_words(x["query"]))
        records.append((float(o["period"]["start_s"]), words))

    def when(text: str) -> float:
        ws = set(content_words(text))
        best = max(records, key=lambda r: (len(ws & r[1]) / max(1, len(ws | r[1])), -r[0]),
                   default=None)
        return best[0] if best and ws & best[1] else lo + 43_200
    ranked = sorted(range(len(texts)), key=lambda k: (when(texts[k]), k))
    return "Correct order of the summaries: " + ", ".join(map(str, ranked))


def fit_right_counts(train: Sequence[dict]) -> tuple[int, int] | None:
    values = [int(o) for it in train for k, o in enumerate(it["answer"]["options"])
              if k == it["answer"]["label"] and str(o).isdigit()]
    return (min(values), max(values)) if values else None


def _decoy_rules(item: dict, span: tuple[int, int] | None, ctx: BlindContext
                 ) -> dict[str, float]:
    options = [str(o) for o in item["answer"]["options"]]
    keep = list(range(len(options)))
    if span and all(o.isdigit() for o in options):
        keep = [k for k in keep if span[0] <= int(options[k]) <= span[1]] or keep
    pairs = [bigrams(content_words(o)) for o in options]
    own = Counter(p for ps in pairs for p in ps)
    attested = [k for k in keep if any(ctx.public.attested(item, p.replace("_", " "))[1]
                                       > 0 or own[p] < 1 for p in pairs[k])]
    keep = attested or keep
    kinds = Counter(o.split()[-1] if o.startswith("the ") else "" for o in options)
    if len(kinds) > 1 and all(o.startswith("the ") for o in options):
        common = kinds.most_common(1)[0][0]
        keep = [k for k in keep if options[k].split()[-1] == common] or keep
    return {"acc": float(item["answer"]["label"] in keep) / len(keep)}


def _clock_phrases(item: dict, model: Any, ctx: BlindContext) -> str:
    phrases = list(dict.fromkeys(p for o in ctx.public.neighbours(item) for p in _phrases(o)))
    return " ".join([clock_answer(item, model, ctx), *(f"C {p}." for p in phrases)])


def fit_persona_clock(train: Sequence[dict], _public: Public) -> list[tuple]:
    return [(wearer(it), clock_middle(it), reference(it)) for it in train]


def _persona_clock(item: dict, model: list[tuple], ctx: BlindContext) -> str:
    """The fourth red team's route as it ran it: the reference of another log of the same
    persona (the id's location and type) nearest in time of day, whatever its query, and the
    log's own questions within the hour."""
    mine = [m for m in model if m[0] == wearer(item)] or model
    if not mine:
        return "C does things."
    mid = clock_middle(item)
    head = min(mine, key=lambda m: (clock_gap(m[1], mid), m[2]))[2]
    return " ".join([head, *(f"C {p}." for p in ctx.public.phrases_near(item, 3600.0))])


def _sibling_agreement(item: dict, _model: Any, _ctx: BlindContext) -> dict[str, float]:
    words = [o.lower().split() for o in item["answer"]["options"]]
    agree = [sum(sum(a == b for a, b in zip(w, v, strict=False))
                 for j, v in enumerate(words) if j != i) for i, w in enumerate(words)]
    best = [i for i, a in enumerate(agree) if a == max(agree)]
    return {"acc": float(item["answer"]["label"] in best) / len(best)}


def _odd_one_agreement(item: dict, _model: Any, _ctx: BlindContext) -> dict[str, float]:
    seqs = [steps(o) for o in item["answer"]["options"]]
    odd = [k for k, s in enumerate(seqs)
           if all(frozenset(s) != frozenset(t) for j, t in enumerate(seqs) if j != k)]
    n = len(seqs)
    if len(odd) != 1:
        return {"acc": 1.0 / n}
    rest = [k for k in range(n) if k != odd[0]]
    agree = {k: sum(a == b for a, b in zip(seqs[k], seqs[odd[0]], strict=False)) for k in rest}
    best = [k for k in rest if agree[k] == max(agree.values())]
    return {"acc": float(item["answer"]["label"] in best) / len(best)}


def _sentence_centroid(item: dict, _model: Any, _ctx: BlindContext) -> dict[str, float]:
    """The reviewer's route as he ran it: the option nearest the mean of all its options'
    unit MiniLM vectors (itself included; the panel's member leaves it out)."""
    vecs = option_vectors(item)
    sims = vecs @ vecs.mean(axis=0)
    best = [k for k, v in enumerate(sims) if v >= sims.max() - 1e-6]
    return {"acc": float(item["answer"]["label"] in best) / len(best)}


def fit_learned(train: Sequence[dict], public: Public) -> Any:
    from xlebench.eval.scorers.learned import fit_choice

    return fit_choice(train, public)


def _learned_scores(item: dict, model: Any, public: Public) -> list[float]:
    from xlebench.eval.scorers.learned import choice_scores

    n = len(item["answer"]["options"])
    return choice_scores(item, model, public) if model is not None else [1.0 / n] * n


def _inverse_panel(item: dict, model: Any, ctx: BlindContext) -> dict[str, float]:
    """A uniform pick among the options the panel's learned member does not pick."""
    scores = _learned_scores(item, model, ctx.public)
    top = max(scores)
    avoided = [k for k, v in enumerate(scores) if v < top - 1e-12]
    if not avoided:
        return {"acc": 1.0 / len(scores)}
    return {"acc": float(item["answer"]["label"] in avoided) / len(avoided)}


def _standing(item: dict, learned: Any, public: Public) -> list[dict[str, float]]:
    """Each option's standing with the routes and members (the stacked reader's features)."""
    from xlebench.eval.scorers.choice import rule_picks

    n = len(item["answer"]["options"])
    scores = _learned_scores(item, learned, public)
    order = sorted(range(n), key=lambda k: -scores[k])
    vecs = option_vectors(item, public)
    sims = vecs @ vecs.mean(axis=0)
    picks = {"sentence": {k for k, v in enumerate(sims) if v >= sims.max() - 1e-6},
             "siblings": _picked(_sibling_agreement, item),
             **{rule: set(ks) for rule, ks in rule_picks(item).items()}}
    return [{"learned_score": scores[k], "learned_rank": order.index(k) / max(1, n - 1),
             "learned_pick": float(order[0] == k),
             **{f"{name}_pick": float(k in chosen) for name, chosen in picks.items()}}
            for k in range(n)]


def _picked(route: Any, item: dict) -> set[int]:
    """The options a route picks: those whose being right would score it (ties shared)."""
    out = set()
    for k in range(len(item["answer"]["options"])):
        probe = {**item, "answer": {**item["answer"], "label": k}}
        if route(probe, None, None)["acc"] > 0:
            out.add(k)
    return out


def fit_stacked(train: Sequence[dict], public: Public) -> Any:
    """The learned member fitted on half the training items' videos, the stacker on the
    other half's standings (a stacker fitted on the member's own training items would read
    its fitted, not its cross-fitted, picks)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    from xlebench.eval.provenance import source_videos
    from xlebench.runner.rng import derive_seed

    half = {it["item_id"]: derive_seed(0, "stacked", *sorted(source_videos(it))) % 2
            for it in train}
    first = [it for it in train if half[it["item_id"]] == 0]
    second = [it for it in train if half[it["item_id"]] == 1]
    learned = fit_learned(first, public) if first else None
    rows, labels = [], []
    for it in second:
        for k, row in enumerate(_standing(it, learned, public)):
            rows.append(row)
            labels.append(int(k == it["answer"]["label"]))
    if len(set(labels)) < 2:
        return None
    vec = DictVectorizer()
    model = LogisticRegression(max_iter=500, random_state=0).fit(vec.fit_transform(rows), labels)
    return learned, vec, model


def _stacked(item: dict, model: Any, ctx: BlindContext) -> dict[str, float]:
    n = len(item["answer"]["options"])
    if model is None:
        return {"acc": 1.0 / n}
    learned, vec, stacker = model
    probs = stacker.predict_proba(vec.transform(_standing(item, learned, ctx.public)))[:, 1]
    best = [k for k, v in enumerate(probs) if v >= probs.max() - 1e-12]
    return {"acc": float(item["answer"]["label"] in best) / len(best)}


ROUTES: dict[str, tuple[Blind, ...]] = {
    "text": (Blind("fingerprint_words", "the log's and same-length items' queries",
                   _fingerprint_words, public=True),
             Blind("clock_phrases", "the period's time of day, other logs' references, the "
                   "log's items' queries", _clock_phrases, lambda train, _p: fit_clock(train),
                   public=True),
             Blind("persona_clock", "the wearer and the time of day: the same persona's "
                   "reference, the log's questions within the hour", _persona_clock,
                   fit_persona_clock, public=True)),
    "counts": (Blind("window_mode", "counts per action and window length", _window_mode,
                     fit_window_modes),),
    "order": (Blind("clock_placement", "the log's items' periods and words",
                    _clock_placement, public=True),),
    "choice": (Blind("decoy_rules", "options ruled out by the benchmark's text",
                     _decoy_rules, lambda train, _p: fit_right_counts(train), public=True),
               Blind("sibling_agreement", "the options side by side", _sibling_agreement),
               Blind("odd_one_agreement", "the options side by side: the order agreeing most "
                     "with the odd one", _odd_one_agreement),
               Blind("sentence_centroid", "the options' MiniLM vectors", _sentence_centroid),
               Blind("inverse_panel", "not the panel's learned pick", _inverse_panel,
                     fit_learned, public=True),
               Blind("stacked", "every route's and member's pick, stacked", _stacked,
                     fit_stacked, public=True)),
}


class _RouteScorer:
    """A recipe's scorer with the red team's routes as its only blind members."""

    def __init__(self, scorer: Any) -> None:
        self._scorer = scorer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._scorer, name)

    def blind(self) -> Sequence[Blind]:
        return ROUTES.get(self._scorer.kind, ())


def routes(items: Sequence[dict], seed: int = 0, n_boot: int = 0,
           public: Sequence[dict] | None = None) -> dict[str, dict[str, float]]:
    """Per subtask: each route's mean on its primary metric (cross-fitted by source video);
    with ``n_boot``, ``<route>:ci`` holds its bootstrap interval by source video as well.
    ``public``: every item the benchmark prints (``items`` when not given)."""
    recipes = {s: load_recipe(s) for s in sorted({it["subtask"] for it in items})}
    panel = panel_rows(items, {s: replace(r, scorer=_RouteScorer(r.scorer))
                               for s, r in recipes.items()},
                       ScoreSettings(bertscore=False), seed=seed, draws=8, public=public)
    corpus = corpus_metrics(recipes)
    out: dict[str, dict[str, float]] = {}
    for sub, recipe in recipes.items():
        metric, cm = recipe.primary, corpus.get(sub, {}).get(recipe.primary)
        _, values = strongest(panel.rows.get(sub, {}), metric,
                              lambda rows, m, cm=cm: estimate(rows, m, 0, 0, cm)["mean"])
        if values:
            out[sub] = {k: v for k, v in values.items() if v is not None}
        if values and n_boot:
            for k, rows in panel.rows.get(sub, {}).items():
                ci = estimate(rows, metric, n_boot, seed, cm).get("ci95")
                if ci:
                    out[sub][f"{k}:ci"] = ci
    return out


def report(bench: Path, tasks: list[str] | None) -> list[str]:
    every = [json.loads(x) for p in sorted((bench / "annotations").glob("*.jsonl"))
             for x in p.read_text().splitlines()]
    items = [it for it in every if not tasks or it["subtask"] in tasks]
    validity = json.loads((bench / "stats" / "tasks.json").read_text())["validity"]
    lines = ["| subtask | n | printed floor [95% CI] | route | route score [95% CI] | beats "
             "the floor's interval? |", "|---|---|---|---|---|---|"]
    for sub, values in routes(items, n_boot=N_BOOT, public=every).items():
        blind = validity.get(sub, {}).get("blind") or {}
        lo, hi = blind.get("ci95") or (None, None)
        for route, v in values.items():
            if route.endswith(":ci"):
                continue
            beats = "YES" if hi is not None and v > hi else "no"
            ci = values.get(f"{route}:ci")
            said = f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else ""
            lines.append(f"| {sub} | {validity.get(sub, {}).get('items', '–')} | "
                         f"{100 * blind.get('mean', 0):.1f} [{100 * (lo or 0):.1f}, "
                         f"{100 * (hi or 0):.1f}] {blind.get('member', '')} | {route} | "
                         f"{100 * v:.1f}{said} | {beats} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", type=Path, default=None)
    ap.add_argument("--tasks", default=None)
    ap.add_argument("overrides", nargs="*", help="xlebench overrides for the compile")
    args = ap.parse_args()
    tasks = args.tasks.split(",") if args.tasks else None
    if args.bench is not None:
        print("\n".join(report(args.bench, tasks)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={tmp}", "progress=false",
               "render=none", "stages=[library,persona,plan,simulate,annotate]",
               *args.overrides]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
        print("\n".join(report(Path(tmp) / "benchmarks" / "demo", tasks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
