"""Offline BERTScore with the bundled MiniLM."""

from __future__ import annotations

import pytest

from xlebench.eval.metrics.bertscore import BERTScorer


@pytest.fixture(scope="module")
def scorer() -> BERTScorer:
    return BERTScorer()


def test_identical_text_scores_one_and_order_is_kept(scorer) -> None:
    f1 = scorer.f1(["C cooks pasta in the kitchen.", "C walks the dog.", ""],
                   ["C cooks pasta in the kitchen.", "C cooks pasta in the kitchen.", "x"])
    assert f1[0] == pytest.approx(1.0, abs=1e-4)
    assert 0 < f1[1] < f1[0]
    assert f1[2] == 0.0, "an empty candidate scores 0"
    close = scorer.f1(["C is cooking pasta at home."], ["C cooks pasta in the kitchen."])[0]
    assert close > f1[1], "a paraphrase beats an unrelated sentence"


def test_model_and_layer_are_recorded(scorer) -> None:
    d = scorer.describe()
    assert d["model"] == "sentence-transformers/all-MiniLM-L6-v2" and d["layer"] == 6
    with pytest.raises(ValueError, match="layers"):
        BERTScorer(layer=99).describe()


def test_a_pair_scores_the_same_alone_and_among_others(scorer) -> None:
    cands = ["C cooks.", "C walks the dog in the park.", "C is washing dishes.", "C reads a book"]
    refs = ["C cooks pasta.", "C walks a dog.", "C washes the dishes at the sink.", "C reads"]
    together = scorer.f1(cands, refs)
    alone = [scorer.f1([c], [r])[0] for c, r in zip(cands, refs, strict=True)]
    assert together == alone


def test_pairs_spread_over_cores_score_the_same_bits(scorer, monkeypatch) -> None:
    """The pairs' products run in forked children where the run has several cores (tasks
    of a few pairs here): the scores equal those computed in this process, in order, and a
    repeated pair is scored once and repeated."""
    from xlebench.eval.metrics import bertscore
    from xlebench.runner.cores import using

    cands = ["C cooks.", "C walks the dog in the park.", "C is washing dishes.", "C reads",
             "C cooks.", "", "C opens the door and leaves."]
    refs = ["C cooks pasta.", "C walks a dog.", "C washes the dishes at the sink.", "C reads",
            "C cooks pasta.", "C sits.", "C leaves the house."]
    here = scorer.f1(cands, refs)
    monkeypatch.setattr(bertscore, "PAIRS_PER_TASK", 2)
    with using(2):
        spread = scorer.f1(cands, refs)
    assert spread == here and spread[0] == spread[4] and spread[5] == 0.0
