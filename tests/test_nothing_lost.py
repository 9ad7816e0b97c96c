"""Nothing lost, round 2 (issue 66): a benchmark's name never reaches outside
``paths.benchmarks`` nor replaces a folder xlebench did not publish, bad input to the sheets,
the persona grid and the recipes' settings ends in one line (exit 2, nothing published), and a
published benchmark takes one more export without a recompile. Every case runs the real CLI.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FAST, run_inprocess, tree_digest

Q = ("matcher/embedder=hashing", "persona.locations=[Japan]", "persona.mbti=[INTJ]",
     "library.n_videos=60", "stages=[persona]")


def _one_error(text: str) -> str:
    assert "Traceback" not in text, text[-3000:]
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text[-3000:]
    return errors[0]


# -- where a benchmark may be published --------------------------------------------------------

@pytest.mark.parametrize("name", ["../../precious", "ABSOLUTE", "..", ".", "../x", "a/b",
                                  ".hidden", ""])
def test_a_name_that_is_a_path_is_refused_and_touches_nothing(tmp_path: Path,
                                                              name: str) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("data")
    name = str(precious) if name == "ABSOLUTE" else name
    ran = run_inprocess(tmp_path / "out" / "OT", *Q, f"name={name}")
    assert ran.rc == 2
    assert "not a benchmark name" in _one_error(ran.text)
    assert (precious / "thesis.txt").read_text() == "data"
    assert sorted(p.name for p in precious.iterdir()) == ["thesis.txt"]
    assert not (tmp_path / "out" / "OT" / "benchmarks").exists(), "nothing ran"


@pytest.mark.parametrize("held", ["files", "foreign manifest", "a file", "a link"])
def test_a_folder_xlebench_did_not_publish_is_never_replaced(tmp_path: Path,
                                                             held: str) -> None:
    out = tmp_path / "out"
    notes = out / "benchmarks" / "notes"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    notes.parent.mkdir(parents=True)
    if held == "a file":
        notes.write_text("my notes")
    elif held == "a link":
        notes.symlink_to(elsewhere)
    else:
        notes.mkdir()
        (notes / "todo.txt").write_text("todo")
        if held == "foreign manifest":
            (notes / "manifest.json").write_text('{"name": "my web app"}')
    before = notes.read_text() if held == "a file" else tree_digest(notes)
    for extra in ((), ("overwrite=true",)):
        ran = run_inprocess(out, *Q, "name=notes", *extra)
        assert ran.rc == 2, ran.text[-2000:]
        line = _one_error(ran.text)
        assert str(notes) in line and ("not a benchmark xlebench published" in line)
        assert (notes.read_text() if held == "a file" else tree_digest(notes)) == before
    assert (elsewhere / "keep.txt").read_text() == "keep"
    assert not list((out / "benchmarks").glob(".notes.staging*"))


def test_an_empty_folder_and_a_published_benchmark_are_replaced(tmp_path: Path) -> None:
    (tmp_path / "benchmarks" / "fresh").mkdir(parents=True)
    assert run_inprocess(tmp_path, *Q, "name=fresh").rc == 0
    assert (tmp_path / "benchmarks" / "fresh" / "manifest.json").is_file()
    ran = run_inprocess(tmp_path, *Q, "name=fresh", "persona.mbti=[ENFP]", "overwrite=true")
    assert ran.rc == 0, ran.text[-2000:]


# -- settings that can make nothing, or name the wrong thing -----------------------------------

@pytest.mark.parametrize(("override", "needle"), [
    ("persona.locations=[]", "persona.locations=[]: the persona grid"),
    ("persona.mbti=[]", "persona.mbti=[]: the persona grid"),
    ("tasks.summary_mcq.decoys.techniques=[]", "decoys.techniques=[]: expected at least one"),
    ("tasks.neptune_qa.capabilities=[]", "capabilities=[]: expected at least one"),
    ("tasks=[../persona/grid]", "'../persona/grid' is not an option of tasks"),
    ("library=../persona/grid", "'../persona/grid' is not an option of library"),
])
def test_a_setting_that_makes_nothing_is_refused_before_any_stage(tmp_path: Path,
                                                                  override: str,
                                                                  needle: str) -> None:
    tasks = ("tasks=[summary_mcq,neptune_qa]",) if "decoys" in override or "capab" in override \
        else ()
    ran = run_inprocess(tmp_path, "matcher/embedder=hashing", *tasks, override)
    assert ran.rc == 2
    assert needle in _one_error(ran.text)
    assert not (tmp_path / "cache").exists(), "a stage ran"


def test_a_length_past_its_range_is_not_told_to_take_billions_of_days(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, "simulation.n_chunks=100000000000")
    line = _one_error(ran.text)
    assert ran.rc == 2 and "<= 200" in line and "simulation.days" not in line
    ran = run_inprocess(tmp_path, "simulation.n_chunks=200", "planner.min_chunks=2")
    line = _one_error(ran.text)
    assert ran.rc == 2 and "simulation.days" not in line and "planner.min_chunks=200" in line


def test_a_candidate_pool_smaller_than_a_log_names_its_setting(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *Q[:-1], "stages=[simulate]", "matcher.diversity.sample.n=3")
    assert ran.rc == 2
    line = _one_error(ran.text)
    assert "matcher.diversity.sample.n=3" in line and "among the 3 sampled" in line


def test_a_hand_written_occupation_is_the_personas_everywhere(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    ran = run_inprocess(tmp_path, "persona=files", f"persona.dir={root / 'personas'}",
                        "stages=[persona]")
    assert ran.rc == 0, ran.text[-2000:]
    rows = [json.loads(x) for x in (tmp_path / "benchmarks" / "demo" / "personas.jsonl")
            .read_text().splitlines()]
    grace = next(r for r in rows if r["occupation"] == "farmer")
    assert grace["lifestyle"].startswith("A farmer in Rwanda")
    assert "start the day's work as farmer" in [r["activity"] for r in grace["daily_routine"]]
    assert "carpenter" not in json.dumps(grace)


# -- a published file that does not read back ---------------------------------------------------

def test_an_annotation_replaced_by_a_link_to_garbage_is_one_line(tmp_path: Path) -> None:
    args = (*FAST[1:], "stages=[annotate]", "tasks=[object_retrieval]", "eval.bootstrap=10",
            "eval.bertscore=false", "render=none")
    assert (ran := run_inprocess(tmp_path, *args)).rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "demo"
    assert run_inprocess(tmp_path, *args, "stages=[evaluate,report]").rc == 0
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("<html>not json</html>\n")
    target = bench / "annotations" / "object_retrieval.jsonl"
    target.unlink()
    target.symlink_to(garbage)
    before = tree_digest(bench)
    ran = run_inprocess(tmp_path, *args, "stages=[evaluate]")
    assert ran.rc == 2, ran.text[-2000:]
    line = _one_error(ran.text)
    assert "object_retrieval.jsonl: line 1" in line and "by hand" in line
    assert tree_digest(bench) == before


# -- a rater sheet ---------------------------------------------------------------------------------

NEPTUNE = (*FAST, "stages=[library,persona,plan,simulate,annotate]", "tasks=[neptune_qa]",
           "render=none", "export.formats=[curation]")


@pytest.fixture(scope="module")
def rated(tmp_path_factory) -> tuple[Path, list[dict]]:
    """A neptune_qa compile with its exported rater sheet."""
    out = tmp_path_factory.mktemp("rated")
    ran = run_inprocess(out, *NEPTUNE[:-1], "stages=[library,persona,plan,simulate,annotate,"
                        "export]", NEPTUNE[-1])
    assert ran.rc == 0, ran.text[-2000:]
    sheet = out / "benchmarks" / "demo" / "export" / "curation" / "items.csv"
    return out, list(csv.DictReader(io.StringIO(sheet.read_text())))


def _write_rows(rows: list[dict], path: Path, encoding: str = "utf-8") -> Path:
    buffer = io.StringIO()
    w = csv.DictWriter(buffer, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


def _raters(sheet: Path, drop: str = "[BAD]") -> str:
    return f"tasks.neptune_qa.filters=[{{kind: raters, verdicts: {sheet}, drop: {drop}}}]"


def test_a_rater_sheet_of_other_items_is_refused(rated, tmp_path: Path) -> None:
    out, rows = rated
    other = [{**r, "item_id": f"nosuch-{r['item_id']}", "verdict": "BAD"} for r in rows[:8]]
    ran = run_inprocess(out, *NEPTUNE, _raters(_write_rows(other, tmp_path / "o.csv")),
                        "name=other")
    assert ran.rc == 2
    line = _one_error(ran.text)
    assert "8 of its 8 rated items are not items of this benchmark's neptune_qa" in line
    assert "nosuch-" in line and not (out / "benchmarks" / "other").exists()


def test_a_rater_sheets_statistics_count_only_what_happened(rated, tmp_path: Path) -> None:
    out, rows = rated
    mine = [dict(r) for r in rows]
    mine[0]["verdict"] = "BAD"
    ran = run_inprocess(out, *NEPTUNE, _raters(_write_rows(mine, tmp_path / "m.csv")),
                        "name=mine")
    assert ran.rc == 0, ran.text[-2000:]
    stats = json.loads((out / "benchmarks" / "mine" / "stats" / "tasks.json").read_text())
    assert stats["raters"]["neptune_qa"]["discarded"] == 1
    assert stats["skipped"]["neptune_qa"]["dropped by the raters filter"] == 1


def test_a_rater_sheet_that_is_not_utf8_is_one_line(rated, tmp_path: Path) -> None:
    out, rows = rated
    mine = [dict(r) for r in rows]
    mine[0]["notes"] = "caf\u00e9"
    sheet = _write_rows(mine, tmp_path / "latin.csv", "latin-1")
    ran = run_inprocess(out, *NEPTUNE, _raters(sheet), "name=latin")
    assert ran.rc == 2 and "latin.csv: $: expected UTF-8 text" in _one_error(ran.text)


# -- MultiHop's human-evaluation sheet ---------------------------------------------------------

HOP = ("tasks=[multihop_qa]", "library.n_videos=120", "matcher/embedder=hashing",
       "persona.locations=[Japan,UK]", "persona.mbti=[INTJ,ESFP]", "render=none",
       "eval.bertscore=false", "eval.bootstrap=20")


@pytest.fixture(scope="module")
def hop(tmp_path_factory) -> Path:
    """A MultiHop benchmark published with the default exports, then given its human sheet
    by an export-only run (no recompile)."""
    out = tmp_path_factory.mktemp("hop")
    assert (ran := run_inprocess(out, *HOP)).rc == 0, ran.text[-2000:]
    return out


def test_an_export_is_added_to_a_published_benchmark(hop: Path) -> None:
    bench = hop / "benchmarks" / "demo"
    before = {p.name for p in (bench / "export").iterdir()}
    annotations = tree_digest(bench / "annotations")
    ran = run_inprocess(hop, *HOP, "stages=[export]", "export.formats=[human_eval]")
    assert ran.rc == 0, ran.text[-2000:]
    assert (bench / "export" / "human_eval" / "sheet.csv").is_file()
    assert before <= {p.name for p in (bench / "export").iterdir()}, "an export was lost"
    assert tree_digest(bench / "annotations") == annotations
    # the same by benchmark=, with nothing of the compile repeated
    shutil.rmtree(bench / "export" / "human_eval")
    ran = run_inprocess(hop, "benchmark=demo", "stages=[export]", "export.formats=[human_eval]")
    assert ran.rc == 0, ran.text[-2000:]
    assert (bench / "export" / "human_eval" / "sheet.csv").is_file()
    assert before <= {p.name for p in (bench / "export").iterdir()}


def _human_rows(hop: Path) -> list[dict]:
    bench = hop / "benchmarks" / "demo"
    if not (bench / "export" / "human_eval").is_dir():
        run_inprocess(hop, *HOP, "stages=[export]", "export.formats=[human_eval]")
    return list(csv.DictReader(io.StringIO(
        (bench / "export" / "human_eval" / "sheet.csv").read_text())))


@pytest.mark.parametrize("case", ["two rows", "unknown item", "not utf-8", "none sampled"])
def test_a_bad_human_sheet_is_one_line_and_publishes_nothing(hop: Path, tmp_path: Path,
                                                             case: str) -> None:
    rows = _human_rows(hop)
    assert rows
    for row in rows:
        row["answer"], row["evidence"] = "C opened the fridge", "[1, 2]"
    encoding, needle = "utf-8", ""
    if case == "two rows":
        rows.append(dict(rows[0]))
        needle = f"row {len(rows) + 1}.item_id: {rows[0]['item_id']!r} is answered on row 2"
    elif case == "unknown item":
        rows[0]["item_id"] = "someone-else-multihop_qa-001"
        needle = "row 2.item_id: 'someone-else-multihop_qa-001' is not an item"
    elif case == "not utf-8":
        rows[0]["notes"] = "caf\u00e9"
        encoding, needle = "latin-1", "expected UTF-8 text"
    else:
        for row in rows:
            row["answer"] = ""
        needle = "none of its 0 answered rows"
    sheet = _write_rows(rows, tmp_path / "filled.csv", encoding)
    results = hop / "benchmarks" / "demo" / "results"
    before = tree_digest(results)
    ran = run_inprocess(hop, *HOP, "stages=[evaluate]", f"eval.human_sheet={sheet}")
    assert ran.rc == 2, ran.text[-2000:]
    assert needle in _one_error(ran.text)
    assert tree_digest(results) == before


def test_a_folder_holding_only_xlebenchs_locks_is_published_over(tmp_path: Path) -> None:
    """A sweep's or shard's jobs leave their locks in the folder named after the sweep; a
    later plain run publishes there (nothing of the user's is in it)."""
    folder = tmp_path / "benchmarks" / "swept"
    (folder / ".shard.index=0.claims").mkdir(parents=True)
    (folder / ".shard.index=0.lock").write_text("")
    assert run_inprocess(tmp_path, *Q, "name=swept").rc == 0
    assert (folder / "manifest.json").is_file()


# -- round 3: a filled sheet survives, an export adds to the manifest --------------------------

def test_a_sheet_filled_in_place_survives_a_reexport(hop: Path) -> None:
    bench = hop / "benchmarks" / "demo"
    rows = _human_rows(hop)
    rows[0].update(answer="C opened the fridge", evidence="[1, 2]", notes="sure")
    sheet = _write_rows(rows, bench / "export" / "human_eval" / "sheet.csv")
    # other format lists than the sheet's own export: the export runs again (an unchanged
    # one is skipped, which would keep any file)
    for args in ((*HOP, "stages=[export]", "export.formats=[questions,human_eval]"),
                 ("benchmark=demo", "stages=[export]", "export.formats=[hf,human_eval]")):
        ran = run_inprocess(hop, *args)
        assert ran.rc == 0, ran.text[-2000:]
        again = list(csv.DictReader(io.StringIO(sheet.read_text())))
        assert [r["item_id"] for r in again] == [r["item_id"] for r in rows]
        assert again[0]["answer"] == "C opened the fridge" and again[0]["notes"] == "sure"
        assert again[0]["evidence"] == "[1, 2]"
        assert all(not row["answer"] for row in again[1:]), "only the filled row is filled"
    manifest = json.loads((bench / "manifest.json").read_text())
    exported = {p.name for p in (bench / "export").iterdir()}
    assert {"human_eval", "hf", "questions"} <= exported
    assert {"human_eval", "hf", "questions"} <= set(manifest["counts"]["export"]), \
        "an added export dropped the earlier ones' counts"
    assert set(manifest["counts"]["export"]) <= set(manifest["config"]["export"]["formats"]), \
        "the configuration names only the newest export"


def test_a_filled_row_the_export_would_lose_is_refused(hop: Path) -> None:
    bench = hop / "benchmarks" / "demo"
    rows = _human_rows(hop)
    rows.append({**rows[0], "item_id": "japan-intj-gone-multihop_qa-009", "answer": "kept"})
    sheet = _write_rows(rows, bench / "export" / "human_eval" / "sheet.csv")
    before = sheet.read_bytes()
    ran = run_inprocess(hop, "benchmark=demo", "stages=[export]",
                        "export.formats=[xlebench,human_eval]")
    assert ran.rc == 2, ran.text[-2000:]
    line = _one_error(ran.text)
    assert str(sheet) in line and "move the filled sheet aside" in line
    assert sheet.read_bytes() == before
    lines = before.decode().splitlines(keepends=True)
    sheet.write_text("".join(x for x in lines if "japan-intj-gone-multihop_qa-009" not in x))


def test_a_human_sheet_without_multihop_items_is_one_line(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *Q[:-1], "tasks=[single_summary]", "render=none",
                        "stages=[export]", "export.formats=[human_eval]")
    assert ran.rc == 2, ran.text[-2000:]
    assert "has no multihop_qa items" in _one_error(ran.text)
    assert not (tmp_path / "benchmarks" / "demo" / "export" / "human_eval").exists()


@pytest.mark.parametrize(("override", "needle"), [
    ("name=café", "name=café: not a benchmark name"),
    ("persona.locations=[Japón,UK]", "write \"persona.locations=['Japón','UK']\""),
])
def test_an_unquoted_unicode_value_gets_the_quotes_hydra_needs(tmp_path: Path, override: str,
                                                              needle: str) -> None:
    ran = run_inprocess(tmp_path, *Q, override)
    assert ran.rc == 2
    line = _one_error(ran.text)
    assert needle in line and "quote it for the shell" not in line


def test_an_export_of_a_variant_by_name_points_to_benchmark_never_to_overwrite(hop: Path
                                                                               ) -> None:
    bench = hop / "benchmarks" / "demo"
    before = tree_digest(bench)
    for extra in ((), ("overwrite=true",)):
        ran = run_inprocess(hop, "name=demo", "stages=[export]", "export.formats=[hf]", *extra)
        assert ran.rc == 2, ran.text[-2000:]
        line = _one_error(ran.text)
        assert "overwrite=true to replace" not in line
        assert "benchmark=demo" in line or "never replaces a published benchmark" in line
    assert tree_digest(bench) == before


@pytest.mark.slow  # a compile of the event recipes (24 s): the slow tier CI runs
def test_verb_metrics_without_a_frequent_verb_publish(tmp_path: Path) -> None:
    """VidSitu's verb_r5_th9 counts verbs of more than 9 events; a small benchmark has none,
    and its interval is no interval (null), not NaN that no JSON file can hold."""
    ran = run_inprocess(tmp_path, *Q[:-1], "render=none", "eval.bertscore=false",
                        "eval.bootstrap=20", "tasks=[event_srl,event_roles]")
    assert ran.rc == 0, ran.text[-2000:]
    table = json.loads(next((tmp_path / "benchmarks" / "demo" / "results").glob(
        "*/table.json")).read_text())
    cell = table["extra"]["event_srl"]["verb_r5_th9"]["all"]
    assert cell["mean"] is None and cell["ci95"] is None


def test_a_cache_that_cannot_be_written_names_paths_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    ran = run_inprocess(tmp_path / "out", *Q, f"paths.cache={blocker}/cache")
    assert ran.rc == 2
    line = _one_error(ran.text)
    assert f"point paths.cache=<folder> (now {blocker}/cache)" in line
    assert blocker.read_text() == "not a folder"


# -- xlebench-score: missing replies, --out, hand-edited annotations ----------------------------

def _hop_items(hop: Path) -> list[dict]:
    path = hop / "benchmarks" / "demo" / "annotations" / "multihop_qa.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_missing_replies_score_as_wrong_in_the_paper_layout(hop: Path, tmp_path: Path,
                                                            capsys) -> None:
    from xlebench.commands.score import main as score_main

    items = _hop_items(hop)
    one = items[0]
    preds = tmp_path / "one.jsonl"
    preds.write_text(json.dumps({"item_id": one["item_id"],
                                 "response": one["answer"]["text"]}) + "\n")
    out = tmp_path / "scored"
    assert score_main([str(hop / "benchmarks" / "demo"), str(preds), "--allow-partial",
                       "--layout", "paper", "--no-bertscore", "--bootstrap", "20",
                       "--out", str(out)]) == 0
    table = json.loads((out / "table.json").read_text())
    for metric in ("iou", "iop", "iog"):
        cell = table["extra"]["multihop_qa"][metric]["all"]
        assert cell["n"] == len(items) and cell["mean"] <= 1 / len(items) + 1e-9, metric
    assert "100.0 n=" not in capsys.readouterr().out


