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
    assert got["i0"] == {"verdict": "BAD", "needs": "", "duplicate": "", "failed": "D"}
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
