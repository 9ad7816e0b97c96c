"""``end_to_end_neptune``: Neptune's GPT-4o evaluation prompts (with and without transcript,
multiple choice and open-ended), its ``[CHOICE]: [REASON]`` replies read back, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_inprocess
from xlebench.config.backends import VLM_BACKENDS, VLMBackend, register_vlm_backend
from xlebench.eval.parse import parse_choice
from xlebench.systems.baselines.neptune_prompts import log_transcript, split_choices
from xlebench.vlm.cached import CachedVLM

COMPILE = ("stages=[library,persona,plan,simulate,annotate]", "library.n_videos=60",
           "matcher/embedder=hashing", "persona.locations=[Japan]", "persona.mbti=[INTJ,ENFP]",
           "eval.bertscore=false", "eval.bootstrap=10", "render=none", "progress=false",
           "tasks=[neptune_mcq,single_summary]")
EVALUATE = ("stages=[evaluate]", "eval.e2e_frames=4", "eval.systems=[end_to_end_neptune]",
            "vlm.backend=neptune_recorder", "progress=false")


class Recorder(CachedVLM):
    """Every request kept; multiple choice answered in Neptune's form, naming option B."""

    asked: list[list[dict]] = []

    def _generate(self, batch: list[list[dict]]) -> list[str]:
        Recorder.asked += batch
        return ["B: C does that because the frames show it." if "[CHOICE]" in _text(m)
                else "C cooked and ate." for m in batch]


def _text(messages: list[dict]) -> str:
    parts = [p for m in messages for p in (m["content"] if isinstance(m["content"], list)
                                           else [m["content"]])]
    return "\n".join(p if isinstance(p, str) else p.get("text", "") if isinstance(p, dict)
                     else "" for p in parts)  # frames say nothing here


@pytest.fixture
def recorder():
    register_vlm_backend(VLMBackend("neptune_recorder", f"{__name__}:Recorder",
                                    in_process=True))
    Recorder.asked = []
    yield Recorder
    VLM_BACKENDS.pop("neptune_recorder")


def test_choices_are_read_from_the_query_as_printed() -> None:
    query = "What does C do first? Option 0: cuts Option 1: washes Option 2: fries"
    assert split_choices(query) == ("What does C do first?",
                                    "Option 0: cuts Option 1: washes Option 2: fries")
    assert split_choices("Summarize the record provided for 07:00 - 07:30.") is None


def test_the_choice_leading_the_reason_is_the_pick() -> None:
    opts = ["C cuts", "C washes", "C fries", "C eats", "C reads"]
    assert parse_choice("B: C washes, not C fries as Option 2 says", opts) == 1
    assert parse_choice("Option 3: C eats.", opts) == 3
    assert parse_choice("C washes the cup", opts) == 1  # no leading choice: the text


def test_the_transcript_is_the_logs_speech_on_the_clock() -> None:
    log = {"segments": [{"video_uid": "a", "start_s": 3600.0, "source_start_s": 100.0,
                         "source_end_s": 200.0},
                        {"video_uid": "b", "start_s": 7200.0, "source_start_s": 0.0,
                         "source_end_s": 60.0}]}
    said = {"a": [{"start_s": 50, "end_s": 55, "text": "not played"},
                  {"start_s": 130, "end_s": 133, "text": "pass the salt"}],
            "b": [{"start_s": 10, "end_s": 12, "text": "good night"}]}
    assert log_transcript(log, said).splitlines() == ["[01:00:30] pass the salt",
                                                      "[02:00:10] good night"]
    assert log_transcript(log, {}) == "(no speech)"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """One benchmark with both views, compiled once; each case below evaluates it."""
    out = tmp_path_factory.mktemp("neptune-prompts")
    ran = run_inprocess(out, *COMPILE)
    assert ran.rc == 0, ran.text[-3000:]
    return out


@pytest.mark.slow  # a compile, two evaluations through the CLI (25 s): the slow tier CI runs
@pytest.mark.parametrize("with_speech", [False, True])
def test_neptunes_prompts_through_the_cli(recorder, compiled: Path, tmp_path: Path,
                                          with_speech: bool) -> None:
    args = [*EVALUATE, "benchmark=demo"]
    if with_speech:
        speech = tmp_path / "speech.json"
        speech.write_text(json.dumps({}))
        args.append(f"eval.transcripts={speech}")
    ran = run_inprocess(compiled, *args)
    assert ran.rc == 0, ran.text[-3000:]
    texts = [_text(m) for m in recorder.asked]
    mcq = [t for t in texts if "Output Format: [CHOICE]: [REASON]" in t]
    open_ended = [t for t in texts if "Output Format" not in t]
    assert mcq and open_ended
    assert all("Choices: Option 0:" in t and "Option 0:" not in t.split("Choices:")[0]
               for t in mcq), "the question and its choices in their own slots"
    assert all(("Video Transcript: (no speech)" in t) == with_speech for t in texts)
    assert all(t.startswith("Task: neptune_") for t in texts)
    results = compiled / "benchmarks" / "demo" / "results"
    scores = next(results.glob("end_to_end_neptune@*/scores.jsonl"))
    rows = [json.loads(x) for x in scores.read_text().splitlines()]
    picks = {r["details"].get("picked") for r in rows if r["subtask"] == "neptune_mcq"}
    assert picks == {1}, "every [CHOICE]: [REASON] reply read as its choice"
