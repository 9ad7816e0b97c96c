"""The bad-input corpus: every loader, every way a real file goes wrong, through the real CLI.

Each case starts from a benchmark published from good input under the same name and
configuration, breaks one thing, reruns, and asserts: exit status 2, one error line naming
what is wrong (the file and JSON path, or the key), no traceback, and the published benchmark
byte for byte as it was.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import run_inprocess, tree_digest
from xlebench.library.synthetic import SyntheticSpec, generate_corpus

Mutate = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    mutate: Mutate | None
    needle: str
    override: tuple[str, ...] = ()


# -- editing helpers ---------------------------------------------------------------------------

def _json(rel: str, edit: Callable[[object], object]) -> Mutate:
    def apply(root: Path) -> None:
        path = root / rel
        path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    return apply


def _raw(rel: str, edit: Callable[[str], str]) -> Mutate:
    def apply(root: Path) -> None:
        path = root / rel
        path.write_text(edit(path.read_text()))
    return apply


def _nonfinite(rel: str, key: str, token: str) -> Mutate:
    """Replace the first number of ``key`` with a bare ``Infinity`` / ``NaN`` token, which
    Python's json module (and many writers) accept."""
    def apply(root: Path) -> None:
        path = root / rel
        text, n = re.subn(rf'("{key}"\s*:\s*)-?[0-9.eE+-]+', rf"\g<1>{token}",
                          path.read_text(), count=1)
        assert n == 1, f"no {key} in {rel}"
        path.write_text(text)
    return apply


def _bytes(rel: str, data: bytes) -> Mutate:
    def apply(root: Path) -> None:
        (root / rel).write_bytes(data)
    return apply


def _remove(rel: str) -> Mutate:
    def apply(root: Path) -> None:
        (root / rel).unlink()
    return apply


def _row(i: int, **changes: object) -> Callable[[list], list]:
    def edit(rows: list) -> list:
        rows[i] = {**rows[i], **changes}
        for k, v in changes.items():
            if v is _DROP:
                del rows[i][k]
        return rows
    return edit


_DROP = object()


def _first_video(**changes: object) -> Callable[[dict], dict]:
    def edit(data: dict) -> dict:
        data["videos"][0] = {**data["videos"][0], **changes}
        for k, v in changes.items():
            if v is _DROP:
                del data["videos"][0][k]
        return data
    return edit


def _first_narration(edit_pass: Callable[[dict], None]) -> Callable[[dict], dict]:
    def edit(data: dict) -> dict:
        edit_pass(data[next(iter(data))]["narration_pass_1"])
        return data
    return edit


def _set(path: list, value: object) -> Callable[[dict], None]:
    def edit(node: dict) -> None:
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


REL = "video_info.json"
META = "ego4d/ego4d.json"
NARR = "ego4d/v2/annotations/narration.json"
NLQ = "ego4d/v2/annotations/nlq_train.json"
MOM = "ego4d/v2/annotations/moments_train.json"
PER = "personas/a.yaml"
PRED = "preds.jsonl"

