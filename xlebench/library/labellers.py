"""Pluggable per-video labels: time of day + main scene (labellers) and the one-sentence
summary (consolidators).

* ``heuristic`` / ``extractive`` — deterministic and offline (see `labelling`); the defaults.
* ``llm`` — any litellm model reads the scenarios, clip summaries and a sample of narrations
  (versioned prompts ``library/label.v1`` and ``library/consolidate.v1``; answers validated,
  cached per request, so per video).
* ``gemini_video`` — Gemini looks at the video itself, as the paper did (optional extra
  ``xlebench[gemini]``, package ``google-genai``); its answers are cached per video too.

Labelling many videos with a model is network-bound: `label_videos` runs it in threads.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from xlebench.errors import ConfigError
from xlebench.library.labelling import consolidate_extractive, label_scene, label_time
from xlebench.library.records import ClipSummary
from xlebench.llm.client import LLMClient, Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json, extract_json
from xlebench.runner.atomic import dumps, write_text

MAX_NARRATIONS = 60
MAX_SUMMARIES = 24


@dataclass(frozen=True)
class Evidence:
    """What a labeller may look at for one video."""

    video_uid: str
    duration_s: float
    scenarios: tuple[str, ...]
    narrations: tuple[str, ...]
    summaries: tuple[ClipSummary, ...]


class Labeller(Protocol):
    def label(self, ev: Evidence) -> tuple[str, str]:
        """(time_period, scene)."""
        ...


class Consolidator(Protocol):
    def consolidate(self, ev: Evidence) -> str:
        ...


class HeuristicLabeller:
    def label(self, ev: Evidence) -> tuple[str, str]:
        return label_time(ev.scenarios, ev.narrations), label_scene(ev.scenarios, ev.narrations)


class ExtractiveConsolidator:
    def consolidate(self, ev: Evidence) -> str:
        return consolidate_extractive(ev.summaries)


# -- LLM from text ---------------------------------------------------------------------------

class LabelAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    time_period: Literal["daytime", "nighttime", "twilight", "uncertain"]
    scene: Literal["indoor", "outdoor", "mixed"]


class SummaryAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    summary: str = Field(min_length=3)

    @field_validator("summary")
    @classmethod
    def _one_sentence(cls, v: str) -> str:
        if not v.startswith("C "):
            raise ValueError('the summary must start with "C " (the camera wearer)')
        if len(v.split()) > 45:
            raise ValueError(f"the summary has {len(v.split())} words; at most 35 are wanted")
        return v


def _sample(items: Sequence[str], k: int) -> list[str]:
    """Up to k items spread evenly over the video (not just its beginning)."""
    if len(items) <= k:
        return list(items)
    step = len(items) / k
    return [items[int(i * step)] for i in range(k)]


def _brief(ev: Evidence, narrations: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "video_uid": ev.video_uid, "duration_minutes": round(ev.duration_s / 60, 1),
        "scenarios": list(ev.scenarios),
        "clip_summaries": [{"start_min": round(s.start_s / 60, 1), "text": s.text}
                           for s in ev.summaries[:MAX_SUMMARIES]],
    }
    if narrations:
        out["narrations_sample"] = _sample(ev.narrations, MAX_NARRATIONS)
    return out


class _LLMText:
    def __init__(self, client: LLMClient, prompt: str, max_retries: int) -> None:
        self.client, self.prompt, self.max_retries = client, prompt, max_retries
        self.usage = Usage()

    def _ask(self, ev: Evidence, parse, narrations: bool):
        messages = load_prompt(self.prompt).render(input=_brief(ev, narrations))
        return ask_json(self.client, messages, parse, max_retries=self.max_retries,
                        usage=self.usage, what=f"{self.prompt} for video {ev.video_uid}")


class LLMLabeller(_LLMText):
    def label(self, ev: Evidence) -> tuple[str, str]:
        a = self._ask(ev, LabelAnswer.model_validate, narrations=True)
        return a.time_period, a.scene


class LLMConsolidator(_LLMText):
    def consolidate(self, ev: Evidence) -> str:
        return self._ask(ev, SummaryAnswer.model_validate, narrations=False).summary


# -- Gemini looking at the video ---------------------------------------------------------------

GEMINI_PROMPT = (
    "This is an egocentric video recorded by a head-mounted camera. Answer with JSON only: "
    '{"time_period": "daytime" | "nighttime" | "twilight" | "uncertain", '
    '"scene": "indoor" | "outdoor" | "mixed"}. Use "uncertain" when you cannot tell.'
)


class GeminiVideoLabeller:
    """Uploads the video with google-genai, asks for the labels, caches the answer per video.

    `client_factory` builds the google-genai client (tests pass a stand-in); the API key comes
    from the environment variable `api_key_env` and is never stored.
    """

    def __init__(self, *, model: str, media: Callable[[Evidence], Path], cache_dir: Path,
                 api_key_env: str = "GEMINI_API_KEY",
                 client_factory: Callable[[str], Any] | None = None,
                 poll_s: float = 2.0, max_wait_s: float = 600.0) -> None:
        self.model, self.media, self.api_key_env = model, media, api_key_env
        self.cache_dir = Path(cache_dir) / re.sub(r"[^A-Za-z0-9_.-]+", "_", model)
        self.client_factory = client_factory or _genai_client
        self.poll_s, self.max_wait_s = poll_s, max_wait_s
        self._client = None

    def _cached(self, uid: str) -> Path:
        return self.cache_dir / f"{uid}.json"

    def label(self, ev: Evidence) -> tuple[str, str]:
        path = self._cached(ev.video_uid)
        if path.is_file():
            a = LabelAnswer.model_validate(json.loads(path.read_text("utf-8"))["answer"])
            return a.time_period, a.scene
        text = self._ask_video(self.media(ev))
        a = LabelAnswer.model_validate(extract_json(text))
        write_text(path, dumps({"model": self.model, "video_uid": ev.video_uid,
                                "answer": a.model_dump(), "raw": text}))
        return a.time_period, a.scene

    def _ask_video(self, video: Path) -> str:
        if self._client is None:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise ConfigError(f"library.labeller=gemini_video: set the environment "
                                  f"variable {self.api_key_env} to a Gemini API key")
            self._client = self.client_factory(key)
        client = self._client
        uploaded = client.files.upload(file=str(video))
        deadline = time.monotonic() + self.max_wait_s
        while _state(uploaded) == "PROCESSING":
            if time.monotonic() > deadline:
                raise TimeoutError(f"Gemini did not finish processing {video.name}")
            time.sleep(self.poll_s)
            uploaded = client.files.get(name=uploaded.name)
        if _state(uploaded) not in ("ACTIVE", ""):
            raise RuntimeError(f"Gemini could not process {video.name}: {_state(uploaded)}")
        try:
            response = client.models.generate_content(model=self.model,
                                                      contents=[uploaded, GEMINI_PROMPT])
            return response.text or ""
        finally:
            client.files.delete(name=uploaded.name)


def _state(uploaded: Any) -> str:
    state = getattr(uploaded, "state", None)
    return str(getattr(state, "name", state) or "")


def _genai_client(api_key: str):
    try:
        from google import genai
    except ImportError:
        raise ConfigError("library.labeller=gemini_video needs the optional extra: "
                          "pip install 'xlebench[gemini]' (google-genai)") from None
    return genai.Client(api_key=api_key)


# -- applying them -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Labelling:
    labeller: Labeller
    consolidator: Consolidator
    workers: int = 1  # > 1 for network-bound labellers


def default_labelling() -> Labelling:
    return Labelling(HeuristicLabeller(), ExtractiveConsolidator())


def label_videos(evidence: Sequence[Evidence], how: Labelling
                 ) -> list[tuple[str, str, str]]:
    """(time_period, scene, summary) per video, in input order."""
    def one(ev: Evidence) -> tuple[str, str, str]:
        time_period, scene = how.labeller.label(ev)
        return time_period, scene, how.consolidator.consolidate(ev)

    if how.workers <= 1:
        return [one(ev) for ev in evidence]
    with ThreadPoolExecutor(max_workers=how.workers, thread_name_prefix="label") as pool:
        return list(pool.map(one, evidence))
