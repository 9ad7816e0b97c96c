"""Metrics against hand-computed cases, edge cases included."""

from __future__ import annotations

import math

import pytest

from xlebench.eval.metrics import (
    counting_accuracy,
    hit_at,
    kendall_tau,
    position_accuracy,
    recall_grid,
    rouge_l,
    tiou,
)


@pytest.mark.parametrize("a, b, expected", [
    ((0, 10), (5, 15), 5 / 15),
    ((0, 10), (0, 10), 1.0),
    ((0, 10), (10, 20), 0.0),          # touching: no overlap
    ((2, 4), (0, 10), 0.2),
    ((10, 0), (0, 10), 0.0),           # reversed prediction: invalid, IoU 0
    ((5, 5), (0, 10), 0.0),            # zero-length prediction
    ((5, 5), (5, 5), 0.0),             # both zero-length: 0/0 defined as 0, never NaN
    ((math.nan, 3), (0, 10), 0.0),     # NaN bound
])
def test_tiou(a, b, expected) -> None:
    assert tiou(a, b) == pytest.approx(expected)


def test_threshold_is_strictly_greater() -> None:
    # IoU exactly 0.3 is not a hit at t=0.3 (official Ego4D semantics).
    assert tiou((0, 3), (0, 10)) == pytest.approx(0.3)
    assert not hit_at([(0, 3)], [(0, 10)], 1, 0.3)
    assert hit_at([(0, 3.01)], [(0, 10)], 1, 0.3)


