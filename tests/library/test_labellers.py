"""Pluggable labellers and consolidators: heuristic, LLM from text, Gemini on the video."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from omegaconf import OmegaConf

from tests.conftest import make_client
from tests.test_config import _compose
from xlebench.errors import ConfigError
from xlebench.library.labellers import (
    Evidence,
    ExtractiveConsolidator,
    GeminiVideoLabeller,
    Labelling,
    LLMConsolidator,
    LLMLabeller,
    label_videos,
)
from xlebench.library.records import ClipSummary
from xlebench.library.sources import Selection, load_ego4d
from xlebench.library.synthetic import SyntheticSpec, generate_corpus
from xlebench.stages.library import make_labelling
from xlebench.testing.loopback import LoopbackLLMServer, Reply

EV = Evidence("vid-1", 600.0, ("Cooking",), ("#C C opens the fridge", "#C C walks down the street"),
              (ClipSummary(0, 300, "C cooks pasta in the kitchen. C talks."),
               ClipSummary(300, 600, "C washes dishes.")))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(SyntheticSpec(seed=2, n_videos=40), root)
    return root


def test_llm_labels_and_summaries_are_cached_per_video(corpus, server, scripted,
                                                       tmp_path) -> None:
    client = make_client(server, tmp_path)
    how = Labelling(LLMLabeller(client, "library/label.v1", 2),
                    LLMConsolidator(client, "library/consolidate.v1", 2), workers=4)
    videos = load_ego4d(corpus, Selection(), how).videos
    assert videos and scripted.by_task == {"label": len(videos), "consolidate": len(videos)}
    assert {v.scene for v in videos} <= {"indoor", "outdoor", "mixed"}
    assert all(v.summary.startswith("C ") for v in videos)
    again = load_ego4d(corpus, Selection(), how).videos
    assert again == videos and server.request_count == 2 * len(videos)
    assert how.labeller.usage.requests == 2 * len(videos)  # counts cached answers too


def test_invalid_summary_is_corrected_by_the_model(tmp_path) -> None:
    answers = iter(['{"summary": "The person cooks."}', '{"summary": "C cooks pasta."}'])
    with LoopbackLLMServer(lambda body: Reply(next(answers))) as srv:
        con = LLMConsolidator(make_client(srv, tmp_path), "library/consolidate.v1", 2)
        assert con.consolidate(EV) == "C cooks pasta."
        feedback = srv.requests[1]["messages"][-1]["content"]
    assert 'must start with "C "' in feedback and "not accepted" in feedback


class FakeGenai:
    """Stands in for google-genai's client: files.upload/get/delete, models.generate_content."""

    def __init__(self, answer: str, states=("PROCESSING", "ACTIVE")) -> None:
        self.calls: list[str] = []
        self.states = list(states)
        self.answer = answer
        self.files = SimpleNamespace(upload=self._upload, get=self._get, delete=self._delete)
        self.models = SimpleNamespace(generate_content=self._generate)

    def _file(self):
        return SimpleNamespace(name="files/1", state=SimpleNamespace(name=self.states.pop(0)))

    def _upload(self, file):
        self.calls.append(f"upload {Path(file).name}")
        return self._file()

    def _get(self, name):
        self.calls.append("get")
        return self._file()

    def _delete(self, name):
        self.calls.append("delete")

    def _generate(self, model, contents):
        self.calls.append(f"generate {model}")
        return SimpleNamespace(text=self.answer)


def test_gemini_video_labeller(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TEST_GEMINI_KEY", "k")
    fake = FakeGenai('```json\n{"time_period": "twilight", "scene": "outdoor"}\n```')
    video = tmp_path / "vid-1.mp4"
    video.write_bytes(b"not really a video")
    lab = GeminiVideoLabeller(model="gemini-1.5-pro", media=lambda ev: video,
                              cache_dir=tmp_path / "labels", api_key_env="TEST_GEMINI_KEY",
                              client_factory=lambda key: fake, poll_s=0)
    assert lab.label(EV) == ("twilight", "outdoor")
    assert fake.calls == ["upload vid-1.mp4", "get", "generate gemini-1.5-pro", "delete"]
    assert lab.label(EV) == ("twilight", "outdoor") and len(fake.calls) == 4, "cached per video"
    cached = json.loads(next((tmp_path / "labels").rglob("vid-1.json")).read_text())
    assert cached["answer"] == {"time_period": "twilight", "scene": "outdoor"}


def test_gemini_without_key_or_with_failed_processing(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("TEST_GEMINI_KEY", raising=False)
    lab = GeminiVideoLabeller(model="m", media=lambda ev: tmp_path, cache_dir=tmp_path,
                              api_key_env="TEST_GEMINI_KEY",
                              client_factory=lambda key: FakeGenai("{}"))
    with pytest.raises(ConfigError, match="TEST_GEMINI_KEY"):
        lab.label(EV)
    monkeypatch.setenv("TEST_GEMINI_KEY", "k")
    lab.client_factory = lambda key: FakeGenai("{}", states=("FAILED",))
    with pytest.raises(RuntimeError, match="could not process"):
        lab.label(EV)


def test_label_videos_keeps_order_with_threads() -> None:
    class Slowish:
        def label(self, ev):
            return ev.video_uid, "indoor"

    evs = [Evidence(f"v{i}", 1.0, (), (), ()) for i in range(50)]
    out = label_videos(evs, Labelling(Slowish(), ExtractiveConsolidator(), workers=8))
    assert [o[0] for o in out] == [f"v{i}" for i in range(50)]


@pytest.mark.parametrize("overrides, message", [
    (["library.labeller=llm"], "needs a language model"),
    (["library.consolidator=llm"], "needs a language model"),
    (["library.labeller=vision"], "choose one of"),
    (["library.consolidator=abstractive"], "choose one of"),
])
def test_labelling_config_errors(overrides, message) -> None:
    cfg = _compose(overrides)
    with pytest.raises(ConfigError, match=message):
        make_labelling(cfg, OmegaConf.to_container(cfg.library, resolve=True))


def test_default_labelling_leaves_the_fingerprint_alone() -> None:
    cfg = _compose([])
    how, prompts, fp = make_labelling(cfg, OmegaConf.to_container(cfg.library, resolve=True))
    assert how is not None and prompts == [] and fp is None
