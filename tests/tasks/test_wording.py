"""The query and answer wording, pinned to literal examples in the paper's Table 4 shapes
(written out here by hand, never regenerated from the code)."""

from __future__ import annotations

from xlebench.tasks.language import wording as W

H = 3600


def test_retrieval_and_moment_queries() -> None:
    assert W.retrieval_query("Where did I put the towel?", 7 * H, 7.5 * H) == (
        "Where did I put the towel in the record provided for the 07:00 - 07:30 time period?")
    # 0.9% of real NLQ queries end with a full stop
    assert W.retrieval_query("Where is the dog.", 7 * H, 7.5 * H) == (
        "Where is the dog in the record provided for the 07:00 - 07:30 time period?")
    # a raw query ending "?:" (as one Ego4D query does) loses both marks
    assert W.retrieval_query("Where was the cup after I dropped it?:", 7 * H, 7.5 * H) == (
        "Where was the cup after I dropped it in the record provided for the 07:00 - 07:30 "
        "time period?")
    assert W.moment_query("converse_/_interact_with_someone", 11 * H + 35 * 60, 12 * H) == (
        "When did I (converse / interact with someone) in the record provided for the "
        "11:35 - 12:00 time period?")
    assert W.span_text([[25362.1010186, 25370.0], [25400, 25410.9]]) == (
        "[07:02:42 - 07:02:50], [07:03:20 - 07:03:30]")


def test_a_period_inside_one_minute_never_reads_as_no_time() -> None:
    """A 40-s video on a whole-minute start, its end floored: 05:10 - 05:11, not 05:10 -
    05:10; longer periods keep the release's floored minutes."""
    assert W.period_text(5 * H + 10 * 60, 5 * H + 10 * 60 + 40) == "05:10 - 05:11"
    assert W.period_text(5 * H + 10 * 60 + 30, 5 * H + 10 * 60 + 50) == "05:10 - 05:11"
    assert W.period_text(23 * H + 59 * 60, 23 * H + 59 * 60 + 20) == "23:59 - +1 00:00"
    assert W.period_text(7 * H, 7 * H + 29 * 60 + 59) == "07:00 - 07:29"


def test_summary_queries() -> None:
    assert W.single_summary_query(14 * H + 3 * 60, 14 * H + 45 * 60) == (
        "Summarize the activities performed in the recordings provided for the time period "
        "14:03 - 14:45.")
    assert W.multi_summary_query("in the morning (before 12:00)") == (
        "Summarize the activities performed in the recordings provided in the morning "
        "(before 12:00).")
    assert W.HOLISTIC_QUERY == (
        "Summarize the activities performed in all provided life-log recordings.")


def test_counting_query_and_answer() -> None:
    query = W.counting_query(10 * H + 29 * 60, 11 * H + 13 * 60, 1336, 1396,
                             ["cut onion", "wash pan"])
    assert query == (
        "In the record provided for the 10:29 - 11:13 time period, how many times have each "
        "of the actions in the following list been performed in the 1336-1396 second record "
        "of the period? Action list: 1. cut onion, 2. wash pan")
    assert W.counting_answer(["cut onion", "wash pan"], {"wash pan": 1, "cut onion": 3}) == (
        "cut onion: 3; wash pan: 1;")
    assert W.counting_actions(query) == ["cut onion", "wash pan"]
    older = query.replace("1. cut onion, 2. wash pan", "1. cut onion; 2. wash pan;")
    assert W.counting_actions(older) == ["cut onion", "wash pan"], "published benchmarks"
    assert W.counting_window(query) == (1336, 1396)


def test_ordering_query_and_answer() -> None:
    assert W.ordering_query(["C reads a book.", "C cooks pasta."]) == (
        "Please rank the following summaries of camera wearer C's activities in order of "
        "presentation of the life-log recordings. Summary 0: C reads a book. Summary 1: C "
        "cooks pasta.")
    assert W.ordering_answer([7, 2, 0, 1]) == "Correct order of the summaries: 7, 2, 0, 1."
