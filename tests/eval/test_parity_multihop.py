"""MultiHop-EgoQA's metrics under its own names equal its official evaluator
(qirui-chen/MultiHop-EgoQA @ ab32f8154f53). Grounding (``benchmark/metrics/
evaluate_grounding.py``): IoU, IoP, IoG on whole seconds from the clip's start, ``e - s + 1``
seconds a span, intersections summed over every predicted and true pair, a prediction without
spans left out of the means; the expected values are what that code prints for the same spans
(true spans [[10, 20], [50, 60]]); the merged measure stands beside it. Answering
(``benchmark/metrics/evaluate_answering.py`` with ``answering_metrics.py``, pycocoevalcap 1.2
and Meteor 1.5): BLEU-4, METEOR, ROUGE-L, CIDEr of the fixtures' answer texts, printed by
``python benchmarks/parity_official.py multihop ...``."""

from __future__ import annotations

import numpy as np
import pytest

from tests.eval import parity_fixtures as fx
from xlebench.eval.metrics import grounding_overlap, grounding_paper, meteor15
from xlebench.eval.metrics.cider import cider_d, whitespace
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


#: reply case -> the answering evaluator's corpus scores of the fixtures' answer texts
ANSWERING = {
    "perfect": {"BLEU-4": 0.9999999999423598, "METEOR": 1.0, "ROUGE-L": 1.0, "CIDEr": 8.75},
    "corrupted": {"BLEU-4": 0.32968255326138823, "METEOR": 0.3377995399936888,
                  "ROUGE-L": 0.5473289325715299, "CIDEr": 2.966377868982668},
    "constant": {"BLEU-4": 6.943195287915217e-11, "METEOR": 0.08430913348946137,
                 "ROUGE-L": 0.11819613988087714, "CIDEr": 0.020529595952796784},
}
NAMES = {"BLEU-4": "bleu4", "METEOR": "meteor", "ROUGE-L": "rougeL_coco"}


def _answer_items(case: str) -> list[tuple[dict, str]]:
    column = ("perfect", "corrupted", "constant").index(case) + 1
    return [({"period": {"start_s": 0.0, "end_s": 60.0},
              "answer": {"spans": [[10.0, 20.0]], "text": a[0]}},
             f"{a[column]}\nEvidence: [00:00:10 - 00:00:20]") for a in fx.ANSWERS]


@pytest.mark.parametrize("case", list(ANSWERING))
@pytest.mark.parametrize("official", list(NAMES))
def test_answer_text_scores_equal_the_answering_evaluator(case: str, official: str) -> None:
    if official == "METEOR" and meteor15.unavailable():
        pytest.skip(meteor15.unavailable())
    scorer = GroundedAnswer()
    details = [scorer.details(item, reply) for item, reply in _answer_items(case)]
    got = scorer.corpus()[NAMES[official]](details)
    assert got == pytest.approx(ANSWERING[case][official], abs=1e-9)


@pytest.mark.parametrize("case", list(ANSWERING))
def test_cider_is_the_mean_of_the_answers_cider_d(case: str) -> None:
    """pycocoevalcap's corpus CIDEr is the mean of the items' (document frequencies over
    every reference): xlebench's per-item ``cider_d_answer`` on whitespace words."""
    pairs = [(split(reply), item["answer"]["text"]) for item, reply in _answer_items(case)]
    scores = cider_d([p for p, _ in pairs], [[r] for _, r in pairs], words=whitespace)
    assert float(np.mean(scores)) == pytest.approx(ANSWERING[case]["CIDEr"], abs=1e-9)


def split(reply: str) -> str:
    from xlebench.eval.scorers.grounded import split_evidence

    return split_evidence(reply)[0]


def test_a_reply_without_spans_is_left_out_of_the_papers_means_and_scores_its_text() -> None:
    """The evaluator skips an empty ``T`` in mIoU/mIoP/mIoG (``num_failed``) and counts it in
    IoU@0.3's denominator; its answer text is still scored. The merged measure scores 0."""
    item = {"period": {"start_s": 0.0, "end_s": 60.0},
            "answer": {"spans": [[10.0, 20.0]], "text": "C cut the onion."}}
    got = GroundedAnswer().score(item, "C cut the onion.", ScoreSettings(bertscore=False))
    assert all(np.isnan(got[m]) for m in ("iou", "iop", "iog"))
    assert got["iou@0.3"] == 0.0 and got["iou_merged"] == 0.0 and got["rougeL"] == 1.0
    time_only = {**item, "answer": {**item["answer"], "time_only": True}}
    assert GroundedAnswer().score(time_only, "C cut the onion.", ScoreSettings()) is None
