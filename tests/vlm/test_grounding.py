"""The grounding-token baseline (GeLM's similarity branch, untrained) on the tiny random
models: hidden states of the reply's grounding pairs against each frame's, evidence by a
per-row threshold, the reply in MultiHop-EgoQA's layout, cached."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.vlm.test_vlm import LOG, _frames, _tiny_vlm
from xlebench.config.schema import TransformersVLMConfig
from xlebench.eval.scorers import split_evidence
from xlebench.systems.baselines.grounding_tokens import GroundingTokens, evidence, queries
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.vlm.grounding import image_runs, reply_positions, token_span
from xlebench.vlm.messages import Frame

RECIPES = {"multihop_qa": load_recipe("multihop_qa"),
           "object_retrieval": load_recipe("object_retrieval")}
ITEM = {"item_id": "x-short-multihop_qa-000", "subtask": "multihop_qa",
        "query": "What did I do with the pot in the record provided for the 07:00 - 07:01 "
                 "time period?", "period": {"start_s": 25200, "end_s": 25260}}


def test_queries_are_the_grounding_pairs_or_the_whole_answer() -> None:
    answer = "You <T1>washed the pot</T1> and <T2>dried it</T2>."
    assert [answer[a:b] for a, b in queries(answer)] == ["washed the pot", "dried it"]
    assert queries("You washed it.") == [(0, 14)]


def test_evidence_thresholds_each_row_inside_the_period_and_merges() -> None:
    frames = [Frame(Path(f"{k}.jpg"), "", 100.0 + 10 * k) for k in range(6)]
    rows = [[0.1, 0.9, 0.1, 0.1, 0.1, 0.95],  # frame 5 is outside: row 1's best is frame 1
            [0.2, 0.2, 0.3, 0.8, 0.2, 0.2]]
    allowed = [True] * 5 + [False]
    assert evidence(rows, frames, allowed) == [(105.0, 115.0), (125.0, 135.0)]
    flat = [[0.5] * 6]  # nothing stands out: the best frame (the first of a tie) and all ties
    assert evidence(flat, frames, [True] * 6) == [(95.0, 155.0)]


def test_reply_tokens_and_image_runs_are_found_in_the_sequence() -> None:
    import torch

    assert reply_positions([1, 5, 6, 7, 102], [6, 7], {102}) == 2
    assert reply_positions([1, 5, 9, 8, 102], [6, 7], {102}) == 2  # merged: before [SEP]
    assert token_span([(0, 3), (4, 10), (10, 11)], 4, 11) == [1, 2]
    runs = image_runs(torch.tensor([0, 9, 9, 1, 9, 9, 2]), 9)
    assert runs == [[1, 2], [4, 5]]


@pytest.mark.parametrize("arch", ["llava", "qwen2_vl"])
def test_similarity_is_one_row_per_query_and_a_column_per_frame(tiny, tmp_path: Path,
                                                                 arch: str,
                                                                 monkeypatch) -> None:
    """Rows are cosines in [-1, 1]; the query's states are the reply's own tokens (the
    reply's ids sit where `reply_positions` says), the same pass gives the same rows."""
    from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
    from xlebench.testing.tiny_vlm import random_qwen2_vl
    from xlebench.vlm.transformers_backend import TransformersVLM

    if arch == "llava":
        vlm = _tiny_vlm(tiny, tmp_path / "c", device="cpu")
    else:
        vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q"), tmp_path / "c",
                              loaded=random_qwen2_vl("tiny", seed=3))
    frames = _frames(tmp_path, 4)
    messages = _with_frames(PROMPT, blocks(frames, LOG), question="What did I wash?",
                            answer_format="One sentence.")
    reply = "You <T1>washed the pot</T1> and <T2>dried it</T2>."
    rows = vlm.grounding_similarity(messages, reply, queries(reply))
    assert len(rows) == 2 and all(len(r) == 4 for r in rows)
    assert all(-1.0 <= v <= 1.0 for r in rows for v in r) and rows[0] != rows[1]
    processor, _ = vlm._loaded
    prompt, _ = vlm._prompt(messages)
    ids = processor(text=[prompt + reply], images=vlm._images([str(f.path) for f in frames]),
                    return_tensors="pt", truncation=False)["input_ids"][0].tolist()
    mine = processor.tokenizer(reply, add_special_tokens=False)["input_ids"]
    start = reply_positions(ids, mine, set(processor.tokenizer.all_special_ids))
    assert ids[start:start + len(mine)] == mine
    monkeypatch.setattr("xlebench.vlm.grounding.similarity",
                        lambda *a: pytest.fail("a second call must be a cache hit"))
    assert vlm.grounding_similarity(messages, reply, queries(reply)) == rows


def test_the_system_grounds_multihop_items_and_answers_others_plainly(tiny,
                                                                      tmp_path: Path) -> None:
    frames = _frames(tmp_path, 4)
    vlm = _tiny_vlm(tiny, tmp_path / "cache", device="cpu")
    system = GroundingTokens(vlm, lambda log: frames)
    other = dict(ITEM, item_id="x-short-object_retrieval-000", subtask="object_retrieval")
    got = system.respond([ITEM, other], RECIPES, LOG)
    text, spans = split_evidence(got[ITEM["item_id"]])
    assert got[ITEM["item_id"]].startswith("###Answer:") and "<T" not in text
    assert spans and all(25200 - 30 <= a < b <= 25260 + 30 for a, b in spans)
    assert "###Evidence" not in got[other["item_id"]]
    with pytest.raises(Exception, match="vlm=transformers"):
        GroundingTokens(object(), lambda log: frames)


def test_a_day_without_frames_is_answered_without_evidence(tiny, tmp_path: Path) -> None:
    vlm = _tiny_vlm(tiny, tmp_path / "cache", device="cpu")
    got = GroundingTokens(vlm, lambda log: []).respond([ITEM], RECIPES, LOG)[ITEM["item_id"]]
    assert got.startswith("###Answer:") and split_evidence(got)[1] == []
