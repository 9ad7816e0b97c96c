"""Publishing never loses data: partial runs update only what they computed, another
configuration is refused, stale outputs are refused, and killed runs leave nothing behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_inprocess, tree_bytes
from xlebench.config.schema import is_schema_default
from xlebench.manifest import config_diff, stale_outputs
from xlebench.publish import settle_leftovers

SMALL = ("name=small", "library.n_videos=60", "matcher/embedder=hashing",
         "persona.locations=[Japan]", "persona.mbti=[INTJ,ENFP]", "eval.bertscore=false",
         "eval.bootstrap=10", "render=none")


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("publish")
    ran = run_inprocess(out, *SMALL)
    assert ran.rc == 0, ran.text[-3000:]
    return out


def _bench(out: Path) -> Path:
    return out / "benchmarks" / "small"


def _perfect_predictions(bench: Path, path: Path) -> None:
    rows = [json.loads(line) for f in sorted((bench / "annotations").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    path.write_text("".join(json.dumps({"item_id": r["item_id"],
                                        "response": r["answer"]["text"]}) + "\n"
                            for r in rows))


def test_scoring_predictions_keeps_everything_else(published: Path, tmp_path: Path) -> None:
    bench = _bench(published)
    before = tree_bytes(bench)
    preds = tmp_path / "mine.jsonl"
    _perfect_predictions(bench, preds)
    ran = run_inprocess(published, *SMALL, "stages=[evaluate]", "eval.systems=[]",
                        f"eval.predictions={preds}")
    assert ran.rc == 0, ran.text[-3000:]
    after = tree_bytes(bench)
    added = sorted(set(after) - set(before))
    assert added == ["results/predictions-mine/evaluation.json",
                     "results/predictions-mine/scores.jsonl",
                     "results/predictions-mine/table.json",
                     "results/predictions-mine/table.md"]
    changed = sorted(k for k in before if after.get(k) != before[k])
    assert changed == ["manifest.json", "report/results-items.js", "report/results.html",
                       "results/leaderboard.json", "results/leaderboard.md"], \
        "only the manifest, the leaderboard and the results page may change besides the new " \
        "results"
    assert "predictions-mine" in after["results/leaderboard.md"].decode()
    results = after["report/results.html"].decode()
    assert "<h2>oracle_text_retrieval</h2>" in results and "<h2>predictions-mine</h2>" in results
    manifest = json.loads(after["manifest.json"])
    assert sorted(manifest["evaluations"]) == ["oracle_text_retrieval", "predictions-mine"]
    old = json.loads(before["manifest.json"])["fingerprints"]
    # respond's fingerprint names this run's systems (none here); it publishes no files
    assert {k: v for k, v in manifest["fingerprints"].items() if k != "respond"} == {
        k: v for k, v in old.items() if k != "respond"} | {
        "evaluate": manifest["evaluations"]["predictions-mine"]["fingerprint"]}


def test_what_every_result_derives_is_remade_from_the_folder_alone(published: Path,
                                                                  tmp_path: Path) -> None:
    """The leaderboard and the results page are derived once, at publication, from the folder
    alone (`xlebench.report.results.derive`): remade in a copy without them, they are the
    published bytes."""
    import shutil

    from xlebench.report.results import derive

    bench = _bench(published)
    copy = tmp_path / "copy"
    shutil.copytree(bench, copy)
    derived = ["results/leaderboard.md", "results/leaderboard.json", "report/results.html",
               *(str(p.relative_to(copy)) for p in (copy / "report").glob("results-items*.js"))]
    assert len(derived) > 3
    for rel in derived:
        (copy / rel).unlink()
    derive(copy)
    assert tree_bytes(copy) == tree_bytes(bench)


def test_another_configuration_is_refused_before_any_work(published: Path) -> None:
    bench = _bench(published)
    before = tree_bytes(bench)
    ran = run_inprocess(published, *SMALL, "persona.mbti=[INTJ,ENFP,ISTP]")
    assert ran.rc == 2
    assert "was published from another configuration (persona.mbti:" in ran.text
    assert "overwrite=true" in ran.text and "name=<new name>" in ran.text
    assert "stage persona" not in ran.text, "refused before any stage ran"
    assert tree_bytes(bench) == before


def test_overwrite_replaces_and_name_publishes_beside(tmp_path: Path) -> None:
    args = [a for a in SMALL if not a.startswith("name=")]
    assert run_inprocess(tmp_path, *args, "name=a", "stages=[simulate]").rc == 0
    assert run_inprocess(tmp_path, *args, "name=b", "stages=[simulate]",
                         "simulation=medium").rc == 0
    ran = run_inprocess(tmp_path, *args, "name=a", "stages=[persona]", "persona.mbti=[INTJ]",
                        "overwrite=true")
    assert ran.rc == 0, ran.text[-2000:]
    a = tmp_path / "benchmarks" / "a"
    assert not (a / "lifelogs").exists(), "overwrite publishes only this run's stages"
    assert json.loads((a / "manifest.json").read_text())["stages"] == ["persona"]
    assert (tmp_path / "benchmarks" / "b" / "lifelogs").is_dir()


def test_stale_outputs_are_refused(published: Path, tmp_path: Path) -> None:
    """Same configuration, but the simulate stage now computes other outputs (new code):
    the published annotations were built from the old ones and cannot be kept."""
    bench = _bench(published)
    manifest = json.loads((bench / "manifest.json").read_text())
    fake = dict(manifest, fingerprints={**manifest["fingerprints"], "simulate": "0" * 16})
    stale = stale_outputs(fake, {"simulate": manifest["fingerprints"]["simulate"]})
    assert {"annotate", "evaluate", "export", "render", "results/oracle_text_retrieval"} \
        <= set(stale)
    assert not {"library", "persona", "plan"} & set(stale)
    backup = (bench / "manifest.json").read_bytes()
    (bench / "manifest.json").write_text(json.dumps(fake))
    try:
        before = tree_bytes(bench)
        ran = run_inprocess(published, *SMALL, "stages=[simulate]")
        assert ran.rc == 2 and "changes the inputs of annotate, evaluate, export, render" \
            in ran.text
        assert tree_bytes(bench) == before
    finally:
        (bench / "manifest.json").write_bytes(backup)


def test_leftovers_of_killed_runs_are_settled(tmp_path: Path) -> None:
    bench = tmp_path / "benchmarks" / "demo"
    dead = 2 ** 22 + 12345  # above the default pid_max: no such process
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / f".demo.staging-{dead}").mkdir()
    old = tmp_path / "benchmarks" / f".demo.old-{dead}"
    old.mkdir()
    (old / "manifest.json").write_text("{}")
    live = tmp_path / "benchmarks" / f".demo.staging-{os.getpid()}"
    live.mkdir()
    settle_leftovers(bench)
    assert (bench / "manifest.json").read_text() == "{}", "restored from the old folder"
    assert sorted(p.name for p in (tmp_path / "benchmarks").iterdir()) == [
        f".demo.staging-{os.getpid()}", "demo"], "only a live run's staging is kept"


def test_config_diff_names_the_keys() -> None:
    assert config_diff({"a": {"b": 1, "c": [1]}}, {"a": {"b": 2, "c": [1]}, "d": 0}) == [
        "a.b: 1 -> 2", "d: (absent) -> 0"]


def test_a_cache_hit_rerun_skips_unchanged_exports(published: Path) -> None:
    """Same config, everything cached: stages whose fingerprint matches the published one keep
    their files (the same inodes, hard-linked into the new folder), and every byte is the same."""
    bench = _bench(published)
    assert run_inprocess(published, *SMALL).rc == 0  # the state other tests left: settled
    before = tree_bytes(bench)
    lifelog = next((bench / "lifelogs").glob("*.json"))
    inode = lifelog.stat().st_ino
    ran = run_inprocess(published, *SMALL)
    assert ran.rc == 0, ran.text[-2000:]
    assert tree_bytes(bench) == before
    assert (bench / "lifelogs" / lifelog.name).stat().st_ino == inode


def test_a_knob_newer_than_the_published_benchmark_counts_only_off_its_default(
        tmp_path: Path) -> None:
    """A benchmark published before a knob existed was made as with its default: the same
    command is not refused for it, another value is."""
    old = {"matcher": {"embedder": {"kind": "minilm"}}}
    new = {"matcher": {"embedder": {"kind": "minilm", "device": "cpu"}}}
    assert config_diff(old, new, added_at_default=is_schema_default) == []
    assert config_diff(old, new) == ['matcher.embedder.device: (absent) -> "cpu"']
    cuda = {"matcher": {"embedder": {"kind": "minilm", "device": "cuda"}}}
    assert config_diff(old, cuda, added_at_default=is_schema_default) == [
        'matcher.embedder.device: (absent) -> "cuda"']
    # a knob of a list's items (the ladder's steps gained ``scenarios``): item by item
    steps = {"matcher": {"ladder": [{"name": "strict", "min_iou": 0.33}]}}
    chunk = {"matcher": {"ladder": [{"name": "strict", "min_iou": 0.33, "scenarios": "chunk"}]}}
    window = {"matcher": {"ladder": [{"name": "strict", "min_iou": 0.33, "scenarios": "window"}]}}
    assert config_diff(steps, chunk, added_at_default=is_schema_default) == []
    assert config_diff(steps, window, added_at_default=is_schema_default) == [
        'matcher.ladder.0.scenarios: (absent) -> "window"']
    args = (*SMALL, "stages=[library,persona,plan,simulate]")
    assert run_inprocess(tmp_path, *args).rc == 0
    manifest = _bench(tmp_path) / "manifest.json"
    record = json.loads(manifest.read_text())
    del record["config"]["matcher"]["embedder"]["device"]  # as published before the knob
    for step in record["config"]["matcher"]["ladder"]:
        del step["scenarios"]
    manifest.write_text(json.dumps(record))
    ran = run_inprocess(tmp_path, *args)
    assert ran.rc == 0, ran.text[-2000:]
    ran = run_inprocess(tmp_path, *args, "matcher.embedder.batch_size=32")
    assert ran.rc == 2 and "matcher.embedder.batch_size: 64 -> 32" in ran.text
