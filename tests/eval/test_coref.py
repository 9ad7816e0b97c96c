"""Co-reference scores against the literature's worked example (Luo, 2005, figure 1): key
{1..5} {6, 7} {8, 9, A, B, C}, response {1..5} {6..C}: MUC 94.7, B³ 86.5, CEAFe 73.3."""

from __future__ import annotations

import pytest

from xlebench.eval.metrics.lea import b_cubed, ceaf_e, lea, muc


def _slots(groups: list[str]) -> dict[tuple[int, str], str]:
    """Each character a mention (a slot), each group one entity (one value)."""
    return {(ord(m), "Arg1"): f"entity {g}" for g, members in enumerate(groups) for m in members}


KEY = _slots(["12345", "67", "89ABC"])
RESPONSE = _slots(["12345", "6789ABC"])


def test_luos_example() -> None:
    assert muc(KEY, RESPONSE) == pytest.approx(2 * 0.9 / 1.9)  # recall 1, precision 9/10
    assert b_cubed(KEY, RESPONSE) == pytest.approx(2 * (64 / 84) / (1 + 64 / 84))
    assert round(100 * muc(KEY, RESPONSE), 1) == 94.7
    assert round(100 * b_cubed(KEY, RESPONSE), 1) == 86.5
    assert round(100 * ceaf_e(KEY, RESPONSE), 1) == 73.3


def test_identical_is_perfect_and_disjoint_is_zero() -> None:
    for metric in (muc, b_cubed, ceaf_e, lea):
        assert metric(KEY, KEY) == pytest.approx(1.0), metric.__name__
    other = {(ord(m) + 1000, "Arg1"): "x" for m in "12345"}
    for metric in (muc, b_cubed, ceaf_e, lea):
        assert metric(KEY, other) == 0.0, metric.__name__


def test_muc_counts_each_missing_mention_as_its_own_part() -> None:
    """Mentions the response leaves out are singletons, never one shared part: a key entity
    of three mentions that the response lacks keeps none of its two links."""
    key = _slots(["123", "45"])
    response = _slots(["45"])
    assert muc(key, response) == pytest.approx(2 * (1 / 3) * 1.0 / (1 / 3 + 1.0))
