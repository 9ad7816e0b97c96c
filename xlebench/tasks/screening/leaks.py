"""Items that give away another item's answer: found and settled across the whole benchmark.

A query (with its options) is shown to a system; if it contains the answer of another item of
the same life log, or of another item about the same source video in any life log, a reader of
that one query answers the other item without the video (the paper's ordering query printed
the day's summary references verbatim). Text answers and right options are compared by word
5-grams: an answer is printed when most of its 5-grams appear in the shown text. Short answers
(counts, spans, single words) are left out: their words are everywhere. A query may also show,
in other words, what another item about one of its videos answers (`shown_pairs`). `settle`
drops one side of every such pair, keeping each meeting subtask a fair share.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from functools import partial

from xlebench.eval.metrics import rouge_l_content, rouge_tokens
from xlebench.eval.provenance import source_videos
from xlebench.runner.cores import runs, spread
from xlebench.runner.rng import derive_seed

#: Word n-grams compared, the share of an answer's n-grams that makes it printed, and the
#: fewest words an answer needs to be compared at all.
N, SHARE, MIN_WORDS = 5, 0.8, 8


def _grams(text: str) -> set[tuple[str, ...]]:
    return _grams_of(rouge_tokens(text))


def _grams_of(words: Sequence[str]) -> set[tuple[str, ...]]:
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
    """Per item id: the ids of the other items (same life log or same source video, in any
    life log) whose answer its query prints. Indexed by n-gram, on each answer's rarest few
    (`_signature`): a query that prints an answer holds one of them, so each query looks up
    those, and compares the few answers it finds in full. Counting every answer that holds
    each of its 5-grams grew with the benchmark: a 5-gram common to thousands of answers made
    each query's count long (at ten times the paper grid, 10-14 s of settling on two cores)."""
    words = {t: rouge_tokens(t) for t in dict.fromkeys(answer_text(it) for it in items)}
    answers = {it["item_id"]: g for it in items
               if len(w := words[answer_text(it)]) >= MIN_WORDS and (g := _grams_of(w))}
    seen = Counter(g for grams in answers.values() for g in grams)
    holders: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for item_id, grams in answers.items():
        for g in _signature(grams, seen):
            holders[g].append(item_id)
    units = {it["item_id"]: _units(it) for it in items}
    # the queries' look-ups, runs of items spread over the run's cores
    out: dict[str, list[str]] = {}
    for part in spread([partial(_printed_run, run, answers, holders, units)
                        for run in runs(items, _PER_TASK)]):
        out.update(part)
    return out


def _signature(grams: set[tuple[str, ...]], seen: Mapping[tuple[str, ...], int]
               ) -> list[tuple[str, ...]]:
    """The rarest 5-grams of an answer, enough that a text holding `SHARE` of its 5-grams
    holds at least one of them: of its ``k`` grams a printing text holds ``need``, so it
    misses at most ``k - need`` and holds one of any ``k - need + 1`` (prefix filtering).
    ``need`` is the least count that passes `prints`' own comparison, so none is lost."""
    need = math.ceil(SHARE * len(grams))
    return sorted(grams, key=lambda g: (seen[g], g))[:len(grams) - need + 1]


#: Items per task of `printed` and `shown_pairs`.
_PER_TASK = 512


