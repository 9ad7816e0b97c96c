"""The learned blind member of every answer kind: a standard learner over what a submitter reads.

The panel's named members each close one route a reviewer found (a constant summary, a
position prior, the options seen elsewhere...). Each red team has found the next route, so
every subtask also gets a member that is not told the route: a learner over everything the
benchmark prints about an item (`xlebench.eval.panel.public.Public`) — its query's words and
numbers, its options, its period's clock and length, the wearer, and the queries and options
of the other items of its life log about the same records — fitted on the answers of other items (the panel
cross-fits it by source video, and again on other life logs as ``learned_remembered``). This
is the idea of AFLite (Le Bras et al., ICML 2020, "Adversarial Filters of Dataset Biases"):
simple models over precomputed features say how predictable an item is without its input.

* choices: logistic regression over each option's words and word pairs (alone and crossed
  with what the query prints of the period and the wearer: its hour, part of the day and
  length, the location and the type), its length, its overlap with the question and with
  what the log's other items print about the record, how it compares with its siblings (the
  steps it holds at the same place as each, whether its set of steps or words is the odd one,
  its distance to their centroid, its rank among them on every measure), how often its words
  and word pairs occur in the rest of the benchmark (a decoy no other question names is
  unlikely to be right), and how often the fitted items had its text as a right and as a
  wrong option (a text only ever seen wrong elsewhere, or only right, is remembered);
* counts: a multinomial logistic regression per listed action over the action, its verb and
  noun, the window's and the period's lengths and their crossings, the period's hour and the
  wearer;
* spans (`xlebench.eval.scorers.spans`): the answers of the nearest items (TF-IDF over the
  masked question, what the log's other items print about the record, the period's hour,
  part of the day and length, and the wearer's location and type), placed at the same
  relative position in the item's period;
* orders (`xlebench.eval.scorers.order`): ridge regression of each shown text's place in the
  day from its words and where the log's other questions about them sit;
* texts and short answers: the reference of the nearest item (the same nearness).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.panel.public import (
    Public,
    bigrams,
    content_words,
    context_tokens,
    masked,
)
from xlebench.eval.scorers.base import Blind, BlindContext, picked
from xlebench.eval.scorers.option_features import option_features, option_key

#: What every learned member reads, printed with the panel.
READS = ("the query, options and period; what the benchmark's other items print about the "
         "same records; answers of items about other videos")
#: Features are hashed into this many columns.
HASHED = 2 ** 14
#: Counts above this are one class.
MAX_COUNT = 12
#: Nearest items whose answers the span member places.
NEIGHBOURS = 8


def by_id(train: Sequence[dict]) -> list[dict]:
    """Training items in id order: a fit does not depend on the order items come in."""
    return sorted(train, key=lambda it: it["item_id"])


def hashed():
    from sklearn.feature_extraction import FeatureHasher

    return FeatureHasher(n_features=HASHED, input_type="dict", alternate_sign=False)


# -- nearness ---------------------------------------------------------------------------------

def _document(item: dict, public: Public) -> str:
    return " ".join([masked(item["query"]), public.about(item), *context_tokens(item)])


def _tfidf(public: Public) -> tuple[Any, dict[str, int], Any]:
    """A TF-IDF vectoriser fitted on every item's public document (never an answer), the
    row of each item, and the matrix."""
    def build() -> tuple[Any, dict[str, int], Any]:
        from sklearn.feature_extraction.text import TfidfVectorizer

        ids = sorted(public.items)
        vec = TfidfVectorizer(sublinear_tf=True, token_pattern=r"[a-z0-9#]+")
        matrix = vec.fit_transform([_document(public.items[i], public) for i in ids])
        return vec, {i: k for k, i in enumerate(ids)}, matrix
    return public.memo("learned-tfidf", build)


def _vector(item: dict, public: Public) -> Any:
    vec, row, matrix = _tfidf(public)
    if item["item_id"] in row:
        return matrix[row[item["item_id"]]]
    return vec.transform([_document(item, public)])


def warm_nearest(public: Public) -> None:
    """The view's TF-IDF matrix fitted now (before a step spreads its fits over processes)."""
    _tfidf(public)


