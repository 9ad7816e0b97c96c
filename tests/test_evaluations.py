"""One published benchmark, many evaluations: results accumulate per (system, model), runs
may overlap, answering settings and transport never touch the benchmark's identity."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, cli_env, run_inprocess, tree_bytes
from xlebench.testing.loopback import LoopbackLLMServer, Reply
from xlebench.testing.scripted_llm import ScriptedModel

SMALL = ("name=multi", "library.n_videos=60", "matcher/embedder=hashing",
         "persona.locations=[Japan]", "persona.mbti=[INTJ,ENFP]", "eval.bertscore=false",
         "eval.bootstrap=10", "render=none", "progress=false")
EVALUATE = ("stages=[evaluate]",)


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("evaluations")
    ran = run_inprocess(out, *SMALL)
    assert ran.rc == 0, ran.text[-3000:]
    return out


def _bench(out: Path) -> Path:
    return out / "benchmarks" / "multi"


def _predictions(bench: Path, path: Path, wrong_every: int) -> Path:
    rows = [json.loads(line) for f in sorted((bench / "annotations").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    path.write_text("".join(json.dumps({
        "item_id": r["item_id"],
        "response": "no idea" if k % wrong_every == 0 else r["answer"]["text"]}) + "\n"
        for k, r in enumerate(rows)))
    return path


def _popen(out: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", *args]
    # the output (results tables and panels, larger than a pipe's buffer) goes to a file: a
    # pipe nobody drains while the run is held would block it at its last print
    log = tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env or cli_env(), stdout=subprocess.DEVNULL,
                            stderr=log, text=True)
    proc.log = log  # type: ignore[attr-defined]
    return proc


def _stderr(proc: subprocess.Popen) -> str:
    proc.log.seek(0)  # type: ignore[attr-defined]
    return proc.log.read()  # type: ignore[attr-defined]


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the held run ended early:\n{_stderr(proc)[-3000:]}")
        assert time.monotonic() < deadline, "the held run never reached its hold point"
        time.sleep(0.1)


def _run_overlapping(out: Path, hold: Path, first: tuple[str, ...], second: tuple[str, ...]
                     ) -> tuple[subprocess.CompletedProcess, subprocess.Popen]:
    """``first`` stages its results and waits; ``second`` runs and publishes; ``first`` then
    publishes over a folder that changed since it staged."""
    hold.mkdir()
    held = _popen(out, *first, env=cli_env(XLEBENCH_HOLD_AT=f"evaluate:export:{hold}"))
    _wait_for(hold / "reached", held)
    other = subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={out}", *second],
                           cwd=ROOT, env=cli_env(), capture_output=True, text=True,
                           timeout=240)
    (hold / "release").touch()
    held.wait(timeout=240)
    return other, held


@pytest.mark.slow  # five evaluations of one benchmark, two at once (35 s): the slow tier CI runs
def test_evaluations_accumulate_one_after_another_and_at_once(published: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "own"  # its own copy: the module's benchmark stays as compiled
    shutil.copytree(published, out)
    bench = _bench(out)
    before = tree_bytes(bench)
    kept = {k: v for k, v in before.items()
            if k.startswith(("results/oracle_text_retrieval/", "export/", "annotations/"))}
    assert any(k.startswith("export/") for k in kept)
    # one after another: three systems, each its own run with its own answering settings
    for extra in (["eval.systems=[end_to_end]", "vlm.max_images=16"],
                  ["eval.systems=[oracle_annotations]"],
                  ["eval.systems=[socratic]", "matcher.index.faiss_threads=2"]):
        ran = run_inprocess(out, *SMALL, *EVALUATE, *extra)
        assert ran.rc == 0, ran.text[-3000:]
    # two at once: the first stages and waits while the second publishes
    a = _predictions(bench, tmp_path / "a.jsonl", 3)
    b = _predictions(bench, tmp_path / "b.jsonl", 5)
    other, held = _run_overlapping(
        out, tmp_path / "hold",
        (*SMALL, *EVALUATE, "eval.systems=[]", f"eval.predictions={a}"),
        (*SMALL, *EVALUATE, "eval.systems=[]", f"eval.predictions={b}"))
    assert other.returncode == 0, other.stderr[-3000:]
    err = _stderr(held)
    assert held.returncode == 0, err[-3000:]
    assert "was published by another run meanwhile" in err, "the runs did overlap"

    after = tree_bytes(bench)
    systems = {"oracle_text_retrieval", "end_to_end@scripted", "oracle_annotations",
               "oracle_socratic@scripted", "predictions-a", "predictions-b"}
    assert {k.split("/")[1] for k in after if k.startswith("results/") and k.count("/") == 2} \
        == systems
    assert {k: after.get(k) for k in kept} == kept, "no evaluation touches another's results"
    manifest = json.loads(after["manifest.json"])
    assert set(manifest["evaluations"]) == systems
    board = after["results/leaderboard.md"].decode()
    assert all(s in board for s in systems) and "end_to_end@scripted (STAND-IN)" in board
    page = after["report/results.html"].decode()
    assert all(f"<h2>{s}</h2>" in page for s in systems) and "Leaderboard" in page
    e2e = json.loads(after["results/end_to_end@scripted/evaluation.json"])
    assert e2e["model"]["stand_in"] and e2e["config"]["vlm"]["max_images"] == 16
    assert e2e["date"] == "2026-01-01"  # SOURCE_DATE_EPOCH, as the tests pin it
    assert "STAND-IN" in after["results/end_to_end@scripted/table.md"].decode()


def test_another_answering_model_port_or_thread_count_is_not_another_benchmark(
        published: Path) -> None:
    """A Socratic evaluation through a server; the server moves: the rerun is answered from
    the cache (0 requests), and a second answering model gets its own results folder."""
    args = (*SMALL, *EVALUATE, "eval.systems=[retrieve_socratic]", "answerer=litellm",
            "answerer.backoff_s=0.01", "answerer.timeout_s=5")
    with LoopbackLLMServer(ScriptedModel()) as srv:
        ran = run_inprocess(published, *args, "answerer.model=openai/model-a",
                            f"answerer.api_base={srv.base_url}")
        assert ran.rc == 0, ran.text[-3000:]
        assert srv.request_count > 0
    with LoopbackLLMServer(ScriptedModel()) as moved:
        ran = run_inprocess(published, *args, "answerer.model=openai/model-a",
                            f"answerer.api_base={moved.base_url}")
        assert ran.rc == 0, ran.text[-3000:]
        assert moved.request_count == 0, "the same evaluation is answered from the cache"
        ran = run_inprocess(published, *args, "answerer.model=openai/model-b",
                            f"answerer.api_base={moved.base_url}")
        assert ran.rc == 0, ran.text[-3000:]
    results = _bench(published) / "results"
    assert (results / "oracle_retrieve_socratic@openai--model-a" / "table.json").is_file()
    assert (results / "oracle_retrieve_socratic@openai--model-b" / "table.json").is_file()


def test_the_compiling_llm_is_identity_and_the_refusal_says_what_answers(
        published: Path) -> None:
    ran = run_inprocess(published, *SMALL, *EVALUATE, "llm=litellm", "llm.model=other")
    assert ran.rc == 2
    assert "answerer=" in ran.text and "llm.backend" in ran.text


@pytest.mark.slow  # two compiles into one name (24 s): the slow tier CI runs
def test_two_compiles_of_different_configurations_into_one_name(tmp_path: Path) -> None:
    out = tmp_path / "out"
    compile_ = ("name=race", "library.n_videos=60", "matcher/embedder=hashing",
                "persona.locations=[Japan]", "persona.mbti=[INTJ]", "eval.bertscore=false",
                "eval.bootstrap=10", "render=none", "progress=false",
                "export.formats=[xlebench]")
    other, held = _run_overlapping(out, tmp_path / "hold", (*compile_, "seed=0"),
                                   (*compile_, "seed=1"))
    assert other.returncode == 0, other.stderr[-3000:]
    err = _stderr(held)
    assert held.returncode == 2, err[-3000:]
    assert "published by another run while this one ran" in err and "seed: 1 -> 0" in err
    assert "Traceback" not in err
    manifest = json.loads((out / "benchmarks" / "race" / "manifest.json").read_text())
    assert manifest["seed"] == 1


def test_each_remote_model_is_probed_before_any_frame(published: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, or no server: one line naming the right setting, before frames are decoded."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    frames = published / "cache" / "frames"
    before = sorted(frames.rglob("*.jpg"))  # other tests' scripted end_to_end decoded some
    args = (*SMALL, *EVALUATE, "eval.systems=[end_to_end]", "vlm=litellm",
            "vlm.model=not-yet-evaluated", "eval.e2e_frames=7")
    ran = run_inprocess(published, *args)
    assert ran.rc == 2 and "vlm.api_key_env=OPENAI_API_KEY" in ran.text
    assert "llm.api_key_env" not in ran.text
    ran = run_inprocess(published, *args, "vlm.api_base=http://127.0.0.1:9/v1")
    assert ran.rc == 2 and "vlm.api_base=http://127.0.0.1:9/v1: no server answers" in ran.text
    assert sorted(frames.rglob("*.jpg")) == before, "no frame was decoded"


def _table(bench: Path, key: str) -> dict:
    return json.loads((bench / "results" / key / "table.json").read_text())


def test_predictions_never_replace_each_other(published: Path, tmp_path: Path) -> None:
    """``runs/a/preds.jsonl`` then ``runs/b/preds.jsonl``: the second gets its own folder;
    a declared model names its file; a chosen ``eval.name`` that holds another file's scores
    is refused in one line unless ``eval.replace=true``; an oversized reply is cut, counted."""
    bench = _bench(published)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _predictions(bench, tmp_path / "a" / "preds.jsonl", 3)
    second = _predictions(bench, tmp_path / "b" / "preds.jsonl", 2)
    run = (*SMALL, *EVALUATE, "eval.systems=[]")
    assert run_inprocess(published, *run, f"eval.predictions={first}").rc == 0
    kept = tree_bytes(bench / "results" / "predictions-preds")
    ran = run_inprocess(published, *run, f"eval.predictions={second}")
    assert ran.rc == 0, ran.text[-3000:]
    assert tree_bytes(bench / "results" / "predictions-preds") == kept
    own = [p.name for p in (bench / "results").glob("predictions-preds-*")]
    assert len(own) == 1 and len(own[0]) == len("predictions-preds-") + 8

    rows = [json.loads(x) for x in second.read_text().splitlines()]
    rows[0]["response"] = "x" * 500_000
    declared = tmp_path / "declared.jsonl"
    declared.write_text("".join(json.dumps({**r, "model": "org/model-7b"}) + "\n" for r in rows))
    ran = run_inprocess(published, *run, f"eval.predictions={declared}")
    assert ran.rc == 0, ran.text[-3000:]
    folder = [p for p in (bench / "results").glob("predictions-org--model-7b*")]
    assert [p.name for p in folder] == ["predictions-org--model-7b"]
    assert _table(bench, "predictions-org--model-7b")["coverage"]["truncated"] == 1
    assert (folder[0] / "scores.jsonl").stat().st_size < 2_000_000
    assert "were cut to that length" in (folder[0] / "table.md").read_text()

    named = (*run, "eval.name=mine")
    assert run_inprocess(published, *named, f"eval.predictions={first}").rc == 0
    mine = tree_bytes(bench / "results" / "predictions-mine")
    ran = run_inprocess(published, *named, f"eval.predictions={second}")
    assert ran.rc == 2 and "eval.replace=true" in ran.text
    assert tree_bytes(bench / "results" / "predictions-mine") == mine
    ran = run_inprocess(published, *named, "eval.replace=true", f"eval.predictions={second}")
    assert ran.rc == 0, ran.text[-3000:]
    assert tree_bytes(bench / "results" / "predictions-mine") != mine


@pytest.mark.slow  # seven evaluations through the CLI (about 22 s): the slow tier CI runs
def test_a_published_benchmark_is_evaluated_by_name_or_folder(published: Path) -> None:
    """Its configuration comes from its manifest: no compile override is repeated, one is
    refused in one line, and no evaluation-only run suggests or performs overwrite=true."""
    bench = _bench(published)
    local = ("eval.bertscore=false", "eval.bootstrap=10", *EVALUATE)
    ran = run_inprocess(published, "benchmark=multi", "eval.systems=[oracle_annotations]",
                        *local)
    assert ran.rc == 0, ran.text[-3000:]
    ran = run_inprocess(published, f"benchmark={bench}", "eval.systems=[end_to_end]",
                        "eval.max_logs=1", *local)
    assert ran.rc == 0, ran.text[-3000:]
    assert (bench / "results" / "end_to_end@scripted" / "table.json").is_file()
    before = tree_bytes(bench)
    refused = [run_inprocess(published, "benchmark=multi", "library.n_videos=5", *local),
               run_inprocess(published, "name=multi", *local),
               run_inprocess(published, "benchmark=multi", "overwrite=true", *local),
               run_inprocess(published, *SMALL, *EVALUATE, "overwrite=true"),
               run_inprocess(published, "benchmark=elsewhere", *local)]
    assert [r.rc for r in refused] == [2] * 5, [r.text[-500:] for r in refused]
    assert "drop library.n_videos" in refused[0].text
    assert "benchmark=multi" in refused[1].text and "overwrite=true" not in refused[1].text
    assert "never replaces a published benchmark" in refused[2].text
    assert "no published benchmark there" in refused[4].text
    assert all("Traceback" not in r.text for r in refused)
    assert tree_bytes(bench) == before


def test_a_benchmark_copied_to_another_folder_is_evaluated_there(published: Path,
                                                                 tmp_path: Path) -> None:
    """A published benchmark copied under another name is the same benchmark: evaluated by
    the copy's name (it was refused, the refusal suggesting the command that had failed),
    its results landing in the copy, the original untouched."""
    bench = _bench(published)
    before = tree_bytes(bench)
    copy = tmp_path / "benchmarks" / "copied"
    shutil.copytree(bench, copy)
    local = ("eval.bertscore=false", "eval.bootstrap=10", *EVALUATE)
    ran = run_inprocess(tmp_path, "benchmark=copied", "eval.systems=[oracle_annotations]",
                        *local)
    assert ran.rc == 0, ran.text[-3000:]
    assert (copy / "results" / "oracle_annotations" / "table.json").is_file()
    assert tree_bytes(bench) == before


def _started_at_once(out: Path, runs: list[tuple[str, ...]]) -> list[subprocess.Popen]:
    procs = [_popen(out, *SMALL, *EVALUATE, "eval.systems=[]", *run) for run in runs]
    for p in procs:
        p.wait(timeout=600)
    return procs


def _by_digest(bench: Path) -> dict[str, str]:
    """Each predictions results folder, by the digest of the file it scored."""
    out = {}
    for folder in (bench / "results").glob("predictions-*"):
        record = json.loads((folder / "evaluation.json").read_text())
        out[record["fingerprints"]["predictions_sha256"]] = folder.name
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4, 8])
def test_evaluations_started_at_once_end_as_they_would_in_sequence(published: Path,
                                                                   tmp_path: Path,
                                                                   n: int) -> None:
    """``n`` evaluations of one benchmark started together — files of one name in other
    folders (the default name), the same ``eval.name`` chosen by two of them, and (from
    four) both — end with the folders and bytes of the same runs one after another: every
    default-named file in its own folder, one of the chosen name's files scored and the
    other refused in one line, none lost."""
    from xlebench.eval.predictions import digest

    fresh = tmp_path / "at-once"
    shutil.copytree(published, fresh)
    bench = _bench(fresh)
    files = []
    for k in range(n):
        (tmp_path / f"p{k}").mkdir()
        files.append(_predictions(bench, tmp_path / f"p{k}" / "preds.jsonl", k + 2))
    chosen = {0, 1} if n == 2 else {0, 1, 2}
    runs = [(f"eval.predictions={f}", *(["eval.name=mine"] if k in chosen and n > 2 or
                                        n == 2 and k == 1 else [])) for k, f in enumerate(files)]
    procs = _started_at_once(fresh, runs)
    named = [k for k, r in enumerate(runs) if "eval.name=mine" in r]
    for k, p in enumerate(procs):
        if k not in named:
            assert p.returncode == 0, _stderr(p)[-3000:]
    won = [k for k in named if procs[k].returncode == 0]
    assert len(won) == 1, [_stderr(procs[k])[-500:] for k in named]
    for k in set(named) - set(won):
        err = _stderr(procs[k])
        assert procs[k].returncode == 2 and "Traceback" not in err
        assert "eval.name" in err and ("being written by another evaluation" in err
                                       or "holds the scores of another" in err)
    at_once = _by_digest(bench)
    defaults = [k for k in range(n) if k not in named]
    assert {digest(files[k]) for k in defaults} | {digest(files[won[0]])} == set(at_once)
    assert at_once[digest(files[won[0]])] == "predictions-mine"
    # the same runs one after another, in the order the names were taken at once
    order = sorted(defaults, key=lambda k: at_once[digest(files[k])] != "predictions-preds")
    seq = tmp_path / "in-sequence"
    shutil.copytree(published, seq)
    for k in [*order, *won]:
        ran = run_inprocess(seq, *SMALL, *EVALUATE, "eval.systems=[]", *runs[k])
        assert ran.rc == 0, ran.text[-3000:]
    assert _by_digest(_bench(seq)) == at_once
    for name in at_once.values():
        assert tree_bytes(bench / "results" / name) == tree_bytes(_bench(seq) / "results" / name)
    assert (bench / "results" / "leaderboard.md").read_bytes() == \
        (_bench(seq) / "results" / "leaderboard.md").read_bytes()


def test_a_vllm_server_gets_a_logs_questions_with_one_prefix(published: Path) -> None:
    """``vlm=litellm`` pointed at an OpenAI-compatible server (vLLM's, here the loopback
    one): every frame is an ``image_url`` part of base64 JPEG, at most ``vlm.max_images`` a
    request, and a log's questions share their messages up to the question byte for byte —
    what vLLM's automatic prefix caching serves from one prefill."""
    import base64

    model = "openai/Qwen/Qwen2-VL-7B-Instruct"
    with LoopbackLLMServer(lambda body: Reply("[07:00:10 - 07:00:20]")) as srv:
        ran = run_inprocess(published, *SMALL, *EVALUATE, "eval.systems=[end_to_end]",
                            "vlm=litellm", f"vlm.model={model}", f"vlm.api_base={srv.base_url}",
                            "vlm.api_key_env=null", "vlm.max_images=6", "eval.e2e_frames=6",
                            "eval.max_logs=1", "vlm.backoff_s=0.01")
        bodies = [b for b in srv.requests if b.get("messages")]
    assert ran.rc == 0, ran.text[-3000:]
    assert len(bodies) > 3
    for body in bodies:
        images = [p for m in body["messages"] if isinstance(m["content"], list)
                  for p in m["content"] if p["type"] == "image_url"]
        assert 0 < len(images) <= 6
        for part in images:
            head, data = part["image_url"]["url"].split(",", 1)
            assert head == "data:image/jpeg;base64" and base64.b64decode(data)[:2] == b"\xff\xd8"
    prefixes = {json.dumps(b["messages"][:-1], sort_keys=True) + json.dumps(
        b["messages"][-1]["content"][:-1], sort_keys=True) for b in bodies
        if isinstance(b["messages"][-1]["content"], list)}
    assert len(prefixes) == 1, "one prefix for the log's questions"
    assert (_bench(published) / "results" / "end_to_end@openai--Qwen--Qwen2-VL-7B-Instruct"
            / "table.json").is_file()
