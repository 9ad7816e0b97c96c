"""Options read as sentences (`xlebench.eval.scorers.sentences`): MiniLM vectors side by side,
the panel's sentence centroid and the learned member's cosine to the siblings."""

from __future__ import annotations

import numpy as np

from xlebench.eval.panel.public import Public
from xlebench.eval.scorers import ScoreSettings
from xlebench.eval.scorers.base import BlindContext
from xlebench.eval.scorers.choice import ChoiceAccuracy
from xlebench.eval.scorers.sentences import option_vectors, sentence_centroid, sibling_cosines

OPTIONS = ["C stirs the soup in the pot", "C cuts the onion on the board",
           "C washes the pan in the sink", "C boils the rice on the stove",
           "C skis down the snowy mountain slope"]


def _item(label: int, item_id: str = "x") -> dict:
    return {"item_id": item_id, "lifelog_id": "log", "query": "What does C do?",
            "answer": {"options": OPTIONS, "label": label, "text": OPTIONS[label]}}


def test_the_odd_sentence_is_farthest_from_its_siblings() -> None:
    """Four kitchen acts and a ski run: the ski run is farthest from the others' mean, and
    the sentence centroid picks a kitchen act (the word centroid sees no shared words)."""
    sims = sibling_cosines(option_vectors(_item(0)))
    assert int(np.argmin(sims)) == 4
    best = int(np.argmax(sims))
    ctx = BlindContext(ScoreSettings(bertscore=False), np.random.default_rng(0), 1)
    assert sentence_centroid(_item(best), None, ctx)["acc"] == 1.0
    assert sentence_centroid(_item(4), None, ctx)["acc"] == 0.0


def test_the_public_view_encodes_each_option_once_and_gives_the_same_vectors() -> None:
    items = [_item(0, "a"), _item(1, "b")]
    public = Public(items)
    table = option_vectors(items[0], public)
    assert np.allclose(table, option_vectors(items[0]), atol=1e-6)
    assert len(public.memo("sentence-option-vectors", dict)) == len(OPTIONS)


def test_the_choice_panel_has_the_sentence_centroid() -> None:
    assert "sentence_centroid" in {b.name for b in ChoiceAccuracy().blind()}
