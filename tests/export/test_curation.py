"""EgoSchema's curation sheet: conditions A-E, a second round, a duplicate flag, and the
raters filter reading them back."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from xlebench.errors import ConfigError
from xlebench.export.curation import curation_csv
from xlebench.tasks.screening.filters import FilterContext, apply_filters, check_filters
from xlebench.tasks.screening.rater_sheet import COLUMNS, read_verdicts

LOG = {"lifelog_id": "l", "segments": []}


def _item(k: int, question: str, answer: str) -> dict:
    return {"item_id": f"i{k}", "subtask": "egoschema_mcq", "lifelog_id": "l",
            "query": f"{question} in the record provided for the 0{k}:00 - 0{k}:03 time period?",
            "provenance": {"question": f"{question} in the record provided for the "
                                       f"0{k}:00 - 0{k}:03 time period?"},
            "answer": {"options": [answer, "b", "c", "d", "e"], "label": 0},
            "evidence": [], "certificate": {"seconds": 40.0 + k}}


def test_the_sheet_carries_conditions_rounds_and_a_duplicate_suggestion() -> None:
    items = [_item(0, "What does C do", "C cooks"), _item(1, "What does C do", "C cooks"),
             _item(2, "What does C do", "C reads")]
    rows = list(csv.DictReader(io.StringIO(curation_csv(items, {}))))
    assert tuple(rows[0]) == COLUMNS
    assert [r["duplicate_of"] for r in rows] == ["", "i0", ""]  # same question and answer
    assert [r["certificate_s"] for r in rows] == ["40.0", "41.0", "42.0"]
    assert all(r[c] == "" for r in rows for c in ("cond_A", "cond_E", "verdict", "verdict_2"))


def _filled(tmp: Path, rows: list[dict]) -> Path:
    path = tmp / "sheet.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows({c: r.get(c, "") for c in COLUMNS} for r in rows)
    return path


def test_a_failed_condition_is_bad_and_the_second_round_decides(tmp_path: Path) -> None:
    sheet = _filled(tmp_path, [
        {"item_id": "i0", "verdict": "GOOD", "cond_D": "N"},      # a GOOD with a short cert
        {"item_id": "i1", "verdict": "MAYBE", "verdict_2": "GOOD", "cond_A": "y"},
        {"item_id": "i2", "verdict": "GOOD", "verdict_2": "BAD"},
        {"item_id": "i3", "verdict": "GOOD", "duplicate_of": "i1"},
        {"item_id": "i4"}])
    got = read_verdicts(sheet)
    assert got["i0"] == {"verdict": "BAD", "needs": "", "duplicate": "", "failed": "D",
                         "raters": 1, "marks": ["BAD"]}
    assert got["i1"]["verdict"] == "GOOD" and got["i2"]["verdict"] == "BAD"
    assert got["i3"]["duplicate"] == "duplicate" and "i4" not in got
    items = [_item(k, f"Q{k}", "x") for k in range(5)]
    spec = {"kind": "raters", "verdicts": str(sheet), "drop": ["BAD", "MAYBE", "duplicate"]}
    check_filters("egoschema_mcq", [spec])
    kept, dropped = apply_filters(items, [spec], FilterContext())
    assert [it["item_id"] for it in kept] == ["i1", "i4"]
    assert dropped["dropped by the raters filter"] == 3
    with pytest.raises(ConfigError, match="drop"):
        check_filters("egoschema_mcq", [{**spec, "drop": ["UGLY"]}])
    bad = _filled(tmp_path, [{"item_id": "i0", "cond_B": "maybe"}])
    with pytest.raises(Exception, match="row 2, cond_B"):
        read_verdicts(bad)


def test_three_raters_per_item_combine_by_the_agreement_rule(tmp_path: Path) -> None:
    """Neptune's workflow: three raters per question, a rater who leaves a "valuable" check
    unticked discards it, the marks combined by majority (or any), and the discard
    statistics of the sheet."""
    from xlebench.tasks.screening.rater_sheet import rating_summary

    sheet = _filled(tmp_path, [
        {"item_id": "i0", "rater": "r1", "verdict": "GOOD", "valuable_detail": "N"},
        {"item_id": "i0", "rater": "r2", "verdict": "GOOD"},
        {"item_id": "i0", "rater": "r3", "verdict": "GOOD", "needs": "audio"},
        {"item_id": "i1", "rater": "r1", "verdict": "GOOD", "valuable_video": "N"},
        {"item_id": "i1", "rater": "r2", "verdict": "GOOD", "valuable_correct": "n"},
        {"item_id": "i1", "rater": "r3", "verdict": "GOOD", "needs": "audio"},
        {"item_id": "i2", "rater": "r1", "verdict": "GOOD", "needs": "both"},
        {"item_id": "i2", "rater": "r2", "verdict": "GOOD", "needs": "both"}])
    majority = read_verdicts(sheet)
    assert majority["i0"]["verdict"] == "GOOD" and majority["i0"]["raters"] == 3
    assert majority["i1"]["verdict"] == "BAD"
    assert majority["i1"]["failed"] == "valuable_correct,valuable_video"
    assert read_verdicts(sheet, "any")["i0"]["verdict"] == "BAD"
    items = [_item(k, f"Q{k}", "x") for k in range(3)]
    spec = {"kind": "raters", "verdicts": str(sheet), "drop": ["BAD", "audio"]}
    kept, _ = apply_filters([dict(it) for it in items], [spec], FilterContext())
    assert [it["item_id"] for it in kept] == ["i0", "i2"]
    kept, _ = apply_filters([dict(it) for it in items], [{**spec, "agreement": "any"}],
                            FilterContext())
    assert [it["item_id"] for it in kept] == ["i2"]
    assert rating_summary(sheet, "majority", ["BAD", "audio"]) == {
        "items_rated": 3, "raters_per_item": {2: 1, 3: 2}, "agreement": "majority",
        "discarded": 1, "discarded_share": 0.3333, "discarded_by_mark": {"BAD": 1},
        "raters_unanimous_share": 0.6667}  # i1 all drop it, i2 all keep it; i0 split
    with pytest.raises(ConfigError, match="agreement"):
        check_filters("egoschema_mcq", [{**spec, "agreement": "most"}])
    twice = _filled(tmp_path, [{"item_id": "i0", "rater": "r1", "verdict": "GOOD"},
                               {"item_id": "i0", "rater": "r1", "verdict": "BAD"}])
    with pytest.raises(Exception, match="row 3, rater"):
        read_verdicts(twice)
