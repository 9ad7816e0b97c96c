"""The X-LeBench release layout: what its readers rely on (FORMATS.md), the importer on the
worked examples there, and export -> import giving the items back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tasks.test_recipes import LOG, _build
from xlebench.commands.import_release import main
from xlebench.export.release import hex8, release_files, release_layout
from xlebench.export.release_import import import_release
from xlebench.tasks.recipe.registry import load_recipe

#: Fields an imported item must reproduce exactly: everything scoring reads.
SCORED = ("item_id", "task", "subtask", "lifelog_id", "category", "query", "answer", "period",
          "evidence")


def _items(period: str = "padded") -> list[dict]:
    return [it for v in _build(period).values() for it in v]


def _public(layout: dict) -> dict:
    """Only the fields of the real release (what a file from the authors has)."""
    out = json.loads(json.dumps(layout))
    out["metadata"] = {k: out["metadata"][k] for k in ("persona_id", "memory_id")}
    out["simulations"] = [{k: s[k] for k in ("video_uid", "start_time", "end_time")}
                          for s in out["simulations"]]
    for key in ("objects_retrieval", "people_retrieval"):
        for g in out["tasks"][key]["query_list"]:
            for q in g["queries"]:
                for k in ("item_id", "period_start_sec", "period_end_sec"):
                    q.pop(k)
    for e in out["tasks"]["action_retrieval"]["moment_localisation"]["query_list"]:
        for k in ("period_start_sec", "period_end_sec"):
            e.pop(k)
    return out


def test_layout_has_the_release_shapes() -> None:
    out = release_layout(LOG, _items())
    meta = out["metadata"]
    assert len(meta["persona_id"]) == len(meta["memory_id"]) == 8
    assert meta["memory_id"] == hex8(LOG["lifelog_id"]) != meta["persona_id"]
    assert [s["start_time"] for s in out["simulations"]] == ["07:30", "14:00", "20:00"]
    assert [s["end_time"] for s in out["simulations"]] == ["07:40", "14:05", "20:07"]
    group = out["tasks"]["objects_retrieval"]["query_list"][0]
    assert group["query_metadata"]["query_range"] == {"start_time": "07:30", "end_time": "07:40"}
    q = group["queries"][0]
    assert q["query"] == "Query Text: where is the pot?  "  # Ego4D's text, not our question
    assert q["response_start_time_sec"] == 27000 + 12.0210286  # unrounded video offset
    moments = out["tasks"]["action_retrieval"]["moment_localisation"]
    assert isinstance(moments, dict) and isinstance(moments["query_list"][0]["query_list"], list)
    assert isinstance(out["tasks"]["summary_ordering"], dict)
    assert isinstance(out["tasks"]["counting"], list)
    assert set(out["tasks"]["summarisation"]) == {"individual_sum", "multi_video_sum",
                                                  "holistic_sum"}


def test_midnight_wraps_and_readers_recover_video_time() -> None:
    """Past midnight HH:MM wraps; a reader's response − seconds(HH:MM) is the video time even
    when a segment does not start on a whole minute (counted for the user)."""
    log = {**LOG, "segments": [
        {**LOG["segments"][0], "start_s": 84_600 + 30, "end_s": 84_600 + 631},
        {**LOG["segments"][1], "start_s": 86_400 + 600, "end_s": 86_400 + 900},
        {**LOG["segments"][2], "start_s": 86_400 + 3600, "end_s": 86_400 + 4020}]}
    files, stats = release_files({log["lifelog_id"]: log}, [])
    assert stats == {"files": 1, "segments": 3, "segment_starts_not_whole_minutes": 1}
    out, = files.values()
    assert [s["start_time"] for s in out["simulations"]] == ["23:30", "00:10", "01:00"]


def _import_one(tmp_path: Path, layout: dict) -> dict[str, list[dict]]:
    (tmp_path / "rel").mkdir(exist_ok=True)
    (tmp_path / "rel" / "simulation_a1b2c3d4_0f0f0f0f_annotation.json").write_text(
        json.dumps(layout))
    return import_release(tmp_path / "rel").items


def test_format_examples_give_the_stated_times(tmp_path: Path) -> None:
    layout = {"metadata": {"persona_id": "a1b2c3d4", "memory_id": "0f0f0f0f"},
              "simulations": [{"video_uid": "v1", "start_time": "07:00", "end_time": "07:40"},
                              {"video_uid": "v2", "start_time": "11:35", "end_time": "12:10"}],
              "tasks": {"objects_retrieval": {"query_list": [
                  {"query_metadata": {"query_range": {"start_time": "07:00",
                                                      "end_time": "07:40"},
                                      "video_index": 0, "video_uid": "v1"},
                   "queries": [{"query": "Where did i put my towel?", "template": "Objects:",
                                "video_uid": "v1", "response_start_time_sec": 25362.1010186,
                                "response_end_time_sec": 25370.0}]},
                  {"query_metadata": {"query_range": {"start_time": "11:35",
                                                      "end_time": "12:10"},
                                      "video_index": 1, "video_uid": "v2"},
                   "queries": [{"query": "What did I cut?", "template": "Objects:",
                                "video_uid": "v2", "response_start_time_sec": 43050.0210286,
                                "response_end_time_sec": 43060.0}]}]}}}
    items = _import_one(tmp_path, layout)["object_retrieval"]
    a, b = items
    assert a["provenance"]["video_spans"][0][0] == pytest.approx(162.1010186, abs=1e-9)
    assert b["provenance"]["video_spans"][0][0] == pytest.approx(1350.0210286, abs=1e-9)
    assert a["answer"]["spans"][0][0] == 25362.101 and b["answer"]["spans"][0][0] == 43050.021
    assert a["query"] == ("Where did I put my towel in the record provided for the 07:00 - "
                          "07:40 time period?")
    assert a["lifelog_id"] == "a1b2c3d4-0f0f0f0f" and a["category"] == "short"


def test_import_unwraps_midnight(tmp_path: Path) -> None:
    sims = [{"video_uid": "v1", "start_time": "23:30", "end_time": "23:50"},
            {"video_uid": "v2", "start_time": "00:10", "end_time": "00:40"}]
    layout = {"metadata": {"persona_id": "a1b2c3d4", "memory_id": "0f0f0f0f"},
              "simulations": sims, "tasks": {"objects_retrieval": {"query_list": [
                  {"query_metadata": {"video_index": 1, "video_uid": "v2"},
                   "queries": [{"query": "Where is the cup?", "video_uid": "v2",
                                "response_start_time_sec": 600 + 5.5,
                                "response_end_time_sec": 600 + 9.0}]}]}}}
    it, = _import_one(tmp_path, layout)["object_retrieval"]
    assert it["answer"]["spans"] == [[86_400 + 605.5, 86_400 + 609.0]]
    assert it["period"] == {"start_s": 87_000.0, "end_s": 88_800.0}
    assert it["evidence"][0]["source_start_s"] == 5.5


@pytest.mark.parametrize("public_only", [False, True])
def test_export_then_import_gives_the_items_back(tmp_path: Path, public_only: bool) -> None:
    """With xlebench's extra fields the round trip is exact on every scored field; from the
    public fields alone (a file as the authors publish it) the retrieval items still are, since
    this log starts on whole minutes — only the period end is cut to its minute (its periods
    the records' own: a file as the authors publish it has no other)."""
    items = _items("record" if public_only else "padded")
    layout = release_layout(LOG, items)
    back = _import_one(tmp_path, _public(layout) if public_only else layout)
    by_id = {it["item_id"]: it for it in items}
    for sub in ("object_retrieval", "people_retrieval", "moment_retrieval"):
        orig = sorted((it for it in items if it["subtask"] == sub), key=lambda i: i["item_id"])
        got = back[sub]
        assert len(got) == len(orig) > 0
        for o, g in zip(orig, got, strict=True):
            if public_only:
                g = {**g, "item_id": o["item_id"], "lifelog_id": o["lifelog_id"],
                     "category": o["category"]}
                assert g["period"]["end_s"] == o["period"]["end_s"] // 60 * 60
                g["period"] = o["period"]
                assert g["query"] == o["query"]  # HH:MM periods read the same
            for f in SCORED:
                assert g[f] == o[f], (sub, f)
    if not public_only:
        got = [it for v in back.values() for it in v]
        assert len(got) == len(items)
        for g in got:
            assert {f: g[f] for f in SCORED} == {f: by_id[g["item_id"]][f] for f in SCORED}


def test_cli_refuses_existing_output_and_reports_skips(tmp_path: Path, capsys) -> None:
    rel = tmp_path / "rel"
    rel.mkdir()
    layout = release_layout(LOG, _items())
    layout["tasks"]["counting"].append({"question": "unknown shape"})
    (rel / "simulation_a1b2c3d4_0f0f0f0f_annotation.json").write_text(json.dumps(layout))
    assert main([str(rel), str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "import.json").read_text())
    assert report["skipped"] == {"action_counting: entry without xlebench's answer fields": 1}
    assert "skipped 1 entries" in capsys.readouterr().out
    assert main([str(rel), str(tmp_path / "out")]) == 2
    (rel / "simulation_a1b2c3d4_0f0f0f0f_annotation.json").write_text("{")
    assert main([str(rel), str(tmp_path / "out2")]) == 2
    assert "expected release JSON" in capsys.readouterr().err
    assert not (tmp_path / "out2").exists()


def test_imported_release_scores_with_xlebench(tmp_path: Path, capsys) -> None:
    """Import, then `xlebench-score`: gold replies score 1 on every subtask, with floors."""
    from xlebench.commands.score import main as score

    rel = tmp_path / "rel"
    rel.mkdir()
    (rel / "simulation_a1b2c3d4_0f0f0f0f_annotation.json").write_text(
        json.dumps(release_layout(LOG, _items())))
    assert main([str(rel), str(tmp_path / "imp")]) == 0
    items = [json.loads(x) for p in (tmp_path / "imp" / "annotations").glob("*.jsonl")
             for x in p.read_text().splitlines()]
    preds = tmp_path / "gold.jsonl"
    preds.write_text("".join(json.dumps({"item_id": it["item_id"],
                                         "response": it["answer"]["text"]}) + "\n"
                             for it in items))
    assert score([str(tmp_path / "imp"), str(preds), "--no-bertscore", "--bootstrap", "20",
                  "--out", str(tmp_path / "scored")]) == 0
    table = json.loads((tmp_path / "scored" / "table.json").read_text())
    assert {s: r["all"]["mean"] for s, r in table["rows"].items() if "AVG" not in s} == \
        {s: 1.0 for s in {it["subtask"] for it in items}}
    from xlebench.commands.score import PAPER_ORDER

    out = capsys.readouterr().out
    listed = list(dict.fromkeys(line.split("|")[1].strip() for line in out.splitlines()
                                if line.startswith("| ") and line.split("|")[1].strip()
                                in table["rows"] and "AVG" not in line))
    assert listed == [s for s in PAPER_ORDER if s in listed] + sorted(
        s for s in listed if s not in PAPER_ORDER), "the evaluate stage's order"
    assert "floor" in out
    # the papers' own layout, one flag away: the summaries' ROUGE-L leads their rows
    assert score([str(tmp_path / "imp"), str(preds), "--no-bertscore", "--bootstrap", "5",
                  "--layout", "paper"]) == 0
    paper = capsys.readouterr().out.split("\n\n")
    summaries = sorted({it["subtask"] for it in items} & {"single_summary", "multi_summary",
                                                          "holistic_summary"})
    assert summaries and all(f"| {s} | rougeL |" in paper[2] for s in summaries)
    assert "eval.layout=paper" in paper[1]
    # half the gold answers: refused with a hint this command understands, then scored
    half = tmp_path / "half.jsonl"
    half.write_text("".join(preds.read_text().splitlines(keepends=True)[::2]))
    capsys.readouterr()
    assert score([str(tmp_path / "imp"), str(half), "--no-bertscore"]) == 2
    err = capsys.readouterr().err
    assert "--allow-partial" in err and "eval.allow_partial" not in err
    assert score([str(tmp_path / "imp"), str(half), "--no-bertscore", "--bootstrap", "5",
                  "--allow-partial", "--out", str(tmp_path / "half")]) == 0
    rows = [json.loads(x) for x in (tmp_path / "half" / "scores.jsonl").read_text().splitlines()]
    assert 0 < sum(r["scores"][load_recipe(r["subtask"]).primary] for r in rows) < len(rows)
    preds.write_text('{"item_id": "nope", "response": "x"}\n')
    assert score([str(tmp_path / "imp"), str(preds), "--no-bertscore"]) == 2


def test_every_unreadable_entry_is_skipped_and_counted(tmp_path: Path) -> None:
    """Probe files with entries of other shapes: each is counted under its subtask, the rest
    of the file and the other files import, and a broken file never stops the import."""
    rel = tmp_path / "rel"
    rel.mkdir()
    good = release_layout(LOG, _items())
    n_good = sum(len(v) for v in import_release_dir(rel, good, "a1b2c3d4_0f0f0f0f").values())
    bad = json.loads(json.dumps(good))
    bad["metadata"]["memory_id"] = "0e0e0e0e"
    bad["metadata"].pop("lifelog_id", None)
    t = bad["tasks"]
    t["action_retrieval"]["moment_localisation"]["query_list"].append({"query": "x"})
    t["action_retrieval"]["moment_localisation"]["query_list"].append(["not", "a", "dict"])
    t["objects_retrieval"]["query_list"].append({"queries": []})
    t["objects_retrieval"]["query_list"][0]["queries"].append({"query": "no times"})
    # two shapes once misread: a null query became "None in the record provided ...", and
    # index -1 read the last segment, with negative video times
    null = {**t["objects_retrieval"]["query_list"][0]["queries"][0], "query": None}
    t["objects_retrieval"]["query_list"][0]["queries"].append(null)
    last = json.loads(json.dumps(t["objects_retrieval"]["query_list"][0]))
    last["query_metadata"]["video_index"] = -1
    t["objects_retrieval"]["query_list"].append(last)
    # and an index that is not an integer: 1.9 and true were read as 1 (another video,
    # negative source times), "1" as a string too; a time that is a bool is no time
    for index in (1.9, True, "1"):
        wrong = json.loads(json.dumps(t["objects_retrieval"]["query_list"][0]))
        wrong["query_metadata"]["video_index"] = index
        t["objects_retrieval"]["query_list"].append(wrong)
    flag = {**t["objects_retrieval"]["query_list"][0]["queries"][0],
            "response_start_time_sec": True}
    t["objects_retrieval"]["query_list"][0]["queries"].append(flag)
    t["people_retrieval"] = ["an array where an object belongs"]
    t["summary_ordering"] = {"order": [0, 1]}
    (rel / "simulation_a1b2c3d4_0e0e0e0e_annotation.json").write_text(json.dumps(bad))
    (rel / "simulation_ffffffff_ffffffff_annotation.json").write_text("{")
    imp = import_release(rel)
    assert len(imp.logs) == 2
    assert imp.skipped == {
        "files: not release JSON (simulation_ffffffff_ffffffff_annotation.json)": 1,
        "moment_retrieval: entry without a readable query_metadata or query_list "
        "(no 'query_metadata')": 1,
        "moment_retrieval: entry without a readable query_metadata or query_list "
        "(another type where an object belongs)": 1,
        "object_retrieval: query group without a readable query_metadata "
        "(no 'query_metadata')": 1,
        "object_retrieval: query without text or response times "
        "(no 'response_start_time_sec')": 1,
        "object_retrieval: query without text or response times "
        "(ValueError: query is null, not text)": 1,
        "object_retrieval: query group without a readable query_metadata "
        "(IndexError: video_index -1 outside the 3 segments)": 1,
        "object_retrieval: query group without a readable query_metadata "
        "(ValueError: video_index is 1.9, not an integer)": 1,
        "object_retrieval: query group without a readable query_metadata "
        "(ValueError: video_index is true, not an integer)": 1,
        'object_retrieval: query group without a readable query_metadata '
        '(ValueError: video_index is "1", not an integer)': 1,
        "object_retrieval: query without text or response times "
        "(ValueError: response_start_time_sec is true, not a number)": 1,
        "people_retrieval: query group without a readable query_metadata "
        "(another type where an object belongs)": 1,
        "summary_ordering: an object without query_list": 1,
    }
    per_log = {lid: sum(it["lifelog_id"] == lid for v in imp.items.values() for it in v)
               for lid in imp.logs}
    assert max(per_log.values()) == n_good and min(per_log.values()) > 0


def import_release_dir(rel: Path, layout: dict, ids: str) -> dict:
    (rel / f"simulation_{ids}_annotation.json").write_text(json.dumps(layout))
    return import_release(rel).items


def test_an_item_predicted_under_both_its_ids_is_named_with_its_question_id(
        tmp_path: Path) -> None:
    from xlebench.errors import DataError
    from xlebench.export.questions import answer_key, question_id, resolve_ids

    items = [{"item_id": "a-000", "answer": {"text": "x"}},
             {"item_id": "b-000", "answer": {"text": "y"}}]
    qid = question_id("a-000", answer_key(items))
    with pytest.raises(DataError) as err:
        resolve_ids(tmp_path / "p.jsonl", {"a-000": "r", qid: "r"}, items)
    assert f"its question id {qid!r}" in str(err.value)
