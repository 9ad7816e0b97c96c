"""MultiHop-EgoQA's human-evaluation sheet: a seeded 10% of the test split, written without
answers, read back as replies in the paper's layout, and scored as the human row."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import run_inprocess
from xlebench.errors import ConfigError, DataError
from xlebench.eval.scorers.grounded import split_evidence
from xlebench.export.human_eval import watch_window
from xlebench.tasks.multihop.human_eval import COLUMNS, read_sheet, sample


def _item(k: int, split: str = "test", subtask: str = "multihop_qa") -> dict:
    return {"item_id": f"hop-{k:03d}", "subtask": subtask, "provenance": {"hop_split": split}}


def test_the_sample_is_a_tenth_of_the_test_split_fixed_by_the_ids() -> None:
    items = ([_item(k) for k in range(2000)] + [_item(k, "train") for k in range(3000, 3500)]
             + [_item(k, subtask="neptune_qa") for k in range(4000, 4400)])
    drawn = sample(items)
    assert 150 <= len(drawn) <= 250  # 10% of 2000, binomial sd 13
    assert all(it["provenance"]["hop_split"] == "test" and it["subtask"] == "multihop_qa"
               for it in drawn)
    assert sample(list(reversed(items))) == drawn, "the order given does not matter"
    part = items[:700]
    assert sample(part) == [it for it in drawn if it in part], "a part draws its own share"
    other = sample([{**it, "item_id": it["item_id"] + "x"} for it in items])
    assert {it["item_id"][:-1] for it in other} != {it["item_id"] for it in drawn}


def test_the_clip_is_located_in_the_stitched_video() -> None:
    log = {"segments": [
        {"index": 0, "video_uid": "a", "start_s": 1000.0, "end_s": 1100.0,
         "source_start_s": 0.0, "source_end_s": 100.0},
        {"index": 1, "video_uid": "b", "start_s": 5000.0, "end_s": 5300.0,
         "source_start_s": 50.0, "source_end_s": 350.0}]}
    assert watch_window(log, {"start_s": 5060.0, "end_s": 5120.0}) == (160.0, 220.0)
    assert watch_window(log, {"start_s": 1090.0, "end_s": 5010.0}) == (90.0, 110.0)
    assert watch_window(log, {"start_s": 2000.0, "end_s": 2100.0}) is None


def _sheet(tmp: Path, rows: list[dict]) -> Path:
    path = tmp / "filled.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows({c: r.get(c, "") for c in COLUMNS} for r in rows)
    return path


def test_a_filled_sheet_reads_as_the_papers_replies(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path, [{"item_id": "a", "answer": "C cut the onion",
                               "evidence": "[12, 20], [95.5, 110]"},
                              {"item_id": "b", "answer": ""}])
    replies = read_sheet(sheet, {"a", "b"})
    assert list(replies) == ["a"]
    text, spans = split_evidence(replies["a"], clip_start_s=1000.0)
    assert text.strip() == "C cut the onion" and spans == [(1012.0, 1020.0), (1095.5, 1110.0)]


@pytest.mark.parametrize("row, says", [
    ({"item_id": "zz", "answer": "x", "evidence": "[1, 2]"}, "row 2.item_id"),
    ({"item_id": "a", "answer": "x", "evidence": "from 3 to 9"}, "row 2.evidence"),
    ({"item_id": "a", "answer": "x", "evidence": "[9, 3]"}, "row 2.evidence"),
])
def test_a_bad_row_is_named(tmp_path: Path, row: dict, says: str) -> None:
    with pytest.raises(DataError, match=says):
        read_sheet(_sheet(tmp_path, [row]), {"a"})


def test_a_missing_sheet_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="export.formats=\\[human_eval\\]"):
        read_sheet(tmp_path / "none.csv", None)


def _seconds_reply(item: dict) -> tuple[str, str]:
    """A person who gets everything right: the reference answer and its spans in seconds
    from the clip's start."""
    start = item["period"]["start_s"]
    spans = ", ".join(f"[{a - start:g}, {b - start:g}]" for a, b in item["answer"]["spans"])
    return item["answer"]["text"], spans


def test_the_sheet_round_trips_through_the_cli(tmp_path: Path) -> None:
    args = ("tasks=[multihop_qa]", "library.n_videos=120", "matcher/embedder=hashing",
            "persona.locations=[Japan,UK]", "persona.mbti=[INTJ,ESFP]", "render=none",
            "eval.bertscore=false", "eval.bootstrap=20", "export.formats=[human_eval]")
    assert (ran := run_inprocess(tmp_path, *args)).rc == 0, ran.text[-3000:]
    bench = tmp_path / "benchmarks" / "demo"
    exported = (bench / "export" / "human_eval" / "sheet.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(exported)))
    items = {json.loads(x)["item_id"]: json.loads(x)
             for x in (bench / "annotations" / "multihop_qa.jsonl").read_text().splitlines()}
    assert [r["item_id"] for r in rows] == [it["item_id"] for it in sample(items.values())]
    assert rows, "the compile draws some"
    for row in rows:  # what people read: the question and where to watch, never the answer
        item = items[row["item_id"]]
        assert row["answer"] == row["evidence"] == "" and row["question"] == item["query"]
        assert float(row["clip_start_sec"]) < float(row["clip_end_sec"])
    assert not any(it["answer"]["text"] in exported for it in items.values()
                   if len(it["answer"]["text"]) > 20)
    half = max(1, len(rows) - 1)  # one row left blank where there are two
    for row in rows[:half]:
        row["answer"], row["evidence"] = _seconds_reply(items[row["item_id"]])
    sheet = _sheet(tmp_path, rows)
    ran = run_inprocess(tmp_path, *args, "stages=[evaluate]", f"eval.human_sheet={sheet}")
    assert ran.rc == 0, ran.text[-3000:]
    table = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json").read_text())
    human = table["human"]["multihop_qa"]
    assert human["n"] == len(rows) and human["answered"] == half
    # the table rounds means to four places
    assert 0.3 * half / len(rows) < human["mean"] <= half / len(rows) + 1e-4
    md = (bench / "results" / "oracle_text_retrieval" / "table.md").read_text()
    assert f"on {len(rows)} of its {len(items)} items, {half} answered" in md