def test_an_out_folder_that_cannot_be_written_is_refused_before_scoring(hop: Path,
                                                                       tmp_path: Path,
                                                                       capsys) -> None:
    from xlebench.commands.score import main as score_main

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"item_id": _hop_items(hop)[0]["item_id"], "response": "x"})
                     + "\n")
    rc = score_main([str(hop / "benchmarks" / "demo"), str(preds), "--allow-partial",
                     "--no-bertscore", "--out", str(blocker / "scores")])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert f"--out {blocker / 'scores'}: {blocker} is a file, not a folder" in err


@pytest.mark.parametrize(("edit", "where"), [
    (lambda it: it.pop("lifelog_id"), "line 1.lifelog_id"),
    (lambda it: it.update(subtask="single_summary"), "line 1.subtask"),
    (lambda it: it.pop("answer"), "line 1.answer"),
])
def test_hand_edited_annotations_are_one_line(hop: Path, tmp_path: Path, capsys, edit,
                                              where: str) -> None:
    from xlebench.commands.score import main as score_main

    copy = tmp_path / "bench"
    shutil.copytree(hop / "benchmarks" / "demo" / "annotations", copy / "annotations")
    items = _hop_items(hop)
    edit(items[0])
    path = copy / "annotations" / "multihop_qa.jsonl"
    path.write_text("".join(json.dumps(it) + "\n" for it in items))
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"item_id": it["item_id"], "response": "x"}) + "\n"
                             for it in _hop_items(hop)))
    assert score_main([str(copy), str(preds), "--no-bertscore"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{path}: {where}" in err


# -- round 4: a spreadsheet's sheet keeps its answers ---------------------------------------------

def _blank_rows(hop: Path) -> list[dict]:
    """The sheet's rows with nothing filled (earlier tests fill some)."""
    return [{**r, "answer": "", "evidence": "", "notes": ""} for r in _human_rows(hop)]


def _spreadsheet(rows: list[dict], path: Path) -> Path:
    """The sheet as a spreadsheet in a comma-decimal locale saves it: ``;`` between cells, a
    byte-order mark, CRLF line ends, decimals with a comma."""
    buffer = io.StringIO()
    w = csv.DictWriter(buffer, fieldnames=list(rows[0]), delimiter=";", lineterminator="\r\n")
    w.writeheader()
    w.writerows([{k: (v.replace(".", ",") if k.startswith("clip_") else v)
                  for k, v in r.items()} for r in rows])
    path.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))
    return path


