"""MultiHop-EgoQA's answer metrics against reference implementations on fixed examples:
BLEU-4 against the formula computed here by hand, METEOR against its formula on exact
matches and against nltk's with no synonyms, CIDEr-D of answers against pycocoevalcap."""

from __future__ import annotations

import math
import random
import re
from collections import Counter

import pytest

from xlebench.eval.metrics import bleu4, meteor
from xlebench.eval.scorers.grounded import _cider_answers

GUIDE = ("It is a guide to action which ensures that the military always obeys the commands of "
         "the party")
GUIDE_REF = ("It is a guide to action that ensures that the military will forever heed Party "
             "commands")


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _bleu_by_hand(pred: str, ref: str) -> float:
    """Papineni et al.: clipped n-gram precisions (n = 1..4, a zero count given 0.1 as nltk's
    smoothing method 1 does), their geometric mean, the brevity penalty."""
    p, r = _tokens(pred), _tokens(ref)
    logs = []
    for n in range(1, 5):
        grams = Counter(tuple(p[i:i + n]) for i in range(len(p) - n + 1))
        refs = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        hit = sum(min(c, refs[g]) for g, c in grams.items())
        total = max(1, sum(grams.values()))
        logs.append(math.log((hit or 0.1) / total))
    bp = 1.0 if len(p) > len(r) else math.exp(1 - len(r) / len(p))
    return bp * math.exp(sum(logs) / 4)


@pytest.mark.parametrize(("pred", "ref"), [
    (GUIDE, GUIDE_REF),
    ("You washed the plate and then dried it", "You washed the plate, then dried it."),
    ("You cut the onion twice", "You cut the onion two times on the board"),
    ("the cup", "You picked up the cup from the table"),
])
def test_bleu4_is_papinenis_formula(pred: str, ref: str) -> None:
    assert bleu4(pred, ref) == pytest.approx(_bleu_by_hand(pred, ref), abs=1e-9)


def test_meteor_is_the_formula_on_exact_matches_and_nltks_without_synonyms() -> None:
    from nltk.translate.meteor_score import meteor_score

    from xlebench.eval.metrics import _NoSynonyms

    # identical 7 words: F-mean 1, one chunk, penalty 0.5 * (1/7)^3
    same = "C cuts the onion on the board"
    assert meteor(same, same) == pytest.approx(1 - 0.5 * (1 / 7) ** 3, abs=1e-9)
    # 4 of 5 words matched in two chunks: P = 4/4, R = 4/5, F = 10PR/(R + 9P)
    pred, ref = "you cut onion board", "you cut the onion board"
    f = 10 * 1 * 0.8 / (0.8 + 9 * 1)
    assert meteor(pred, ref) == pytest.approx(f * (1 - 0.5 * (2 / 4) ** 3), abs=1e-9)
    rng = random.Random(7)
    vocab = "you i cut cuts the onion board washed wash plate cup table then".split()
    for _ in range(30):
        a = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
        b = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
        assert meteor(a, b) == pytest.approx(round(meteor_score(
            [b.split()], a.split(), wordnet=_NoSynonyms()), 10), abs=1e-9)


def test_cider_d_of_answers_is_pycocoevalcaps() -> None:
    """The answer text only (no Evidence line, no <Tk> tokens), document frequencies over the
    subtask's references, a reply that is not ok scored 0 but kept in the corpus."""
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
    for cand, a in zip(["you cut the onion and fried it", "you washed a plate",
                        "you closed the fridge", ""], answers, strict=True):
        ref += (cand, [" ".join(_tokens(re.sub(r"<T\d+>", " ", a)))])
    _, expected = ref.compute_score()
    got = [r["scores"]["cider_d_answer"] for r in rows]
    assert got[:3] == pytest.approx(list(expected)[:3], abs=1e-6) and got[3] == 0.0
