"""Items that print another item's answer: the audit of a compiled benchmark.

A query (with its options) is shown to a system; if it contains the answer of another item of
the same life log, or of another item about the same source video, a reader of that one query
answers the other item without the video (the paper's ordering query printed the day's summary
references verbatim). Text answers and right options are compared by word 5-grams: an answer is
printed when most of its 5-grams appear in the shown text. Short answers (counts, spans, single
words) are left out: their words are everywhere.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from xlebench.eval.metrics import rouge_l_content, rouge_tokens
from xlebench.eval.provenance import source_videos
from xlebench.runner.rng import derive_seed

#: Word n-grams compared, the share of an answer's n-grams that makes it printed, and the
#: fewest words an answer needs to be compared at all.
N, SHARE, MIN_WORDS = 5, 0.8, 8


def _grams(text: str) -> set[tuple[str, ...]]:
    words = rouge_tokens(text)
    return {tuple(words[i:i + N]) for i in range(len(words) - N + 1)}


def prints(shown: str, answer: str) -> bool:
    """Whether ``shown`` prints ``answer`` (most of its word 5-grams; short answers never)."""
    if len(rouge_tokens(answer)) < MIN_WORDS:
        return False
    grams = _grams(answer)
    return bool(grams) and len(grams & _grams(shown)) >= SHARE * len(grams)


def answer_text(item: dict) -> str:
    """What an item's answer says in words: the right option of a multiple-choice item."""
    ans = item["answer"]
    if ans.get("options") and ans.get("label") is not None:
        return str(ans["options"][int(ans["label"])])
    return str(ans.get("text") or "")


def printed(items: Sequence[dict]) -> dict[str, list[str]]:
    """Per item id: the ids of the other items (same life log or same source video) whose
    answer its query prints."""
    answers = {it["item_id"]: g for it in items
               if len(rouge_tokens(answer_text(it))) >= MIN_WORDS
               and (g := _grams(answer_text(it)))}
    neighbours: dict[str, set[str]] = defaultdict(set)
    for group in _groups(items):
        for it in group:
            neighbours[it["item_id"]].update(o["item_id"] for o in group)
    out: dict[str, list[str]] = {}
    for it in items:
        shown = _grams(it["query"])
        hits = sorted(o for o in neighbours[it["item_id"]] - {it["item_id"]}
                      if o in answers and len(answers[o] & shown) >= SHARE * len(answers[o]))
        if hits:
            out[it["item_id"]] = hits
    return out


def resolve(items: Sequence[dict], seed: int) -> set[str]:
    """The items to drop so that no query prints another item's answer: a vertex cover of the
    pairs (the printer, the printed), greedily — the item in most pairs first, ties by a seeded
    draw. Dropping every printer would empty a recipe whose options are another's answers (a
    summary multiple-choice item and the single-video summary of its record); the cover keeps
    part of both, and drops an ordering query that prints a whole day's answers before them."""
    adj: dict[str, set[str]] = defaultdict(set)
    for p, qs in printed(items).items():
        for q in qs:
            adj[p].add(q)
            adj[q].add(p)
    dropped: set[str] = set()
    while adj:
        node = max(adj, key=lambda n: (len(adj[n]), derive_seed(seed, "printed-drop", n), n))
        dropped.add(node)
        for other in adj.pop(node):
            adj[other].discard(node)
            if not adj[other]:
                del adj[other]
    return dropped


def _groups(items: Iterable[dict]) -> list[list[dict]]:
    by: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by["log:" + it["lifelog_id"]].append(it)
        for v in source_videos(it):
            by["video:" + v].append(it)
    return list(by.values())


