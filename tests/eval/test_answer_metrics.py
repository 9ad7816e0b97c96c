"""The captioning scores under VidSitu's and MultiHop-EgoQA's names against pycocoevalcap 1.2
itself, side by side on fixed and random examples: corpus BLEU-1..4 ("closest" reference
length), ROUGE-L (beta 1.2), METEOR 1.5 (the same jar) and CIDEr-D of answers."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from xlebench.eval.metrics import coco, meteor15
from xlebench.eval.scorers.grounded import _cider_answers

GUIDE = ("It is a guide to action which ensures that the military always obeys the commands of "
         "the party")
GUIDE_REF = ("It is a guide to action that ensures that the military will forever heed Party "
             "commands")
VOCAB = "You I cut cuts the onion board washed wash plate cup table then . C".split()


def _corpus(seed: int, n: int = 12) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)

    def text() -> str:
        return " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 9)))
    return [text() for _ in range(n)], [[text() for _ in range(rng.randint(1, 3))]
                                        for _ in range(n)]


def _coco(scorer: object, hyps: list[str], refs: list[list[str]]) -> object:
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [h] for i, h in enumerate(hyps)}
    return scorer.compute_score(gts, res)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(6))
def test_bleu_and_rouge_are_pycocoevalcaps(seed: int) -> None:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.rouge.rouge import Rouge

    hyps, refs = _corpus(seed)
    if seed == 0:
        hyps, refs = [GUIDE, "", "the cup"], [[GUIDE_REF], ["a cup"], ["the cup", "cup"]]
    want, _ = _coco(Bleu(4), hyps, refs)
    assert coco.bleu(hyps, refs) == pytest.approx(want, abs=1e-12)
    want_rouge, _ = _coco(Rouge(), hyps, refs)
    got = np.mean([coco.rouge_l(h, r) for h, r in zip(hyps, refs, strict=True)])
    assert got == pytest.approx(float(want_rouge), abs=1e-12)


@pytest.mark.skipif(bool(meteor15.unavailable()), reason=str(meteor15.unavailable()))
@pytest.mark.parametrize("seed", [0])  # each seed starts the jar once more (~10 s)
def test_meteor_is_pycocoevalcaps_jar_corpus_score(seed: int) -> None:
    """Summed segment statistics (a perfect segment's chunk left out) score as the jar scores
    the whole corpus; the fixed case holds perfect and empty segments."""
    from pycocoevalcap.meteor.meteor import Meteor

    hyps, refs = _corpus(seed)
    if seed == 0:
        hyps += ["the cup", "", "C cuts the onion"]
        refs += [["the cup"], ["a plate"], ["C cuts the onion", "you cut onion"]]
    want, _ = _coco(Meteor(), hyps, refs)
    m = meteor15.scorer()
    got = m.score(np.sum([m.stats(h, tuple(r)) for h, r in zip(hyps, refs, strict=True)], 0))
    assert got == pytest.approx(want, abs=1e-12)


def test_cider_d_of_answers_is_pycocoevalcaps() -> None:
    """The answer text only (no Evidence line, no <Tk> tokens), whitespace words as the
    evaluator passes them, document frequencies over the subtask's references, a reply that
    is not ok scored 0 but kept in the corpus."""
    from pycocoevalcap.cider.cider_scorer import CiderScorer

    answers = ["You cut the onion <T1> and fried it <T2>", "You washed the plate twice <T1>",
               "You opened the fridge <T1>", "You dried the cup with a towel <T1>"]
    replies = ["You cut the onion and fried it.\nEvidence: [08:00:01 - 08:00:09]",
               "You washed a plate.\nEvidence: [08:01:00 - 08:01:04]",
               "You closed the fridge", "nothing"]
    items = [{"answer": {"text": a}} for a in answers]
    rows = [{"status": "ok" if k < 3 else "unparseable", "response": r, "scores": {}}
            for k, r in enumerate(replies)]
    _cider_answers(rows, items)
    ref = CiderScorer(n=4, sigma=6.0)
    for cand, a in zip(["You cut the onion and fried it.", "You washed a plate.",
                        "You closed the fridge", ""], answers, strict=True):
        ref += (cand, [" ".join(re.sub(r"<T\d+>", " ", a).split())])
    _, expected = ref.compute_score()
    got = [r["scores"]["cider_d_answer"] for r in rows]
    assert got[:3] == pytest.approx(list(expected)[:3], abs=1e-6) and got[3] == 0.0
