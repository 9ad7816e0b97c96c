"""Neptune's multiple-choice accuracy as the reference its users run reads replies: lmms-eval
0.7.3 (the version `make test-lmms` pins), ``lmms_eval/tasks/neptune/utils.py``
``_parse_choice_from_response`` (Neptune released no evaluator). The expected letters are
what that function returned for these replies ("" = no choice, xlebench's unparseable);
accuracy is the parsed letter equal to the answer's on both sides."""

from __future__ import annotations

import pytest

from xlebench.eval.parse import parse_choice

OPTIONS = ["C pours water into the pot", "C chops the onion", "C washes the pan",
           "C opens the fridge", "C stirs the soup"]
COUNTS = ["3", "5", "2", "1", "4"]
#: reply -> lmms-eval's parsed letter, for OPTIONS
LMMS = {"B": "B", "(C)": "C", "Answer: D": "D", "The answer is E.": "E", "A.": "A",
        "E) C stirs the soup": "E", "C chops the onion": "B", "I think C washes the pan.": "C",
        "option B": "B", "C opens the fridge because the door moves.": "D",
        "none of these": "", "": "", "B: C chops the onion because the knife moves.": "B"}
#: the same for a counting question's options (a bare count names the option saying it)
LMMS_COUNTS = {"4": "E", "5": "B", "E": "E", "1": "D", "There were 2 times.": "C",
               "Answer: B": "B"}


@pytest.mark.parametrize(("options", "cases"), [(OPTIONS, LMMS), (COUNTS, LMMS_COUNTS)])
def test_replies_are_read_as_lmms_evals_neptune_parser_reads_them(options, cases) -> None:
    for reply, letter in cases.items():
        k = parse_choice(reply, options)
        assert ("" if k is None else "ABCDE"[k]) == letter, reply


def test_a_word_that_begins_with_option_is_no_choice() -> None:
    assert parse_choice("it is optional", OPTIONS) is None
    assert parse_choice("option e.g. something", OPTIONS) is None
    assert parse_choice("option c: C washes the pan", OPTIONS) == 2