def fit_nearest(train: Sequence[dict], public: Public) -> dict:
    """The training items' vectors and answers."""
    train = by_id(train)
    if not train:
        return {"matrix": None, "items": []}
    vec, row, matrix = _tfidf(public)
    inside = [row.get(it["item_id"]) for it in train]
    if None not in inside:  # one slice of the shared matrix (fits per item are many)
        return {"matrix": matrix[inside], "items": train}
    from scipy.sparse import vstack

    return {"matrix": vstack([_vector(it, public) for it in train]).tocsr(), "items": train}


def nearest(item: dict, model: dict, public: Public, k: int = 1) -> list[dict]:
    """The ``k`` training items nearest ``item`` (cosine; ties to the smaller id)."""
    if model["matrix"] is None:
        return []
    sims = np.asarray((model["matrix"] @ _vector(item, public).T).todense()).ravel()
    order = np.lexsort((np.arange(len(sims)), -sims))[:k]
    return [model["items"][j] for j in order]


def _reference(item: dict, model: dict, ctx: BlindContext) -> str:
    near = nearest(item, model, ctx.public)
    return str(near[0]["answer"].get("text") or "") if near else ""


def nearest_reference() -> Blind:
    """Texts, short answers, verbs and relations: the nearest item's reference."""
    return Blind("learned", READS + "; replies with the nearest item's reference",
                 _reference, fit_nearest, public=True)


# -- choices -----------------------------------------------------------------------------------

#: Where an option's text is cut into its steps ("C washes the plate, then cuts the onion").
def _memory(train: Sequence[dict]) -> dict[str, tuple[int, int]]:
    """Per option text: how often it was the right option and how often a wrong one."""
    tally: dict[str, list[int]] = {}
    for it in train:
        for k, o in enumerate(it["answer"]["options"]):
            cell = tally.setdefault(option_key(str(o)), [0, 0])
            cell[0 if k == it["answer"]["label"] else 1] += 1
    return {t: (r, w) for t, (r, w) in tally.items()}


def _with_memory(item: dict, rows: list[dict[str, float]], memory: dict[str, tuple[int, int]],
                 own: bool) -> list[dict[str, float]]:
    """Each option's row with what the fitted items' answers say of its text: times seen as
    the right option and as a wrong one elsewhere (``own``: the item is one of them, and its
    own answer is left out, as it is for an item the fit never saw)."""
    out = []
    for k, (o, row) in enumerate(zip(item["answer"]["options"], rows, strict=True)):
        right, wrong = memory.get(option_key(str(o)), (0, 0))
        if own:
            right, wrong = right - (k == item["answer"]["label"]), wrong - (k != item["answer"]["label"])
        out.append({**row, "seen_right": math.log1p(right), "seen_wrong": math.log1p(wrong),
                    "only_wrong": float(right == 0 and wrong > 0),
                    "never_seen": float(right == 0 and wrong == 0)})
    return out


#: A word is a feature when this many distinct option texts of the fitted items hold it: a
#: word of one text only would name that text, and a fit that learns a text's own answer
#: from its words finds it wrong wherever it is held out.
MIN_TEXTS = 3


def _vocabulary(train: Sequence[dict]) -> frozenset[str]:
    """The words and word pairs `MIN_TEXTS` distinct option texts hold, and (``x:``) the
    words and whole texts (``x:=``) the options of `MIN_TEXTS` fitted items hold: those are
    crossed with the period and the wearer (`context_tokens`), so that a text that is right
    in the morning and wrong at night is learned however few texts there are."""
    texts = {str(o) for it in train for o in it["answer"]["options"]}
    seen: Counter[str] = Counter()
    for t in texts:
        ws = content_words(t)
        seen.update(set(ws) | bigrams(ws))
    items: Counter[str] = Counter()
    for it in train:
        options = [str(o) for o in it["answer"]["options"]]
        items.update({f"x:{w}" for o in options for w in content_words(o)}
                     | {f"x:={option_key(o)}" for o in options})
    return frozenset([*(w for w, n in seen.items() if n >= MIN_TEXTS),
                      *(w for w, n in items.items() if n >= MIN_TEXTS)])