def _printed_run(items: Sequence[dict], answers: Mapping[str, set], holders: Mapping[tuple,
                 list[str]], units: Mapping[str, set[str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    queried: dict[str, set[tuple[str, ...]]] = {}  # a query's 5-grams (logs repeat queries)
    for it in items:
        me, query = it["item_id"], it["query"]
        if (shown := queried.get(query)) is None:
            shown = queried[query] = _grams(query)
        found = {o for g in shown for o in holders.get(g, ())}
        found.discard(me)
        mine = units[me]
        hits = sorted(o for o in found if len(answers[o] & shown) >= SHARE * len(answers[o])
                      and not mine.isdisjoint(units[o]))
        if hits:
            out[me] = hits
    return out


def _units(item: dict) -> set[str]:
    """What makes two items neighbours: their life log, or any source video."""
    return {"log:" + item["lifelog_id"], *("video:" + v for v in source_videos(item))}


#: The share of an answering item's records another item must show to meet it.
MIN_SHOWN = 0.5
#: Why a conflicting item was dropped (the values of `settle`).
PRINTED_PAIR, SHOWN_PAIR = "printed", "shown"


def shown_pairs(items: Sequence[dict], shows: Mapping[str, Sequence[str]],
                answers: Mapping[str, str | None]) -> dict[str, set[str]]:
    """Per showing item: the items about one of its source videos, in any life log, that
    answer in the terms it shows (the ordering query's clip text of a record and a summary of
    that record; the roles query's verbs and the verb item of the same event): not verbatim,
    so `printed` misses it, but a reader who links the two copies the right text. A log's
    period no longer names its video (padded periods), but what other queries print about a
    record does: the source video is the unit across the whole benchmark. ``shows`` /
    ``answers``: per subtask, the recipe's declarations. Multiple-choice options both show
    and answer: items of one such recipe about the same records do not meet each other here
    (a record would keep one question), and what their options give away about each other is
    left to the learned blind member and the filters that read it (`xlebench.eval.scorers.
    learned`, `xlebench.tasks.screening.aflite`); items of another recipe meet them, and so do
    items of the recipe about other records (a morning's summary choice prints what the
    choice about one of its records answers). A pair counts where the showing item shows at
    least `MIN_SHOWN` of the answering item's records: all of one record's summary, half a
    morning's; one record of another day's fifteen gives a fifteenth of its summary away, and
    what such a fragment is worth is the learned member's to read."""
    videos = [source_videos(it) for it in items]
    subs = [it["subtask"] for it in items]
    kinds = [set(shows.get(sub, ())) for sub in subs]
    by_video: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, sub in enumerate(subs):
        if kind := answers.get(sub):
            for v in set(videos[k]):
                by_video[(v, kind)].append(k)
    # runs of showing items spread over the run's cores; items cross back as positions
    ids = [it["item_id"] for it in items]
    out: dict[str, set[str]] = {}
    for part in spread([partial(_shown_run, run, videos, subs, kinds, by_video)
                        for run in runs([k for k in range(len(items)) if kinds[k]], _PER_TASK)]):
        out.update((ids[k], {ids[o] for o in met}) for k, met in part)
    return out


def _shown_run(showing: Sequence[int], videos: Sequence[Sequence[str]], subs: Sequence[str],
               kinds: Sequence[set[str]], by_video: Mapping[tuple[str, str], list[int]]
               ) -> list[tuple[int, list[int]]]:
    out = []
    for me in showing:
        mine, met = set(videos[me]), set()
        for kind in kinds[me]:
            # how many of its videos each answering item shares: one count per (video,
            # item) listed, where intersecting the two items' videos per pair grew with the
            # square of the items about one video
            shared = Counter(o for v in mine for o in by_video.get((v, kind), ()))
            met.update(o for o, n in shared.items() if n >= MIN_SHOWN * len(videos[o])
                       and (subs[o] != subs[me] or kind not in kinds[o]
                            or videos[o] != videos[me]))
        met.discard(me)
        if met:
            out.append((me, list(met)))
    return out


def settle(items: Sequence[dict], shows: Mapping[str, Sequence[str]],
           answers: Mapping[str, str | None], seed: int,
           preferred: frozenset[str] = frozenset()) -> dict[str, str]:
    """The items to drop, each with why (`PRINTED_PAIR` or `SHOWN_PAIR`), so that no query
    prints another item's answer (`printed`) and none shows what another item about one of
    its videos answers (`shown_pairs`), across every life log.

    A cover of the conflicting pairs that keeps each meeting subtask a fair share: while
    pairs remain, the subtask that has kept the largest share of its items gives up its item
    in most pairs (ties by a seeded draw). Dropping the item in most pairs alone would empty
    a recipe whose every item meets several others (an ordering query shows a whole day's
    records, each summarised elsewhere); a coin per video would too (an ordering query
    survives only where every one of its records' coins falls its way). One item of each
    subtask in the ``preferred`` life logs (the rendered ones, few) is kept first where one
    meets none kept so far (`_protected`), so that a model shown videos is asked every
    subtask; within a subtask, other items of those logs go last."""
    edges: dict[str, dict[str, str]] = defaultdict(dict)
    for why, pairs in ((SHOWN_PAIR, shown_pairs(items, shows, answers)),
                       (PRINTED_PAIR, printed(items))):
        for a, bs in pairs.items():
            for b in bs:
                edges[a][b] = edges[b][a] = why
    sub_of = {it["item_id"]: it["subtask"] for it in items}
    pairs = {a: set(bs) for a, bs in edges.items()}
    rendered = {it["item_id"] for it in items if it["lifelog_id"] in preferred}
    first = {}
    for node in _protected(pairs, sub_of, rendered, seed):
        for other in edges.pop(node, {}):
            first[other] = edges[other][node]
            for far in edges.pop(other):
                if far != node:
                    edges[far].pop(other, None)
                    if not edges[far]:
                        del edges[far]
    dropped = _restore({**first, **_fair_cover(edges, sub_of, seed, rendered)}, pairs,
                       sub_of, seed)
    return _even_out(dropped, pairs, sub_of, seed)


def _restore(dropped: dict[str, str], pairs: Mapping[str, set[str]], sub_of: Mapping[str, str],
             seed: int) -> dict[str, str]:
    """Put back every dropped item none of whose partners is kept (a partner dropped for
    another pair), the subtasks that kept least first: the cover stays a cover, and no item
    is dropped that need not be."""
    totals = Counter(sub_of.values())
    kept = totals - Counter(sub_of[i] for i in dropped)
    order = sorted(dropped, key=lambda i: (kept[sub_of[i]] / totals[sub_of[i]],
                                           derive_seed(seed, "conflict-restore", i), i))
    out = dict(dropped)
    for node in order:
        if all(o in out for o in pairs[node]):
            del out[node]
            kept[sub_of[node]] += 1
    return out


def _protected(pairs: Mapping[str, set[str]], sub_of: Mapping[str, str], rendered: set[str],
               seed: int) -> list[str]:
    """One conflicting item per subtask among ``rendered`` ones, none meeting another (the
    subtasks in a seeded order, each's items by fewest partners)."""
    chosen: list[str] = []
    for sub in sorted({sub_of[i] for i in rendered if i in pairs},
                      key=lambda s: (derive_seed(seed, "protect", s), s)):
        mine = sorted((i for i in rendered if i in pairs and sub_of[i] == sub),
                      key=lambda i: (len(pairs[i]), derive_seed(seed, "protect", i), i))
        free = [i for i in mine if not any(o in pairs[i] for o in chosen)]
        if free:
            chosen.append(free[0])
    return chosen


def _even_out(dropped: dict[str, str], pairs: Mapping[str, set[str]],
              sub_of: Mapping[str, str], seed: int, rounds: int = 4) -> dict[str, str]:
    """Trade items toward the subtask that kept least: a dropped item comes back where
    dropping its kept partners leaves every subtask they belong to a larger share than its
    own then has (an ordering query for the two summaries of its records, when summaries
    kept more). Bounded rounds; each trade raises the smallest share it touches."""
    totals = Counter(sub_of.values())
    out = dict(dropped)
    kept = totals - Counter(sub_of[i] for i in out)
    for _ in range(rounds):
        moved = False
        for node in sorted(out, key=lambda i: (kept[sub_of[i]] / totals[sub_of[i]],
                                               derive_seed(seed, "conflict-even", i), i)):
            if node not in out:
                continue
            mine = sub_of[node]
            partners = [o for o in pairs[node] if o not in out]
            lose = Counter(sub_of[o] for o in partners)
            after = (kept[mine] + 1 - lose[mine]) / totals[mine]
            if lose[mine] or not all((kept[t] - n) / totals[t] > after for t, n in lose.items()):
                continue
            why = out.pop(node)
            kept[mine] += 1
            for o in partners:
                out[o] = why
                kept[sub_of[o]] -= 1
            moved = True
        if not moved:
            break
    return _restore(out, pairs, sub_of, seed)


def _fair_cover(edges: dict[str, dict[str, str]], sub_of: Mapping[str, str], seed: int,
                keep_first: set[str]) -> dict[str, str]:
    totals = Counter(sub_of.values())
    kept = Counter(totals)
    heaps: dict[str, list[tuple[int, bool, int, str]]] = defaultdict(list)
    for node, nbrs in edges.items():
        heapq.heappush(heaps[sub_of[node]], (node in keep_first, -len(nbrs),
                                             derive_seed(seed, "conflict-drop", node), node))
    dropped: dict[str, str] = {}
    while edges:
        sub = max((s for s, h in heaps.items() if h),
                  key=lambda s: (kept[s] / totals[s], derive_seed(seed, "conflict-sub", s)))
        keep, neg, tie, node = heapq.heappop(heaps[sub])
        if node not in edges:
            continue
        if -neg != len(edges[node]):  # its degree fell since it was pushed
            heapq.heappush(heaps[sub], (keep, -len(edges[node]), tie, node))
            continue
        nbrs = edges.pop(node)
        dropped[node] = PRINTED_PAIR if PRINTED_PAIR in nbrs.values() else SHOWN_PAIR
        kept[sub] -= 1
        for other in nbrs:
            edges[other].pop(node, None)
            if not edges[other]:
                del edges[other]
    return dropped


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


#: Two printed period lengths within this many seconds are the same length.
SAME_LENGTH_S = 1.0


def fingerprint(items: Sequence[dict]) -> dict[str, float | int]:
    """Whether a printed period names its video. Over the items about one video, whose
    period is that record's (``export/questions/`` prints its seconds): of the pairs about
    the same video in two life logs, the share whose periods have the same length
    (`SAME_LENGTH_S`), a link a reader follows from one log to another; and the share of
    items whose period length no item about another video prints, which names the video."""
    single = [it for it in items if len(source_videos(it)) == 1]
    length = {it["item_id"]: float(it["period"]["end_s"]) - float(it["period"]["start_s"])
              for it in single}
    by_video: dict[str, list[dict]] = defaultdict(list)
    for it in single:
        by_video[source_videos(it)[0]].append(it)
    pairs = same = 0
    for its in by_video.values():
        for k, a in enumerate(its):
            for b in its[k + 1:]:
                if a["lifelog_id"] != b["lifelog_id"]:
                    pairs += 1
                    same += abs(length[a["item_id"]] - length[b["item_id"]]) <= SAME_LENGTH_S
    bins: dict[int, set[str]] = defaultdict(set)
    for it in single:
        bins[round(length[it["item_id"]])].add(source_videos(it)[0])
    unique = sum(1 for it in single if _videos_near(bins, length[it["item_id"]]) == 1)
    return {"cross_log_pairs": pairs,
            "cross_log_equal_length": round(same / pairs, 4) if pairs else 0.0,
            "single_video_items": len(single),
            "length_names_video": round(unique / len(single), 4) if single else 0.0}


def _videos_near(bins: Mapping[int, set[str]], length: float) -> int:
    near = range(math.floor(length - SAME_LENGTH_S), math.ceil(length + SAME_LENGTH_S) + 1)
    return len(set().union(*(bins.get(b, set()) for b in near)))


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
