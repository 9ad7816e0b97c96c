"""Words and hops per recipe (MultiHop-EgoQA's statistics) in stats/tasks.json."""

from __future__ import annotations

from xlebench.tasks.screening.shape import prose, shape_stats


def test_answers_are_counted_without_evidence_or_grounding_tokens() -> None:
    text = "I cut <T1>the wood</T1> and <T2>the plank</T2>.\nEvidence: [07:00:01 - 07:00:03]"
    assert prose(text).split() == ["I", "cut", "the", "wood", "and", "the", "plank", "."]
    items = [{"query": "What did I cut?", "hops": 3, "hop_category": "C",
              "answer": {"text": text}},
             {"query": "When did I cut the wood?", "hops": 2, "hop_category": "A",
              "answer": {"text": "<T1></T1>\nEvidence: [07:00:01 - 07:00:03]",
                         "time_only": True}}]
    got = shape_stats(items)
    assert got["question_words"] == {"n": 2, "mean": 5.0, "median": 5.0, "max": 6}
    assert got["answer_words"] == {"n": 1, "mean": 7.0, "median": 7, "max": 7}
    assert got["hops"] == {"histogram": {2: 1, 3: 1}, "mean": 2.5}
    assert got["hop_categories"] == {"A": 1, "C": 1}
    assert "hops" not in shape_stats([{"query": "Q?", "answer": {"text": "A."}}])