def fit_choice(train: Sequence[dict], public: Public) -> Any:
    """Logistic regression of "this option is right" over `option_features` and the fitted
    items' memory of each option text (`_with_memory`)."""
    train = by_id(train)
    memory, vocab = _memory(train), _vocabulary(train)
    rows, labels = [], []
    for it in train:
        feats = _with_memory(it, option_features(it, public, vocab), memory, own=True)
        rows += feats
        labels += [int(k == it["answer"]["label"]) for k in range(len(feats))]
    if len(set(labels)) < 2:
        return None
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0, solver="liblinear", max_iter=500, random_state=0)
    model.fit(hashed().transform(rows), labels)
    return model, memory, vocab


def choice_scores(item: dict, model: Any, public: Public) -> list[float]:
    """Each option's fitted probability of being right."""
    fitted, memory, vocab = model
    rows = _with_memory(item, option_features(item, public, vocab), memory, own=False)
    return list(fitted.predict_proba(hashed().transform(rows))[:, 1])


def _choice(item: dict, model: Any, ctx: BlindContext) -> dict[str, float]:
    n = len(item["answer"]["options"])
    if model is None:
        return {"acc": 1.0 / n}
    return picked(item, top_options(choice_scores(item, model, ctx.public)))


def top_options(scores: Sequence[float]) -> list[int]:
    """The options of the highest score (ties kept)."""
    top = max(scores)
    return [k for k, v in enumerate(scores) if v >= top - 1e-12]


def learned_choice() -> Blind:
    return Blind("learned", READS + "; logistic regression over the options' words, lengths, "
                 "overlaps and how often the rest of the benchmark names them", _choice,
                 fit_choice, public=True)


# -- counts ------------------------------------------------------------------------------------

def _window_length(item: dict) -> float:
    from xlebench.eval.parse import counting_window

    w = counting_window(item["query"])
    return float(w[1] - w[0]) if w else 0.0


def count_features(item: dict, public: Public) -> list[dict[str, float]]:
    """One feature dict per listed action of a counting item (in the answer's order)."""
    actions = list(item["answer"]["counts"])
    win = _window_length(item)
    lo, hi = float(item["period"]["start_s"]), float(item["period"]["end_s"])
    rows = []
    for k, act in enumerate(actions):
        verb, *rest = act.split() or [""]
        noun = rest[-1] if rest else ""
        uni, bi = public.attested(item, act)
        w = f"{int(win)}"
        rows.append({f"a={act}": 1.0, f"v={verb}": 1.0, f"n={noun}": 1.0, f"win={w}": 1.0,
                     f"a={act}|win={w}": 1.0, f"v={verb}|win={w}": 1.0,
                     "window": win / 180, "period": math.log1p(max(0.0, hi - lo) / 60),
                     "position": k / max(1, len(actions) - 1), "listed": len(actions) / 5,
                     "attested_words": uni, "attested_pairs": bi,
                     **{c: 1.0 for c in context_tokens(item)}})
    return rows


def fit_counts(train: Sequence[dict], public: Public) -> Any:
    rows, labels = [], []
    for it in by_id(train):
        rows += count_features(it, public)
        labels += [min(MAX_COUNT, int(n)) for n in it["answer"]["counts"].values()]
    if len(set(labels)) < 2:
        return labels[0] if labels else 1
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    model = OneVsRestClassifier(LogisticRegression(C=1.0, solver="liblinear", max_iter=500, random_state=0))
    model.fit(hashed().transform(rows), labels)
    return model


def _counts(item: dict, model: Any, ctx: BlindContext) -> str:
    actions = list(item["answer"]["counts"])
    if isinstance(model, int):
        guess = [model] * len(actions)
    else:
        guess = list(model.predict(hashed().transform(count_features(item, ctx.public))))
    return "; ".join(f"{a}: {int(n)}" for a, n in zip(actions, guess, strict=True))


def learned_counts() -> Blind:
    return Blind("learned", READS + "; logistic regression of each listed action's count over "
                 "the action, its verb and noun, and the window's and period's lengths",
                 _counts, fit_counts, public=True)