def test_a_spreadsheets_sheet_survives_a_reexport_with_the_columns_people_added(hop: Path
                                                                                ) -> None:
    bench = hop / "benchmarks" / "demo"
    rows = [{**r, "rater": ""} for r in _blank_rows(hop)]
    original = (bench / "export" / "human_eval" / "sheet.csv").read_bytes()
    rows[0].update(answer="C opened the fridge; then left", evidence="[1, 2]", rater="ana")
    rows[-1].update(notes="unsure", rater="bo")
    sheet = _spreadsheet(rows, bench / "export" / "human_eval" / "sheet.csv")
    ran = run_inprocess(hop, "benchmark=demo", "stages=[export]",
                        "export.formats=[questions,human_eval]")
    assert ran.rc == 0, ran.text[-2000:]
    again = list(csv.DictReader(io.StringIO(sheet.read_text("utf-8"))))
    assert [r["item_id"] for r in again] == [r["item_id"] for r in rows]
    assert (again[0]["answer"], again[0]["evidence"], again[0]["rater"]) == \
        ("C opened the fridge; then left", "[1, 2]", "ana")
    assert (again[-1]["notes"], again[-1]["rater"]) == ("unsure", "bo")
    # the spreadsheet's sheet is also read as replies (eval.human_sheet) in its dialect
    from xlebench.tasks.multihop.human_eval import read_sheet

    assert list(read_sheet(_spreadsheet(rows, hop / "filled.csv"), None)) == [rows[0]["item_id"]]
    sheet.write_bytes(original)


def test_one_item_filled_twice_differently_is_refused_naming_the_rows(hop: Path) -> None:
    bench = hop / "benchmarks" / "demo"
    rows = _blank_rows(hop)
    original = (bench / "export" / "human_eval" / "sheet.csv").read_bytes()
    rows[0].update(answer="C opened the fridge", evidence="[1, 2]")
    rows.append({**rows[0], "answer": "C closed the door"})
    sheet = _spreadsheet(rows, bench / "export" / "human_eval" / "sheet.csv")
    before = sheet.read_bytes()
    # not the last run's list, so the export runs (an unchanged one is skipped)
    ran = run_inprocess(hop, "benchmark=demo", "stages=[export]",
                        "export.formats=[hf,questions,human_eval]")
    assert ran.rc == 2, ran.text[-2000:]
    line = _one_error(ran.text)
    assert str(sheet) in line and f"row {len(rows) + 1}.item_id" in line and "row 2" in line
    assert sheet.read_bytes() == before
    sheet.write_bytes(original)
