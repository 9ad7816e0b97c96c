"""Summaries scored on what they say: content words, and telling one's own record apart."""

from __future__ import annotations

import hashlib
import random
import statistics

import pytest

from xlebench.eval.metrics import content_tokens, rouge_l, rouge_l_content, rouge_l_tokens
from xlebench.eval.scorers import text_window
from xlebench.eval.scorers.text import fit_skeleton
from xlebench.eval.scorers.text_window import rivals, window_id, window_ids
from xlebench.runner import cores

TOPICS = ["C cooks the rice in the kitchen and then washes the dishes at the sink",
          "C repairs the bicycle in the garage and then cleans the tools on the bench",
          "C reads a book in the living room and then waters the plants by the window",
          "C paints the fence in the garden and then sweeps the leaves off the path",
          "C types an email at the desk and then files the papers in the cabinet"]


def _items(n_logs: int = 6) -> list[dict]:
    rng = random.Random(0)
    out = []
    for log in range(n_logs):
        for k, text in enumerate(rng.sample(TOPICS, 4)):
            out.append({"item_id": f"l{log}-{k}", "lifelog_id": f"log{log}", "query": "q",
                        "answer": {"text": text}})
    return out


def test_content_words_are_matched_before_stemming() -> None:
    assert content_tokens("C was cooking this rice and washes the dishes") == (
        "cook", "rice", "wash", "dish")
    assert rouge_l_content("C in the and the the and the", TOPICS[0]) == 0.0
    assert rouge_l("C in the and the the and the", TOPICS[0]) > 0.3


def test_a_reply_that_ignores_the_record_identifies_it_half_the_time() -> None:
    items = _items()
    refs = [it["answer"]["text"] for it in items]
    riv = rivals(items)
    for reply in ("C in the and the the and the", TOPICS[2], ""):
        values = [window_id(reply, refs[k], [refs[j] for j in riv[k]])
                  for k in range(len(items))]
        assert statistics.mean(values) == pytest.approx(0.5)
    own = [window_id(refs[k], refs[k], [refs[j] for j in riv[k]]) for k in range(len(items))]
    assert own == [1.0] * len(items)
    assert all(all(items[j]["lifelog_id"] == items[k]["lifelog_id"] for j in r)
               for k, r in enumerate(riv))


def test_a_day_alone_in_its_log_is_told_apart_from_other_days() -> None:
    days = [{"item_id": f"d{k}", "lifelog_id": f"log{k}", "answer": {"text": t}}
            for k, t in enumerate(TOPICS)]
    riv = rivals(days)
    assert all(len(r) == len(TOPICS) - 1 and k not in r for k, r in enumerate(riv))
    assert window_id(TOPICS[1], TOPICS[1], [TOPICS[j] for j in riv[1]]) == 1.0
    assert window_id("anything", "x", []) is None


def test_window_ids_over_a_set_equal_each_pair_compared_apart() -> None:
    """The set form compares each distinct (reply, reference) once; every value is the one
    the per-pair ROUGE-L gives, whatever replies repeat, are empty or are missing."""
    items = _items(8)
    refs = [it["answer"]["text"] for it in items]
    riv = rivals(items)
    rng = random.Random(3)
    replies = [rng.choice([None, "", "C in the and the", TOPICS[0], refs[k], refs[-1 - k],
                           "C washes the bicycle and reads the dishes"])
               for k in range(len(items))]

    def apart(reply: str, k: int) -> float:
        mine = rouge_l_tokens(content_tokens(reply), content_tokens(refs[k]))
        sims = [rouge_l_tokens(content_tokens(reply), content_tokens(refs[j])) for j in riv[k]]
        return round((sum(mine > x for x in sims) + 0.5 * sum(mine == x for x in sims))
                     / len(sims), 10)

    expected = [None if r is None else apart(r, k) for k, r in enumerate(replies)]
    assert window_ids(replies, refs, riv) == expected
    assert len({v for v in expected if v is not None}) > 2  # not all ties


def _frames(n: int = 80) -> list[dict]:
    """References in one frame of function words, each with its own content words."""
    rng = random.Random(1)
    word = lambda: "".join(rng.choice("bdgkmprstvz") + rng.choice("aeiou") for _ in range(3))  # noqa: E731
    return [{"item_id": f"i{k}", "lifelog_id": f"log{k}", "answer": {"text": (
        f"C {word()}s the {word()} in the {word()} and then {word()}s the {word()}")}}
        for k in range(n)]


def test_the_skeleton_games_rouge_l_but_says_nothing() -> None:
    items = _frames()
    skeleton = fit_skeleton(items)
    assert skeleton == fit_skeleton(list(reversed(items)))  # order-free, deterministic
    refs = [it["answer"]["text"] for it in items]
    other_reference = statistics.mean(rouge_l(refs[0], r) for r in refs[1:])
    assert statistics.mean(rouge_l(skeleton, r) for r in refs[1:]) > other_reference + 0.1
    assert all(rouge_l_content(skeleton, r) == 0.0 for r in refs), skeleton


