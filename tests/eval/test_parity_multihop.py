"""MultiHop-EgoQA's grounding under its own names equals its official evaluator
(qirui-chen/MultiHop-EgoQA @ ab32f8154f53, ``benchmark/metrics/evaluate_grounding.py``: IoU,
IoP, IoG on whole seconds from the clip's start, ``e - s + 1`` seconds a span, intersections
summed over every predicted and true pair). The expected values are what that code prints
for the same spans (true spans [[10, 20], [50, 60]]); the merged measure stands beside it."""

from __future__ import annotations

import pytest

from xlebench.eval.metrics import grounding_overlap, grounding_paper
from xlebench.eval.scorers import ScoreSettings
from xlebench.eval.scorers.grounded import GroundedAnswer

GT = [(10.0, 20.0), (50.0, 60.0)]
#: prediction -> (IoU, IoP, IoG) printed by the official evaluator at ab32f81.
OFFICIAL = {
    "perfect": ([[10, 20], [50, 60]], (1.0, 1.0, 1.0)),
    "corrupted": ([[12, 25], [70, 80]], (0.236842, 0.36, 0.409091)),
    "constant": ([[0, 30]], (0.261905, 0.354839, 0.5)),
    "duplicated": ([[10, 20], [10, 20], [50, 60]], (1.5, 1.0, 1.5)),
    "overlapping": ([[10, 30], [15, 25]], (0.459459, 0.53125, 0.772727)),
    "miss": ([[100, 110]], (0.0, 0.0, 0.0)),
    "one second": ([[15, 15]], (0.045455, 1.0, 0.045455)),
}


@pytest.mark.parametrize("case", list(OFFICIAL))
def test_the_papers_names_carry_the_official_evaluators_numbers(case: str) -> None:
    pred, (iou, iop, iog) = OFFICIAL[case]
    got = grounding_paper([tuple(p) for p in pred], GT)
    assert (got["iou"], got["iop"], got["iog"]) == pytest.approx((iou, iop, iog), abs=1e-6)
    assert got["iou@0.3"] == float(iou > 0.3)


@pytest.mark.parametrize("case", list(OFFICIAL))
def test_a_reply_in_the_papers_layout_scores_the_same_on_the_day_clock(case: str) -> None:
    """The item's spans on the day's clock, the reply in seconds from the clip's start (the
    paper's ``###Evidence``): the scorer reads both back to the evaluator's seconds."""
    pred, (iou, iop, iog) = OFFICIAL[case]
    start = 36_000.0
    item = {"period": {"start_s": start, "end_s": start + 180},
            "answer": {"spans": [[start + a, start + b] for a, b in GT], "time_only": True,
                       "text": "x"}}
    reply = f"###Answer: C did it.\n###Evidence: {pred}"
    got = GroundedAnswer().score(item, reply, ScoreSettings(bertscore=False))
    assert (got["iou"], got["iop"], got["iog"]) == pytest.approx((iou, iop, iog), abs=1e-6)


def test_the_merged_measure_counts_a_duplicated_span_once() -> None:
    """The evaluator's own bug: a duplicated span scores mIoU 150% there; merged, 100%."""
    dup = [(10.0, 20.0), (10.0, 20.0), (50.0, 60.0)]
    assert grounding_paper(dup, GT)["iou"] == pytest.approx(1.5)
    assert grounding_overlap(dup, GT)["iou_merged"] == pytest.approx(1.0)