CASES = [
    # -- the authors' library file (video_info.json) --------------------------------------------
    Case("release", "not JSON", _bytes(REL, b"<html>404</html>"), "expected valid JSON"),
    Case("release", "truncated", _raw(REL, lambda t: t[: len(t) // 2]), "may be truncated"),
    Case("release", "empty file", _bytes(REL, b""), "expected valid JSON"),
    Case("release", "object not list", _json(REL, lambda rows: {"videos": rows}),
         "expected a JSON list"),
    Case("release", "row is a string", _json(REL, lambda rows: ["v1", *rows[1:]]), "$[0]"),
    Case("release", "uid missing", _json(REL, _row(0, video_uid=_DROP)), "$[0].video_uid"),
    Case("release", "nested 100 000 deep", _bytes(REL, b"[" * 100_000 + b"]" * 100_000),
         "nest too deeply"),
    Case("release", "a folder", lambda root: ((root / REL).unlink(), (root / REL).mkdir()),
         "is a folder, not a JSON file"),
    Case("personas", "not UTF-8", _bytes(PER, b"location: Jap\xffan\nmbti: INTJ\n"),
         "expected UTF-8 text"),
    Case("release", "uid ..", _json(REL, _row(0, video_uid="../../etc")), "plain identifier"),
    Case("release", "uid slash", _json(REL, _row(1, video_uid="a/b")), "$[1].video_uid"),
    Case("release", "uid shell", _json(REL, _row(2, video_uid="x;rm -rf ~")), "plain identif"),
    Case("release", "uid empty", _json(REL, _row(0, video_uid="")), "$[0].video_uid"),
    Case("release", "uid number", _json(REL, _row(0, video_uid=123)), "$[0].video_uid"),
    Case("release", "duration negative", _json(REL, _row(0, video_duration=-5)),
         "$[0].video_duration"),
    Case("release", "duration zero", _json(REL, _row(0, video_duration=0)), "greater than 0"),
    Case("release", "duration text", _json(REL, _row(0, video_duration="long")),
         "$[0].video_duration"),
    Case("release", "duration Infinity", _nonfinite(REL, "video_duration", "Infinity"),
         "finite number"),
    Case("release", "duration NaN", _nonfinite(REL, "video_duration", "NaN"), "finite number"),
    Case("release", "duration 1e12", _json(REL, _row(3, video_duration=1e12)),
         "$[3].video_duration"),
    Case("release", "duration null", _json(REL, _row(0, video_duration=None)),
         "$[0].video_duration"),
    Case("release", "country empty", _json(REL, _row(0, video_source="")), "$[0].video_source"),
    Case("release", "scenarios a string", _json(REL, _row(0, video_scenarios="Cooking")),
         "$[0].video_scenarios"),
    Case("release", "scenarios empty", _json(REL, _row(0, video_scenarios=[])),
         "$[0].video_scenarios"),
    Case("release", "time period", _json(REL, _row(0, time_period="noon")), "$[0].time_period"),
    Case("release", "scene", _json(REL, _row(0, main_scene="underwater")), "$[0].main_scene"),
    Case("release", "summary missing", _json(REL, _row(0, consolidated_summary=_DROP)),
         "$[0].consolidated_summary"),
    Case("release", "summary blank", _json(REL, _row(0, consolidated_summary="   ")),
         "$[0].consolidated_summary"),
    Case("release", "not UTF-8", _bytes(REL, '[{"video_uid": "é"}]'.encode("latin-1")),
         "UTF-8"),
    Case("release", "file gone", _remove(REL), "file not found"),
    # -- a local Ego4D download -------------------------------------------------------------------
    Case("ego4d", "metadata gone", _remove(META), "ego4d.json: not found"),
    Case("ego4d", "metadata not JSON", _bytes(META, b"{oops"), "expected valid JSON"),
    Case("ego4d", "metadata truncated", _raw(META, lambda t: t[:1000]), "may be truncated"),
    Case("ego4d", "videos not a list", _json(META, lambda d: {**d, "videos": {}}),
         "$.videos"),
    Case("ego4d", "duration Infinity", _nonfinite(META, "duration_sec", "Infinity"),
         "finite number"),
    Case("ego4d", "duration NaN", _nonfinite(META, "duration_sec", "NaN"), "finite number"),
    Case("ego4d", "duration negative", _json(META, _first_video(duration_sec=-4)),
         "$.videos[0].duration_sec"),
    Case("ego4d", "duration 1e12", _json(META, _first_video(duration_sec=1e12)),
         "$.videos[0].duration_sec"),
    Case("ego4d", "uid ..", _json(META, _first_video(video_uid="../x")), "plain identifier"),
    Case("ego4d", "uid with spaces", _json(META, _first_video(video_uid="a b")),
         "$.videos[0].video_uid"),
    Case("ego4d", "uid missing", _json(META, _first_video(video_uid=_DROP)),
         "$.videos[0].video_uid"),
    Case("ego4d", "scenarios a string", _json(META, _first_video(scenarios="Cooking")),
         "$.videos[0].scenarios"),
    Case("ego4d", "narration not JSON", _bytes(NARR, b"\x00\x01"), "narration.json"),
    Case("ego4d", "narration a list", _json(NARR, lambda d: list(d)), "keyed by video_uid"),
    Case("ego4d", "narration entry a string",
         _json(NARR, lambda d: {**d, next(iter(d)): "done"}), "an object per video"),
    Case("ego4d", "narration key unsafe", _json(NARR, lambda d: {**d, "../../x": {}}),
         "plain identifier"),
    Case("ego4d", "narration time text",
         _json(NARR, _first_narration(_set(["narrations", 0, "timestamp_sec"], "abc"))),
         "timestamp_sec"),
    Case("ego4d", "narration time Infinity", _nonfinite(NARR, "timestamp_sec", "Infinity"),
         "finite number"),
    Case("ego4d", "narration time negative",
         _json(NARR, _first_narration(_set(["narrations", 0, "timestamp_sec"], -3))),
         "timestamp_sec"),
    Case("ego4d", "summary start NaN", _nonfinite(NARR, "start_sec", "NaN"), "finite number"),
    Case("ego4d", "narrations not a list",
         _json(NARR, _first_narration(_set(["narrations"], "many"))), "narrations"),
    Case("ego4d", "nlq not JSON", _bytes(NLQ, b"[1, 2"), "nlq_train.json"),
    Case("ego4d", "nlq videos not a list", _json(NLQ, lambda d: {**d, "videos": 3}),
         "$.videos"),
    Case("ego4d", "nlq uid unsafe",
         _json(NLQ, lambda d: {**d, "videos": [{"video_uid": "x|y"}]}), "plain identifier"),
    Case("ego4d", "nlq clips a string",
         _json(NLQ, lambda d: {**d, "videos": [{**d["videos"][0], "clips": "abc"}]}),
         "$.videos[0].clips: expected a list of objects"),
    Case("ego4d", "nlq clip a number",
         _json(NLQ, lambda d: {**d, "videos": [{**d["videos"][0], "clips": [1]}]}),
         "$.videos[0].clips[0]: expected an object"),
    Case("ego4d", "moments annotations a string",
         _json(MOM, lambda d: {**d, "videos": [{**d["videos"][0], "clips": [
             {**d["videos"][0]["clips"][0], "annotations": "x"}]}]}),
         "$.videos[0].clips[0].annotations: expected a list"),
    Case("ego4d", "moments truncated", _raw(MOM, lambda t: t[:200]), "moments_train.json"),
    Case("ego4d", "moments videos missing", _json(MOM, lambda d: {"version": 1}), "$.videos"),
    Case("ego4d", "root gone", lambda root: shutil.rmtree(root / "ego4d"),
         "expected a folder holding an Ego4D download"),
    # -- persona files -----------------------------------------------------------------------------
    Case("personas", "invalid YAML", _bytes(PER, b"location: [Japan\nmbti: INTJ"),
         "a.yaml: line 2, column 5: expected valid YAML (while parsing a flow sequence; "
         "expected ',' or ']', but got ':')"),
    Case("personas", "a python tag", _bytes(
        PER, b"location: !!python/object/apply:os.system [echo]\nmbti: INTJ\n"),
         "a.yaml: line 1, column 11: expected valid YAML (could not determine a constructor"),
    Case("personas", "a list", _bytes(PER, b"- Japan\n- INTJ\n"), "a.yaml: $: expected a mapping"),
    Case("personas", "location missing", _bytes(PER, b"mbti: INTJ\n"), "$.location"),
    Case("personas", "location unknown", _bytes(PER, b"location: Atlantis\nmbti: INTJ\n"),
         "not a known location"),
    Case("personas", "location typo", _bytes(PER, b"location: Japn\nmbti: INTJ\n"),
         "did you mean Japan"),
    Case("personas", "mbti", _bytes(PER, b"location: Japan\nmbti: XXXX\n"), "$.mbti"),
    Case("personas", "unknown key",
         _bytes(PER, b"location: Japan\nmbti: INTJ\nfavourite_colour: red\n"),
         "$.favourite_colour"),
    Case("personas", "age", _bytes(PER, b"location: Japan\nmbti: INTJ\nage: -3\n"), "$.age"),
    Case("personas", "routine time",
         _bytes(PER, b"location: Japan\nmbti: INTJ\ndaily_routine:\n"
                     b"  - {time: '25:00', activity: wake}\n"),
         "$.daily_routine[0].time"),
    Case("personas", "routine activity missing",
         _bytes(PER, b"location: Japan\nmbti: INTJ\ndaily_routine:\n  - {time: '07:00'}\n"),
         "$.daily_routine[0].activity"),
    Case("personas", "hobbies a number",
         _bytes(PER, b"location: Japan\nmbti: INTJ\nhobbies: 3\n"), "$.hobbies"),
    Case("personas", "no files", lambda root: (root / PER).unlink(), "no files match"),
    # -- predictions files ---------------------------------------------------------------------------
    Case("predictions", "not JSON", _bytes(PRED, b"{oops\n"), "line 1"),
    Case("predictions", "no response", _bytes(PRED, b'{"item_id": "x"}\n'), "line 1"),
    Case("predictions", "response a list",
         _bytes(PRED, b'{"item_id": "x", "response": [1]}\n'), "line 1"),
    Case("predictions", "duplicate id",
         _raw(PRED, lambda t: t + t.splitlines()[0] + "\n"), "already predicted on line 1"),
    Case("predictions", "empty", _bytes(PRED, b"\n\n"), "found none"),
    Case("predictions", "unknown ids",
         _bytes(PRED, b'{"item_id": "someone-else-001", "response": "[00:00:01 - 00:00:02]"}\n'),
         "not items of this benchmark"),
    Case("predictions", "file gone", _remove(PRED), "file not found"),
    Case("predictions", "not UTF-8", _bytes(PRED, b'{"item_id": "\xff"}\n'), "UTF-8"),
    # -- configuration values ---------------------------------------------------------------------
    Case("config", "workers -1", None, "workers=-1", ("workers=-1",)),
    Case("config", "key typo", None, "did you mean library.n_videos?",
         ("library.n_vidoes=5",)),
    Case("config", "option typo", None, "library=synthtic: no such option; did you mean "
         "synthetic?", ("library=synthtic",)),
    Case("config", "recipe typo", None, "did you mean object_retrieval?",
         ("tasks=[object_retrievl]",)),
    Case("config", "value type", None, "library.n_videos=abc: Value 'abc'",
         ("library.n_videos=abc",)),
    Case("config", "max_logs -1", None, "render.max_logs=-1", ("render.max_logs=-1",)),
    Case("config", "location unknown", None, "'Atlantis': not a known location",
         ("persona.locations=[Atlantis]",)),
    Case("config", "location typo", None, "did you mean Japan", ("persona.locations=[Japn]",)),
    Case("config", "mbti", None, "persona.mbti[0]='XXXX'", ("persona.mbti=[XXXX]",)),
    Case("config", "n_chunks above min_chunks", None, "simulation.days=2",
         ("simulation.n_chunks=27",)),
    Case("config", "n_videos 0", None, "library.n_videos=0", ("library.n_videos=0",)),
    Case("config", "top_k 0", None, "matcher.top_k_sample=0", ("matcher.top_k_sample=0",)),
    Case("config", "tiou 1.5", None, "eval.tious[0]=1.5", ("eval.tious=[1.5]",)),
    Case("config", "temperature", None, "llm.temperature=-1", ("llm.temperature=-1",)),
    Case("config", "export format", None, "export.formats[0]='csv'", ("export.formats=[csv]",)),
    Case("config", "lmms_eval without hf", None, "lmms_eval reads the hf export",
         ("stages=[export]", "export.formats=[lmms_eval]")),
    Case("config", "gap order", None, "planner.gap_max_s=10", ("planner.gap_max_s=10",)),
    Case("config", "crf", None, "render.crf=99", ("render.crf=99",)),
    Case("config", "quirk rate", None, "library.quirk_rate=2", ("library.quirk_rate=2",)),
    Case("config", "counting bounds", None, "tasks.action_counting.min_actions=9",
         ("tasks.action_counting.min_actions=9",)),
    Case("config", "render kind", None, "render.kind='gif'", ("render.kind=gif",)),
    Case("config", "filter number", None, "filters[0].min_s=-5: expected a number from 0",
         ("tasks.object_retrieval.filters=[{kind: certificate, min_s: -5}]",)),
    Case("config", "compatibility value", None, "matcher.compatible.time: 'day' is not",
         ("matcher.compatible.time.daytime=[day]",)),
    Case("config", "compatibility row", None, "matcher.compatible.scene has no row for mixed",
         ("~matcher.compatible.scene.mixed",)),
    Case("config", "filter seeds", None, "filters[0].seeds=0.5: expected an integer",
         ("tasks.object_retrieval.filters=[{kind: blind, seeds: 0.5, "
          "drop_if_correct_at_least: 1}]",)),
]


def test_the_corpus_is_large_and_covers_every_loader() -> None:
    assert len(CASES) >= 60
    assert {c.family for c in CASES} == {"release", "ego4d", "personas", "predictions",
                                         "config"}


# -- the published benchmarks each family breaks ------------------------------------------------

SMALL = ("library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
         "persona.mbti=[INTJ,ENFP]", "eval.bertscore=false", "eval.bootstrap=10")


def _family_args(family: str, inputs: Path) -> tuple[str, ...]:
    return {
        "release": ("name=release", "library=xlebench_release", f"library.path={inputs / REL}",
                    "matcher/embedder=hashing", "stages=[library]"),
        "ego4d": ("name=ego4d", "library=ego4d", f"library.root={inputs / 'ego4d'}",
                  "matcher/embedder=hashing", "stages=[library]"),
        "personas": ("name=personas", "persona=files", f"persona.dir={inputs / 'personas'}",
                     "stages=[persona]"),
        "predictions": ("name=small", *SMALL, "stages=[evaluate]", "eval.systems=[]",
                        f"eval.predictions={inputs / PRED}"),
        "config": ("name=small", *SMALL, "stages=[annotate]"),
    }[family]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad-inputs")
    pristine = base / "pristine"
    generate_corpus(SyntheticSpec(n_videos=40), pristine / "ego4d")
    rows = json.loads((pristine / "ego4d" / "video_info.json").read_text())[:40]
    (pristine / REL).write_text(json.dumps(rows, indent=1))
    (pristine / "personas").mkdir()
    (pristine / PER).write_text("location: Japan\nmbti: INTJ\nname: Aoi\n")
    return base


@pytest.fixture(scope="module")
def published(world):
    """Publish one benchmark per family from good input; the digests to compare against."""
    inputs, out = world / "inputs", world / "out"
    shutil.copytree(world / "pristine", inputs)
    assert run_inprocess(out, "name=small", *SMALL, "stages=[annotate]").rc == 0
    items = sorted((out / "benchmarks" / "small" / "annotations").glob("*.jsonl"))
    first = json.loads(items[0].read_text().splitlines()[0])["item_id"]
    (inputs / PRED).write_text(json.dumps({"item_id": first, "response": "no idea"}) + "\n")
    (world / "pristine" / PRED).write_text((inputs / PRED).read_text())
    digests = {}
    for family in ("release", "ego4d", "personas"):
        ran = run_inprocess(out, *_family_args(family, inputs))
        assert ran.rc == 0, ran.text[-2000:]
    for name in ("release", "ego4d", "personas", "small"):
        digests[name] = tree_digest(out / "benchmarks" / name)
    return digests


@pytest.mark.parametrize("case", CASES, ids=[f"{c.family}-{c.name}" for c in CASES])
def test_bad_input_is_one_clear_line_and_changes_nothing(case, world, published):
    inputs, out = world / "inputs", world / "out"
    shutil.rmtree(inputs)
    shutil.copytree(world / "pristine", inputs)
    if case.mutate is not None:
        case.mutate(inputs)
    ran = run_inprocess(out, *_family_args(case.family, inputs), *case.override)
    assert ran.rc == 2, ran.text[-3000:]
    assert "Traceback" not in ran.text
    lines = ran.text.splitlines()
    errors = [k for k, line in enumerate(lines) if line.startswith("error:")]
    assert len(errors) == 1, ran.text[-3000:]
    assert case.needle in lines[errors[0]], lines[errors[0]]
    after = lines[errors[0] + 1:errors[0] + 2]  # one line: no excerpt or caret under it
    assert not after or not after[0].startswith((" ", "\t", "^")), ran.text[-3000:]
    name = {"predictions": "small", "config": "small"}.get(case.family, case.family)
    assert tree_digest(out / "benchmarks" / name) == published[name], "the benchmark changed"
    assert not list((out / "benchmarks").glob(".*staging*")), "a staging folder was left"


def test_an_output_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    ran = run_inprocess(blocker / "outputs", "stages=[persona]")
    assert ran.rc == 2 and "Traceback" not in ran.text
    errors = [line for line in ran.text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "cannot write" in errors[0] and "paths.outputs" in errors[0]


def test_a_full_disk_is_one_line_and_keeps_the_benchmark(tmp_path: Path) -> None:
    """A file-size limit stands in for a full disk: every write past it fails (EFBIG)."""
    import resource
    import signal

    from tests.conftest import run_cli

    args = [*SMALL, "stages=[library]"]
    run_cli(tmp_path, *args)
    before = tree_digest(tmp_path / "benchmarks" / "demo")

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    import subprocess
    import sys

    from tests.conftest import ROOT, cli_env

    proc = subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={tmp_path}",
                           "progress=false", *args, "force=[library]"], cwd=ROOT,
                          env=cli_env(), capture_output=True, text=True, timeout=300,
                          preexec_fn=limit)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    assert "cannot write" in proc.stderr and "File too large" in proc.stderr
    assert tree_digest(tmp_path / "benchmarks" / "demo") == before


def test_sqlite_full_disk_is_a_storage_error() -> None:
    import sqlite3

    from xlebench.errors import StorageError, storage_error

    err = storage_error(sqlite3.OperationalError("database or disk is full"))
    assert isinstance(err, StorageError) and "free space" in str(err)
    assert storage_error(sqlite3.OperationalError("no such table: x")) is None


@pytest.mark.slow  # a CLI compile interrupted at a timed point (18 s): the slow tier CI runs
def test_ctrl_c_is_one_line_and_keeps_the_benchmark(tmp_path: Path) -> None:
    """SIGINT while a run holds (evaluate's export): exit 130, no traceback, nothing lost."""
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT, cli_env, run_cli

    args = [*SMALL, "render=none", "progress=false"]
    run_cli(tmp_path, *args)
    before = tree_digest(tmp_path / "benchmarks" / "demo")
    hold = tmp_path / "hold"
    hold.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xlebench", f"paths.outputs={tmp_path}", *args,
         "stages=[evaluate]", "eval.systems=[oracle_annotations]"], cwd=ROOT,
        env=cli_env(XLEBENCH_HOLD_AT=f"evaluate:export:{hold}"), stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal sends it: to a process whose SIGINT is the default, whatever
        # the test runner's worker inherited
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 180
    while not (hold / "reached").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=90)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("no exit 90 s after SIGINT: "
                             + proc.communicate()[1][-3000:]) from None
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "interrupted" in err
    assert tree_digest(tmp_path / "benchmarks" / "demo") == before
    assert not list((tmp_path / "benchmarks").glob(".*staging*"))


def test_a_required_path_left_unset_is_named(tmp_path: Path) -> None:
    for group, key in (("ego4d", "library.root"), ("xlebench_release", "library.path")):
        ran = run_inprocess(tmp_path, f"library={group}", "stages=[library]")
        assert ran.rc == 2 and "Traceback" not in ran.text and "???" not in ran.text
        assert f"{key} is required here" in ran.text