def test_only_the_first_k_windows_count_in_the_given_order() -> None:
    gt = [(100, 110)]
    pred = [(0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (100, 110)]  # the hit is 6th
    assert not hit_at(pred, gt, 5, 0.3)
    assert hit_at(pred, gt, 6, 0.3)
    dup = [(100, 110)] * 5
    assert hit_at(dup, gt, 1, 0.5), "duplicates are kept; the first one already hits"


def test_empty_prediction_and_multi_span_ground_truth() -> None:
    assert not hit_at([], [(0, 10)], 5, 0.3)
    gt = [(0, 10), (50, 60)]
    assert hit_at([(51, 59)], gt, 1, 0.5), "any span of a multi-span item counts"
    assert recall_grid([(51, 59)], gt, (1, 5), (0.3, 0.9)) == {
        "R@1,0.3": 1.0, "R@1,0.9": 0.0, "R@5,0.3": 1.0, "R@5,0.9": 0.0}


def test_counting_and_ordering() -> None:
    gt = {"pick up cup": 2, "wash dish": 1, "open door": 3}
    assert counting_accuracy({"pick up cup": 2, "wash dish": 5}, gt) == pytest.approx(1 / 3)
    assert math.isnan(counting_accuracy({}, {}))
    assert position_accuracy([2, 0, 1], [2, 0, 1]) == 1.0
    assert position_accuracy([2, 1], [2, 0, 1]) == pytest.approx(1 / 3)
    assert kendall_tau([0, 1, 2, 3], [0, 1, 2, 3]) == 1.0
    assert kendall_tau([3, 2, 1, 0], [0, 1, 2, 3]) == -1.0
    # one swapped adjacent pair out of 6 pairs: (5 - 1) / 6
    assert kendall_tau([1, 0, 2, 3], [0, 1, 2, 3]) == pytest.approx(4 / 6)
    assert math.isnan(kendall_tau([9], [0, 1]))


def test_rouge_l() -> None:
    assert rouge_l("C cooks pasta.", "C cooks pasta.") == 1.0
    assert 0 < rouge_l("C cooks rice in the kitchen.", "C cooks pasta.") < 1
    assert rouge_l("", "C cooks pasta.") == 0.0
    # the F-measure of LCS recall and precision: "c cooks pasta" shares 3 of 7 and 3 of 3 tokens
    assert rouge_l("C cooks rice in the kitchen.", "C cooks.") == pytest.approx(2 * 2 / (6 + 2))
    assert rouge_l("C cooks pasta.", "C cooks pasta in the big kitchen.") == pytest.approx(
        2 * 3 / (3 + 7))


def test_top1_iou_is_the_official_miou_per_query() -> None:
    from xlebench.eval.metrics import top1_iou
    from xlebench.eval.scorers import ScoreSettings
    from xlebench.eval.scorers.spans import SpanRecall

    assert top1_iou([(0, 10), (20, 30)], [(5, 15)]) == 5 / 15  # the first window only
    assert top1_iou([(20, 30), (0, 10)], [(5, 15)]) == 0.0
    assert top1_iou([], [(5, 15)]) == 0.0
    item = {"answer": {"spans": [[5.0, 15.0]]}}
    s = ScoreSettings(ks=(1, 3, 5), tious=(0.3,), bertscore=False)
    got = SpanRecall().score(item, "[00:00:00 - 00:00:10], [00:00:04 - 00:00:14]", s)
    assert got["mIoU"] == 5 / 15 and got["R@1,0.3"] == 1.0 and got["R@3,0.3"] == 1.0


def test_lea_matches_the_papers_worked_example() -> None:
    """Moosavi and Strube (2016), section 4: key {a,b,c} {d,e,f,g}, response {a,b} {c,d}
    {f,g,h,i}: recall (3 x 1/3 + 4 x 1/6) / 7, precision (2 x 1 + 2 x 0 + 4 x 1/6) / 8."""
    from xlebench.eval.metrics.lea import lea, lea_soft

    slot = {m: (k, "Arg1") for k, m in enumerate("abcdefghi")}
    key = {slot[m]: ("x" if m in "abc" else "y") for m in "abcdefg"}
    response = {slot[m]: {"a": "p", "b": "p", "c": "q", "d": "q"}.get(m, "s")
                for m in "abcdfghi"}
    recall, precision = (1 + 4 / 6) / 7, (2 + 4 / 6) / 8
    assert lea(key, response) == pytest.approx(2 * recall * precision / (recall + precision))
    assert lea(key, key) == 1.0
    # the same co-reference with other words: LEA is blind to the values, LEA-soft is not
    renamed = {s: {"x": "a cup", "y": "a knife"}[v] for s, v in key.items()}
    assert lea(key, renamed) == 1.0
    assert lea_soft(key, key, dict.fromkeys(key, 1.0)) == 1.0
    assert lea_soft(key, renamed, dict.fromkeys(key, 0.0)) == 0.0


def test_lea_soft_weighs_precision_as_coval_lea_soft() -> None:
    """VidSitu's coval ``lea_soft``: recall unchanged; in precision a response entity adds
    sum C(r) x |r| x resolution(r) over |r| x |r| (E.3's "the sum of cider scores in the
    numerator and len of cider scores in the denominator", times the importance |r|).
    Key {a,b} {c}; response {a,b} with C 1 and 0.5, {c} with C 2; a resolved pair and a
    singleton weigh 4 and 1, not 2 and 1."""
    from xlebench.eval.metrics.lea import lea_soft

    key = {(1, "Arg0"): "x", (2, "Arg0"): "x", (3, "Arg1"): "y"}
    said = {(1, "Arg0"): "p", (2, "Arg0"): "p", (3, "Arg1"): "q", (4, "Arg1"): "extra"}
    cider = {(1, "Arg0"): 1.0, (2, "Arg0"): 0.5, (3, "Arg1"): 2.0}
    recall = 1.0  # both key entities fully resolved
    precision = (1.5 * 2 * 1 + 2.0 * 1 * 1) / (2 * 2 + 1 * 1)  # (4, Arg1) is no key slot
    assert precision != (2 * 0.75 + 1 * 2.0) / 3  # the |r|-weighted mean it is not
    assert lea_soft(key, said, cider) == pytest.approx(
        2 * recall * precision / (recall + precision))
