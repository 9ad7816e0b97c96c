"""Balanced filtering (`xlebench.tasks.screening.balance`): what a filter keeps leaves a blind
reader's pick, and its inverse, at chance in every stratum of its confidence."""

from __future__ import annotations

import random

from xlebench.tasks.screening.balance import (
    Z_BALANCED,
    agreement,
    balance_readers,
    balanced,
    deviation,
    excess_drops,
)


def _reader(n: int, right_share: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    return {f"i{k:03d}": float(rng.random() < right_share) for k in range(n)}


def test_the_excess_over_chance_is_dropped_and_no_more() -> None:
    """A reader right on 60% of five-option items: the right ones beyond 1 in 5 go, every
    wrong one stays, and what is left is at chance to within one item."""
    acc = _reader(300, 0.6, 0)
    base = dict.fromkeys(acc, 0.2)
    drop = excess_drops(list(acc), acc, base, {}, seed=0)
    assert drop and all(acc[i] == 1.0 for i in drop)
    left = [i for i in acc if i not in drop]
    assert sum(acc[i] == 0.0 for i in left) == sum(acc[i] == 0.0 for i in acc)
    assert abs(sum(acc[i] for i in left) - 0.2 * len(left)) <= 1.0
    assert balanced(left, acc, base) and not balanced(list(acc), acc, base)


def test_a_reader_below_chance_loses_its_excess_of_wrong_picks() -> None:
    """The fingerprint of dropping every item a reader answers: it is right on 2%. Balanced,
    its inverse (any other option) is at chance too."""
    acc = _reader(400, 0.02, 1)
    base = dict.fromkeys(acc, 0.2)
    drop = excess_drops(list(acc), acc, base, {}, seed=0)
    assert drop and all(acc[i] == 0.0 for i in drop)
    left = [i for i in acc if i not in drop]
    assert abs(deviation(left, acc, base)) <= Z_BALANCED
    inverse = {i: (1 - acc[i]) / 4 for i in acc}  # a uniform pick among the other four
    assert abs(deviation(left, inverse, base)) <= Z_BALANCED


def test_each_confidence_stratum_is_balanced_on_its_own() -> None:
    """Right where the rest of the panel agrees with it, wrong where it is alone: balanced as
    a whole but not per stratum, where "follow it when the panel agrees" would read it. Per
    stratum, both halves end at chance."""
    ids = [f"i{k:03d}" for k in range(200)]
    sure = set(ids[:100])
    acc = {i: 1.0 if i in sure and int(i[1:]) % 5 < 2 else 0.0 for i in ids}
    acc.update({i: float(int(i[1:]) % 50 == 0) for i in ids if i not in sure})
    base = dict.fromkeys(ids, 0.2)
    picks = {"me": {i: [0] for i in ids},
             **{f"o{m}": {i: [0] if i in sure else [1] for i in ids} for m in range(3)}}
    strata = agreement(picks, "me", ids, {})
    assert len(set(strata.values())) == 2
    left = [i for i in ids if i not in excess_drops(ids, acc, base, strata, seed=0)]
    for half in (sure, set(ids) - sure):
        mine = [i for i in left if i in half]
        assert abs(sum(acc[i] for i in mine) - 0.2 * len(mine)) <= 1.0


def test_every_reader_outside_the_band_is_balanced_and_the_draw_is_seeded() -> None:
    acc = {"a": _reader(300, 0.5, 2), "b": _reader(300, 0.05, 3), "c": _reader(300, 0.2, 4)}
    ids = list(acc["a"])
    base = dict.fromkeys(ids, 0.2)
    drop = balance_readers(ids, acc, {}, base, {}, 0, "t")
    left = [i for i in ids if i not in drop]
    assert set(drop.values()) <= {"a", "b"}
    assert all(abs(deviation(left, acc[m], base)) <= Z_BALANCED + 0.5 for m in acc)
    assert drop == balance_readers(ids, acc, {}, base, {}, 0, "t")
    assert drop != balance_readers(ids, acc, {}, base, {}, 1, "t")


def _inside_chances_95_interval(ids: list[str], acc: dict[str, float], p: float) -> bool:
    """A reviewer's check, independent of the filter's own band: the reader's right picks on
    ``ids`` within 1.96 binomial standard errors of chance's count."""
    right = sum(acc[i] for i in ids)
    return abs(right - p * len(ids)) <= 1.96 * (len(ids) * p * (1 - p)) ** 0.5


def test_what_is_kept_puts_a_reader_inside_chances_interval_however_far_above_it_was() -> None:
    """Readers at 2.5 standard errors above chance, far above it (60% on five options) and
    far below it (2%): on what the filter keeps, each reader and its inverse are inside
    chance's 95% interval. A band that let a reader stay outside it breaks this."""
    ids = [f"i{k:03d}" for k in range(400)]
    acc = {"near": {i: float(k < 100) for k, i in enumerate(ids)},  # 100 = 80 + 2.5 x 8
           "far": {i: float(k % 5 < 3) for k, i in enumerate(ids)},
           "below": {i: float(k % 50 == 0) for k, i in enumerate(ids)}}
    base = dict.fromkeys(ids, 0.2)
    for name, reader in acc.items():
        assert not _inside_chances_95_interval(ids, reader, 0.2), name
        drop = balance_readers(ids, {name: reader}, {}, base, {}, 0, "t")
        left = [i for i in ids if i not in drop]
        inverse = {i: (1 - reader[i]) / 4 for i in ids}
        assert _inside_chances_95_interval(left, reader, 0.2), name
        assert _inside_chances_95_interval(left, inverse, 0.2), name
        assert len(left) >= 20, name  # the price of a reader far below chance: items
