"""Filtering that leaves no fingerprint: keep a blind reader's right and wrong picks in the
proportion chance gives.

A filter that drops every multiple-choice item a blind reader answers leaves that reader wrong
on everything it keeps, so "not the reader's pick" answers the benchmark (issue 77: the
open-source panel's inverse beat every printed floor it was tried on). Here a filter drops
only the *excess*: per stratum of the reader's confidence, the items it gets right beyond what
a uniform guess among k options would (1 in k), or, where the reader is below chance, the
items it gets wrong beyond that. What is kept then makes neither the reader's pick nor its
inverse informative, in every stratum, so neither "follow it where it is sure" nor "avoid it
where it is sure" reads anything either. Which items of the excess go is a seeded draw, so
the kept items' other features carry no trace of the choice.

A reader's confidence is how many of the other members pick what it picks (`agreement`):
a pick the whole panel shares is where a reader would trust it.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from xlebench.runner.rng import derive_seed

#: A reader is left as it is while its accuracy on the kept items lies within this many
#: standard errors above chance (binomial, per item 1/k): a narrower band than the 95%
#: interval a reviewer draws, so what is published sits well inside it.
Z_BALANCED = 1.0
#: ... and within this many below it. A reader below chance is worth to a submitter only
#: through its inverse, whose excess is 1/(k-1) of its deficit (a pick among the other k-1
#: options): the band is wider there, still inside the 95% interval, and every dropped wrong
#: pick (worth 1/k of the excess, against (k-1)/k for a right one) costs more items.
Z_BELOW = 1.6
#: A confidence stratum smaller than this is pooled with the reader's others of its tag.
MIN_BIN = 15
#: Agreement strata: the share of the other members picking what the reader picks, in thirds.
BINS = 3


def chance(item: dict) -> float:
    """A uniform guess's accuracy on a multiple-choice item."""
    return 1.0 / len(item["answer"]["options"])


def deviation(ids: Sequence[str], acc: Mapping[str, float], base: Mapping[str, float]) -> float:
    """The reader's excess over chance on ``ids`` in standard errors (0 on no item)."""
    excess = math.fsum(acc[i] - base[i] for i in ids)
    var = math.fsum(base[i] * (1 - base[i]) for i in ids)
    return excess / math.sqrt(var) if var > 0 else 0.0


def balanced(ids: Sequence[str], acc: Mapping[str, float], base: Mapping[str, float]) -> bool:
    """Whether the reader's accuracy on ``ids`` is inside the band around chance."""
    return -Z_BELOW <= deviation(ids, acc, base) <= Z_BALANCED


def excess_drops(ids: Sequence[str], acc: Mapping[str, float], base: Mapping[str, float],
                 strata: Mapping[str, str], seed: int, *salt: object) -> set[str]:
    """The items to drop so that, in each stratum, the reader's summed accuracy is as near
    chance's as dropping whole items gets it: the excess side's items (right beyond chance, or
    wrong beyond it) in a seeded order, each dropped while that brings the two nearer."""
    by: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        by[strata.get(i, "")].append(i)
    out: set[str] = set()
    for stratum, members in sorted(by.items()):
        excess = math.fsum(acc[i] - base[i] for i in members)
        side = [i for i in members if (acc[i] - base[i]) * excess > 0]
        for i in sorted(side, key=lambda i: (derive_seed(seed, "balance", *salt, stratum, i),
                                             i)):
            d = acc[i] - base[i]
            if abs(excess - d) < abs(excess):
                out.add(i)
                excess -= d
    return out


def balance_readers(ids: Sequence[str], acc: Mapping[str, Mapping[str, float]],
                    picks: Mapping[str, Mapping[str, Sequence[int]]], base: Mapping[str, float],
                    tags: Mapping[str, str], seed: int, *salt: object) -> dict[str, str]:
    """Every reader of ``acc`` outside chance's band on the items left is balanced in turn,
    the furthest first (`excess_drops`, per stratum of its `agreement` with the others): each
    dropped item, with the reader it was dropped for."""
    live, out = list(ids), {}
    for m in sorted(acc, key=lambda m: (-abs(deviation(live, acc[m], base)), m)):
        if balanced(live, acc[m], base):
            continue
        drop = excess_drops(live, acc[m], base, agreement(picks, m, live, tags), seed, *salt, m)
        out.update(dict.fromkeys(sorted(drop), m))
        live = [i for i in live if i not in drop]
    return out


def agreement(picks: Mapping[str, Mapping[str, Sequence[int]]], member: str,
              ids: Sequence[str], tags: Mapping[str, str]) -> dict[str, str]:
    """Each item's stratum for ``member``: its tag stratum and the share (in `BINS`) of the
    other members whose picks meet its pick; strata under `MIN_BIN` items pool into their
    tag's."""
    mine = picks.get(member, {})
    others = [m for m in picks if m != member]
    key = {}
    for i in ids:
        pick = set(mine.get(i, ()))
        voters = [m for m in others if i in picks[m]]
        share = (sum(bool(pick & set(picks[m][i])) for m in voters) / len(voters)
                 if voters and pick else 0.0)
        key[i] = f"{tags.get(i, '')}|{min(BINS - 1, int(share * BINS))}"
    sizes: dict[str, int] = defaultdict(int)
    for k in key.values():
        sizes[k] += 1
    return {i: k if sizes[k] >= MIN_BIN else f"{tags.get(i, '')}|*" for i, k in key.items()}


#: A tag value (Neptune's capability) with at least this many items is a stratum of its own;
#: smaller ones share the recipe's.
MIN_STRATUM = 20


def tag_strata(items: Sequence[dict]) -> dict[str, str]:
    """Each item's tag values as one key ("" for untagged items and small strata): the
    per-tag floors are printed, so each tag is balanced on its own."""
    key = {it["item_id"]: ",".join(f"{k}={v}" for k, v in sorted((it.get("tags") or {})
                                                               .items())) for it in items}
    sizes = Counter(key.values())
    return {i: k if sizes[k] >= MIN_STRATUM else "" for i, k in key.items()}


def confidence_strata(ids: Sequence[str], confidence: Mapping[str, float],
                      tags: Mapping[str, str]) -> dict[str, str]:
    """Each item's tag stratum and its third of ``confidence`` among the items of its tag
    (thirds under `MIN_BIN` items pool into the tag's)."""
    by: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        by[tags.get(i, "")].append(i)
    out = {}
    for tag, members in by.items():
        ranked = sorted(members, key=lambda i: (confidence.get(i, 0.0), i))
        third = len(ranked) / BINS
        for rank, i in enumerate(ranked):
            out[i] = f"{tag}|{int(rank // third)}" if third >= MIN_BIN else f"{tag}|*"
    return out