def _greedy_by_target(refs: tuple[str, ...]) -> list[str]:
    """The skeleton's greedy search written plainly: each candidate string scored by ROUGE-L
    against every target, one LCS table at a time (stems, as the skeleton's words are)."""
    from collections import Counter

    from xlebench.eval.metrics import lcs_length, rouge_tokens
    from xlebench.eval.scorers.text import SKELETON_MAX, SKELETON_VOCAB

    targets = [t for t in map(rouge_tokens, refs) if t]
    df = Counter(w for t in targets for w in set(t))
    vocab = [w for w, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))[:SKELETON_VOCAB]]
    words: list[str] = []
    best = 0.0
    while len(words) < SKELETON_MAX:
        step = None
        for w in vocab:
            cand = [*words, w]
            lcs = [lcs_length(cand, t) for t in targets]
            score = statistics.mean(2 * c / (len(cand) + len(t)) for c, t in zip(lcs, targets, strict=True))
            reach = statistics.mean(_prefix_needed(cand, t) / len(t) for t in targets)
            if score > best + 1e-12 or (step and abs(score - best) <= 1e-12 and reach < step[1]):
                best, step = max(score, best), (w, reach)
        if step is None:
            return words
        words.append(step[0])
    return words


def _prefix_needed(cand: list[str], target: tuple[str, ...]) -> int:
    """The shortest prefix of ``target`` holding an LCS with ``cand`` as long as the whole's."""
    from xlebench.eval.metrics import lcs_length

    whole = lcs_length(cand, target)
    return next(n for n in range(len(target) + 1) if lcs_length(cand, target[:n]) == whole)


def test_the_packed_skeleton_search_equals_the_plain_one() -> None:
    """All targets' LCS states in one integer (no carry across targets), targets of many
    lengths, some over 64 words: the same words as scoring every target on its own."""
    from xlebench.eval.metrics import porter_stem
    from xlebench.eval.scorers.text import skeleton_of

    rng = random.Random(3)
    pool = "C the a and then in of walks cooks room kitchen table door".split()
    for trial in range(4):
        refs = tuple(" ".join(rng.choice(pool) for _ in range(rng.randint(3, 90)))
                     for _ in range(rng.randint(5, 30)))
        plain = _greedy_by_target(refs)
        got = skeleton_of.__wrapped__(refs).split()
        assert [porter_stem(w) if len(w) > 3 else w for w in got] == plain, trial


def test_targets_on_word_boundaries_count_alike() -> None:
    """Each target starts on a 64-bit word (counted by popcount): targets of 63, 64 and 65
    words, where a target and its guard bit fill a word or spill into the next, give the
    plain search's words."""
    from xlebench.eval.metrics import porter_stem
    from xlebench.eval.scorers.text import skeleton_of

    rng = random.Random(11)
    pool = "C the a and then in of walks cooks room kitchen table door".split()
    for trial, sizes in enumerate([(63, 64, 65), (1, 127, 128, 129), (64, 64, 2, 191)]):
        refs = tuple(" ".join(rng.choice(pool) for _ in range(n)) for n in sizes)
        got = skeleton_of.__wrapped__(refs).split()
        assert [porter_stem(w) if len(w) > 3 else w for w in got] == _greedy_by_target(refs), \
            trial


def test_rows_of_kept_rouge_scores_equal_fresh_pairs() -> None:
    """`best_constant` reads a candidate's ROUGE-L against its targets from a row kept
    across fits (grown as new texts are met, filled where missing): every value equals the
    pair computed afresh, fit after fit over overlapping training sets."""
    import numpy as np

    from xlebench.eval.scorers import text_constant as tc

    rng = random.Random(5)
    texts = [" ".join(rng.sample(TOPICS[k % 5].split(), 8)) + f" {k}" for k in range(60)]
    for start in range(0, 40, 5):
        targets = texts[start:start + 20]
        at = np.array([tc.target_number(t) for t in targets], dtype=np.int64)
        for c in texts[start:start + 6]:
            got = tc._rouge_row(c, targets, at)
            assert got.tolist() == [rouge_l(c, t) for t in targets]
        assert tc.best_constant(texts[start:start + 20], seed=start) in texts


def test_rivals_of_days_are_the_first_by_their_pair_hash_at_any_core_count(monkeypatch
                                                                          ) -> None:
    """The drawn rivals of an item alone in its log equal the plain definition — every other
    log's item sorted by ``sha256(own|rival)``, the first `RIVALS` — in one process and spread
    over two, across the task boundaries (`text_window._PER_TASK`)."""
    rng = random.Random(5)
    n = text_window._PER_TASK + 90
    logs = [f"log{k}" if k % 7 else f"log{k - 1}" for k in range(n)]  # most alone, some pairs
    items = [{"item_id": f"it-{rng.getrandbits(40):x}", "lifelog_id": log} for log in logs]

    def plain(k: int) -> list[int]:
        ids = [it["item_id"] for it in items]
        others = [j for j in range(n) if logs[j] != logs[k]]
        return sorted(others, key=lambda j: hashlib.sha256(
            f"{ids[k]}|{ids[j]}".encode()).digest())[:text_window.RIVALS]

    want = [plain(k) if logs.count(logs[k]) == 1 else [j for j in range(n)
                                                         if logs[j] == logs[k] and j != k]
            for k in range(n)]
    text_window._rivals.cache_clear()
    assert rivals(items) == want
    text_window._rivals.cache_clear()
    monkeypatch.setattr(cores, "available", lambda: 2)  # also in a test worker's one CPU
    with cores.using(2):
        assert rivals(items) == want
