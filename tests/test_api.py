"""The Python API (`xlebench.api`) against the command line on the same benchmark: the same
bytes where it publishes, the same numbers where it scores, the same line where it refuses."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

import xlebench as xb
from tests.conftest import run_cli, tree_digest
from xlebench.commands.score import main as score_main
from xlebench.errors import ConfigError, UserError

BASE = ["library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
        "render=none", "eval.bertscore=false", "eval.bootstrap=20", "progress=false"]
VARIANTS = {"one": [*BASE, "persona.mbti=[INTJ,ENFP]", "name=one"],
            "two": [*BASE, "persona.mbti=[ISFJ]", "tasks=[moment_retrieval,single_summary]",
                    "name=two"]}


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> dict[str, Path]:
    """Both variants compiled in this process (one after the other), each one's files as
    published (``bytes-<name>``: later tests publish scores beside them), and a copy of
    ``two`` in another outputs folder for the command line to evaluate (``cli-two``)."""
    api_out, cli_out = tmp_path_factory.mktemp("api"), tmp_path_factory.mktemp("cli")
    out: dict = {}
    for name, overrides in VARIANTS.items():
        bench = xb.compile(overrides, outputs=api_out)
        assert isinstance(bench, xb.Benchmark) and bench.name == name
        out[name], out[f"bytes-{name}"] = bench.path, _files(bench.path)
    out["cli-two"] = cli_out / "benchmarks" / "two"
    shutil.copytree(out["two"], out["cli-two"])
    return out


@pytest.mark.slow  # two CLI compiles (about 20 s): the slow tier CI runs
@pytest.mark.parametrize("name", list(VARIANTS))
def test_two_variants_in_one_process_match_their_cli_compiles_byte_for_byte(
        compiled, tmp_path: Path, name: str) -> None:
    run_cli(tmp_path, *VARIANTS[name])
    ours, theirs = compiled[f"bytes-{name}"], _files(tmp_path / "benchmarks" / name)
    assert ours.keys() == theirs.keys()
    differ = [k for k in ours if ours[k] != theirs[k]]
    assert not differ, differ


def test_open_reads_what_was_published(compiled) -> None:
    folder = compiled["one"]
    bench = xb.open(folder)
    assert xb.open("one", outputs=folder.parent.parent).path == bench.path
    assert bench.manifest == json.loads((folder / "manifest.json").read_text())
    published = {p.stem for p in (folder / "annotations").glob("*.jsonl") if p.stat().st_size}
    assert set(bench.subtasks) == published
    for sub in bench.subtasks:
        rows = [json.loads(x) for x in (folder / "annotations" / f"{sub}.jsonl")
                .read_text().splitlines()]
        assert bench.items(sub) == rows
    frame = bench.to_pandas()
    assert len(frame) == len(bench.items()) and {"item_id", "answer_text"} <= set(frame)
    assert bench.to_dataset(bench.subtasks[0]).num_rows == len(bench.items(bench.subtasks[0]))
    exported = folder / "export" / "questions"
    for sub in bench.subtasks:
        rows = [json.loads(x) for x in (exported / f"{sub}.jsonl").read_text().splitlines()]
        assert bench.questions(sub) == rows, sub
    assert not any("answer" in row for row in bench.questions())
    assert set(bench.lifelogs()) == {p.stem for p in (folder / "lifelogs").glob("*.json")}
    assert bench.videos() == {}  # render=none
    with pytest.raises(UserError, match="no subtask 'nope'"):
        bench.items("nope")


def test_the_leaderboard_is_the_published_one(compiled) -> None:
    bench = xb.open(compiled["one"])
    board = json.loads((compiled["one"] / "results" / "leaderboard.json").read_text())
    frame = bench.leaderboard()
    assert len(frame) == sum(len(r["cells"]) for r in board["rows"])
    for row in board["rows"]:
        for system, cell in row["cells"].items():
            got = frame[(frame.subtask == row["subtask"]) & (frame.system == system)]
            assert got["mean"].item() == cell["mean"] and got["n"].item() == cell["n"]


def _replies(bench: xb.Benchmark) -> dict[str, str]:
    """A reply per item, some right (the reference text), some not."""
    out = {}
    for k, it in enumerate(bench.items()):
        right = it["answer"].get("text") or ""
        out[it["item_id"]] = right if k % 2 else "C walks around the house."
    return out


def test_an_in_memory_score_equals_xlebench_score(compiled, tmp_path: Path) -> None:
    bench = xb.open(compiled["one"])
    replies = _replies(bench)
    scores = bench.score(replies, n_boot=30)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"item_id": k, "response": v}) + "\n"
                             for k, v in replies.items()))
    assert score_main([str(bench.path), str(preds), "--no-bertscore", "--bootstrap", "30",
                       "--out", str(tmp_path / "cli")]) == 0
    assert scores.table == json.loads((tmp_path / "cli" / "table.json").read_text())
    summary = scores.summary()
    assert {"mean", "ci_low", "ci_high", "n", "floor", "floor_member"} <= set(summary)
    assert all(sub in scores.markdown for sub in bench.subtasks)
    assert not (bench.path / "results" / "predictions").exists(), "nothing was written"
    with pytest.raises(Exception, match="covers"):
        bench.score(dict(list(replies.items())[:2]))


def test_a_callable_answers_the_questions_view(compiled) -> None:
    bench = xb.open(compiled["one"])
    seen: list[dict] = []

    def one(q: dict) -> str:
        seen.append(q)
        return "I do not know"
    single = bench.evaluate(one, n_boot=20)
    assert len(seen) == len(bench.items()) and all("answer" not in q for q in seen)
    batched = bench.evaluate(lambda qs: ["I do not know"] * len(qs), batch=True, n_boot=20)
    assert single.table["rows"] == batched.table["rows"]
    with pytest.raises(Exception, match="one reply per question"):
        bench.evaluate(lambda qs: ["x"], batch=True)


@pytest.mark.slow  # the API's score against a CLI evaluation (21 s): the slow tier CI runs
def test_publishing_a_score_equals_the_clis_predictions_run(compiled, tmp_path: Path) -> None:
    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    published = bench.score(replies, system="mymodel", publish=True)
    assert published.system == "predictions-mymodel"
    ours = (bench.path / "results" / "predictions-mymodel" / "scores.jsonl").read_bytes()
    preds = tmp_path / "mymodel.jsonl"
    preds.write_text("".join(json.dumps({"item_id": k, "response": v}) + "\n"
                             for k, v in sorted(replies.items())))
    cli_bench = compiled["cli-two"]
    run_cli(cli_bench.parent.parent, f"benchmark={cli_bench}", "stages=[evaluate]",
            "eval.systems=[]", f"eval.predictions={preds}", "eval.name=mymodel")
    theirs = cli_bench / "results" / "predictions-mymodel"
    assert ours == (theirs / "scores.jsonl").read_bytes()
    assert published.table == json.loads((theirs / "table.json").read_text())
    assert "predictions-mymodel" in set(bench.leaderboard().system)


@pytest.mark.parametrize("override", ["persona.mbti=[XXXX]", "library=synthtic",
                                      "name=../../elsewhere", "library.n_vidoes=5"])
def test_errors_carry_the_clis_line(tmp_path: Path, override: str) -> None:
    with pytest.raises(ConfigError) as caught:
        xb.compile([override], outputs=tmp_path)
    ran = run_cli(tmp_path, override, check=False)
    assert ran.returncode == 2
    line = next(x for x in ran.stderr.splitlines() if x.startswith("error:"))
    assert line == f"error: {caught.value}"
    assert not (tmp_path / "benchmarks").exists()


# -- nothing lost, round 3: the Python door checks what the command line checks ------------------

@pytest.mark.parametrize("system", ["../../one/annotations/single_summary", "a/../../b",
                                    "/tmp/x", "./x", "", "\n", "x" * 201])
def test_a_system_name_that_is_a_path_is_refused_and_writes_nothing(compiled,
                                                                    system: str) -> None:
    bench = xb.open(compiled["two"])
    others = {p: tree_digest(p) for p in (compiled["one"], compiled["cli-two"])}
    results = sorted(p.name for p in (bench.path / "results").iterdir())
    with pytest.raises(ConfigError, match="is not a system name"):
        bench.score(_replies(bench), system=system, publish=True)
    assert {p: tree_digest(p) for p in others} == others
    assert sorted(p.name for p in (bench.path / "results").iterdir()) == results


def test_the_cli_checks_eval_name_as_the_api_checks_system(compiled) -> None:
    cli = compiled["cli-two"]
    ran = run_cli(cli.parent.parent, f"benchmark={cli}", "stages=[evaluate]",
                  "eval.systems=[]", "eval.name=../../x", check=False)
    assert ran.returncode == 2 and "eval.name='../../x' is not a system name" in ran.stderr


def test_none_is_no_reply(compiled) -> None:
    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    first = sorted(replies)[0]
    with pytest.raises(UserError, match=f"covers {len(replies) - 1} of {len(replies)}"):
        bench.score({**replies, first: None})
    scores = bench.score({**replies, first: None}, allow_partial=True, n_boot=0)
    row = next(r for r in scores.rows if r["item_id"] == first)
    assert row["status"] == "missing" and row["response"] is None
    assert scores.table["coverage"]["answered"] == len(replies) - 1
    everyone = bench.evaluate(lambda q: None, allow_partial=True, n_boot=0)
    assert {r["status"] for r in everyone.rows} == {"missing"}


@pytest.mark.parametrize("given", [["a", "b"], 5, {"x": 3}, {1: "x"}])
def test_what_is_not_replies_is_one_line(compiled, given) -> None:
    with pytest.raises(UserError) as caught:
        xb.open(compiled["two"]).score(given)
    assert "\n" not in str(caught.value)


def test_a_predictions_file_is_scored_from_its_path(compiled, tmp_path: Path) -> None:
    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"item_id": k, "response": v}) + "\n"
                             for k, v in replies.items()))
    want = bench.score(replies, n_boot=20).table
    assert bench.score(str(preds), n_boot=20).table == want
    assert bench.score(preds, n_boot=20).table == want


def test_replies_are_cut_alike_by_every_door(compiled, tmp_path: Path, capsys) -> None:
    """The evaluate stage cuts replies at MAX_REPLY_CHARS; bench.score and xlebench-score
    cut them too, and say how many."""
    from xlebench.eval.predictions import MAX_REPLY_CHARS

    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    first = sorted(replies)[0]
    long = {**replies, first: replies[first] + " walk" * MAX_REPLY_CHARS}
    cut = {**replies, first: long[first][:MAX_REPLY_CHARS]}
    got = bench.score(long, n_boot=20)
    assert got.table["coverage"]["truncated"] == 1
    assert got.rows == bench.score(cut, n_boot=20).rows
    preds = tmp_path / "long.jsonl"
    preds.write_text("".join(json.dumps({"item_id": k, "response": v}) + "\n"
                             for k, v in long.items()))
    assert score_main([str(bench.path), str(preds), "--no-bertscore", "--bootstrap", "20",
                       "--out", str(tmp_path / "cli")]) == 0
    assert json.loads((tmp_path / "cli" / "table.json").read_text()) == got.table
    printed = capsys.readouterr()
    note = f"1 replies longer than {MAX_REPLY_CHARS} characters were cut"
    assert note in printed.out and f"warning: {note}" in printed.err
    assert note in (tmp_path / "cli" / "table.md").read_text()


@pytest.mark.parametrize("overrides", ["name=x", ["seed=1", 3], None])
def test_overrides_are_a_list_of_text(tmp_path: Path, overrides) -> None:
    with pytest.raises(UserError, match="compile\\(overrides="):
        xb.compile(overrides, outputs=tmp_path)
    assert not (tmp_path / "benchmarks").exists()


def test_publishing_twice_names_the_apis_own_setting(compiled) -> None:
    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    bench.score(replies, system="twice", publish=True)
    other = {**replies, sorted(replies)[0]: "something else"}
    with pytest.raises(ConfigError, match="replace=True") as caught:
        bench.score(other, system="twice", publish=True)
    assert "eval." not in str(caught.value)
    replaced = bench.score(other, system="twice", publish=True, replace=True)
    assert any(r["response"] == "something else" for r in replaced.rows)


def test_a_broken_manifest_is_one_line(compiled, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(compiled["two"], copy)
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(UserError, match="manifest.json: \\$: expected the JSON manifest"):
        _ = xb.open(copy).manifest


def test_the_api_is_visible_to_tools_and_import_stays_light() -> None:
    """``dir(xlebench)`` lists the API (tab completion, ``help``); static tools read it from
    a TYPE_CHECKING import; importing the package loads neither Hydra, torch nor the API."""
    import ast
    import subprocess
    import sys

    import xlebench

    assert {"compile", "open", "open_benchmark", "Benchmark", "Scores",
            "CompileFailed"} <= set(dir(xlebench))
    assert not {"Any", "typing", "annotations", "_typing"} & set(dir(xlebench))
    assert set(xlebench.__all__) == set(xlebench._API) | {"__version__"}
    tree = ast.parse(Path(xlebench.__file__).read_text())
    static = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.If)
              for sub in node.body if isinstance(sub, ast.ImportFrom)
              and sub.module == "xlebench.api" for a in sub.names}
    assert static == set(xlebench._API)
    code = ("import sys, xlebench; print(sorted(m for m in ('hydra', 'torch', 'omegaconf', "
            "'xlebench.api') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


# -- nothing lost, round 4: a Python value is data, never Hydra grammar ---------------------------

@pytest.mark.parametrize("system", ["${oc.env:XLB_TEST_SECRET}", "'q'", "模型 ü v2", "a,b",
                                    "a=b", "x]", "${oc.env:HOME}", "back\\${x}"])
def test_a_system_name_is_published_as_given_never_as_grammar(compiled, monkeypatch,
                                                               system: str) -> None:
    """``system`` reaches the configuration as a string: no interpolation (an environment
    variable's value, e.g. an API key, is never published), no quotes eaten, no sweep; the
    results folder is a safe name derived from it and the tables name it as given."""
    from xlebench.eval.predictions import folder_slug

    monkeypatch.setenv("XLB_TEST_SECRET", "s3cr3t-token")
    bench = xb.open(compiled["two"])
    others = {p: tree_digest(p) for p in (compiled["one"], compiled["cli-two"])}
    published = bench.score(_replies(bench), system=system, publish=True)
    key = "predictions-" + folder_slug(system)
    assert published.system == key and (bench.path / "results" / key / "table.json").is_file()
    home = str(Path.home())
    for path in bench.path.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md", ".jsonl", ".html"):
            text = path.read_text("utf-8")
            assert "s3cr3t-token" not in text, path
            assert f'"{home}' not in text or path.name != "evaluation.json", path
    table = json.loads((bench.path / "results" / key / "table.json").read_text("utf-8"))
    assert table.get("label", key) == "predictions-" + system
    board = (bench.path / "results" / "leaderboard.md").read_text("utf-8")
    assert "predictions-" + system in board
    assert {p: tree_digest(p) for p in others} == others


def test_values_are_data_and_a_typo_or_a_group_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"values\['eval.nam'\].*not a setting"):
        xb.compile(["name=x"], values={"eval.nam": "m"}, outputs=tmp_path)
    with pytest.raises(ConfigError, match=r"values\['vlm'\]: vlm is a config group"):
        xb.compile(["name=x"], values={"vlm": "litellm"}, outputs=tmp_path)
    with pytest.raises(ConfigError, match=r"values\['seed'\]='3'.*give the value as int"):
        xb.compile(["name=x"], values={"seed": "3"}, outputs=tmp_path)
    assert not (tmp_path / "benchmarks").exists()


def test_literal_reads_back_exactly() -> None:
    from omegaconf import OmegaConf

    from xlebench.commands.values import literal

    for text in ["${oc.env:HOME}", "a\\${b}", "\\\\${c}", "plain", "$ {x}", "${", "\\"]:
        assert OmegaConf.create({"k": literal(text)}).k == text


def test_republishing_the_same_replies_leaves_the_manifest_and_names_no_lost_file(compiled
                                                                                  ) -> None:
    bench = xb.open(compiled["two"])
    replies = _replies(bench)
    bench.score(replies, system="again", publish=True)
    manifest = (bench.path / "manifest.json").read_bytes()
    recorded = json.loads(manifest)["evaluations"]["predictions-again"]["eval"]["predictions"]
    assert Path(recorded).is_file(), "the manifest records a file that is gone"
    bench.score(replies, system="again", publish=True)
    assert (bench.path / "manifest.json").read_bytes() == manifest
    with pytest.raises(UserError) as caught:
        bench.score({k: v for k, v in list(replies.items())[1:]}, system="part", publish=True)
    line = str(caught.value)
    assert "allow_partial=True" in line and f"<{len(replies) - 1} replies>" in line
    path = line.split("(kept as ")[1].split(")")[0]
    assert Path(path).is_file()