def audit(items: Sequence[dict]) -> dict[str, dict]:
    """Per subtask: how many items print another item's answer, and from which subtasks."""
    sub_of = {it["item_id"]: it["subtask"] for it in items}
    out: dict[str, dict] = {}
    for item_id, hits in printed(items).items():
        cell = out.setdefault(sub_of[item_id], {"items": 0, "answers_of": {}, "example": item_id})
        cell["items"] += 1
        for h in hits:
            cell["answers_of"][sub_of[h]] = cell["answers_of"].get(sub_of[h], 0) + 1
    return dict(sorted(out.items()))


def shown(items: Sequence[dict], shows: Mapping[str, Sequence[str]],
          answers: Mapping[str, str | None], seed: int) -> set[str]:
    """The items to drop so that no query shows, in other words, what another item of its life
    log answers about one of the same videos (the ordering query's clip text of a record and
    that record's summary; the roles query's verbs and the verb item of the same event): not
    verbatim, so `printed` misses it, but a reader who picks the right text copies it.
    ``shows``/``answers``: per subtask, the recipe's declarations. Per life log and kind a
    seeded coin keeps one side — the showing items or the answering ones — so both recipes
    keep about half of the logs where they meet, rather than one recipe losing every item
    (the showing item meets several answering ones in each log)."""
    by: dict[tuple[str, str], tuple[list[dict], list[dict]]] = defaultdict(lambda: ([], []))
    for it in items:
        for kind in shows.get(it["subtask"], ()):
            by[(it["lifelog_id"], kind)][0].append(it)
        if kind := answers.get(it["subtask"]):
            by[(it["lifelog_id"], kind)][1].append(it)
    drop: set[str] = set()
    for log, kind in sorted(by):
        showing, answering = by[(log, kind)]
        seen = {v for it in showing for v in source_videos(it)}
        ids = {it["item_id"] for it in showing}
        met = [it for it in answering if seen & set(source_videos(it))
               and it["item_id"] not in ids]
        if not showing or not met:
            continue
        keep_shown = derive_seed(seed, "shown-side", log, kind) % 2 == 0
        drop.update(it["item_id"] for it in (met if keep_shown else showing))
    return drop


_SPLIT = re.compile(r"Summary \d+:|(?<=[.?!])\s+")


def fragments(query: str) -> list[str]:
    """A query's sentences and listed texts (``Summary k: …``), each a candidate reply."""
    return [f.strip() for f in _SPLIT.split(query) if len(rouge_tokens(f)) >= 3]


def other_queries(items: Sequence[dict]) -> dict[str, dict[str, float | int]]:
    """Per subtask, an upper bound on what reading the *other* queries of an item's life log
    gives (never an answer): a free-text answer scores the best ROUGE-L over content words
    (the summaries' headline) of any sentence those queries print (``best``: a reader who could tell which one to copy) and their mean
    (``uniform``: one who copies any); a multiple-choice answer is right when they print its
    right option (both). Spans, counts and orders are never printed as such and are left out."""
    by_log: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_log[it["lifelog_id"]].append(it)
    pieces = {it["item_id"]: fragments(it["query"]) for it in items}
    scores: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for it in items:
        ans = it["answer"]
        others = [o for o in by_log[it["lifelog_id"]] if o["item_id"] != it["item_id"]]
        if ans.get("options") and ans.get("label") is not None:
            shown = " ".join(o["query"] for o in others)
            hit = float(prints(shown, answer_text(it)))
            scores[it["subtask"]].append((hit, hit))
        elif ans.get("text") and not (ans.get("spans") or ans.get("counts") or ans.get("order")) \
                and len(rouge_tokens(ans["text"])) >= MIN_WORDS:
            got = [rouge_l_content(f, ans["text"]) for o in others
                   for f in pieces[o["item_id"]]]
            scores[it["subtask"]].append((max(got, default=0.0),
                                          sum(got) / len(got) if got else 0.0))
    return {sub: {"best": round(sum(b for b, _ in v) / len(v), 4),
                  "uniform": round(sum(u for _, u in v) / len(v), 4), "n": len(v)}
            for sub, v in sorted(scores.items())}
