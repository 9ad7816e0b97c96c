"""What every system is built from: the model it answers with (its results' identity), the
shared pieces the respond stage binds (`Systems`), the declaration a system makes of itself
(`SystemKind`) and the helpers its factory uses (the VLM made once, media, frames, the text
answerer, captions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.config.backends import vlm_backend
from xlebench.eval.predictions import folder_slug
from xlebench.library.annotations import AnnotationIndex
from xlebench.llm.setup import prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.systems.baselines.captions import OracleNarrations

#: Backends whose ``model`` is not a litellm provider path: their identity names the backend.
LOCAL_BACKENDS = ("scripted", "offline", "replay", "transformers")


@dataclass(frozen=True)
class Model:
    """The model a system answers with: its results folder is ``<system>@<slug>``, and a
    stand-in (the scripted VLM) says so in every title."""

    name: str
    backend: str
    section: str  # the config group it comes from: vlm, answerer
    #: A local weights folder (vlm=transformers vlm.path=...): part of the identity.
    path: str | None = None

    @property
    def identity(self) -> str:
        """Backend and model in full: litellm names carry their provider
        (``openai/Qwen/Qwen2-VL-7B-Instruct``, ``hosted_vllm/Qwen/...``); other backends are
        named (``transformers/Qwen/Qwen2-VL-2B-Instruct``, ``scripted``)."""
        if self.backend == "litellm":
            head = self.name.split("/", 1)[0]
            return f"litellm/{self.name}" if head in LOCAL_BACKENDS + ("litellm",) else self.name
        if self.name in ("", self.backend):
            return self.backend
        return f"{self.backend}/{self.name}"

    @property
    def slug(self) -> str:
        """The identity as a folder name (`folder_slug`; a local path is part of it)."""
        return folder_slug(self.identity, self.path or "")

    @property
    def stand_in(self) -> str | None:
        if self.backend == "scripted":
            return ("STAND-IN: vlm=scripted answers by rule without a model (an offline "
                    "placeholder, not a result)")
        return None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "backend": self.backend, "config": self.section,
                "identity": self.identity, "stand_in": self.stand_in is not None}


def result_key(name: str, model: Model | None) -> str:
    """The results folder of a (system, model) pair: model B never replaces model A."""
    return name if model is None else f"{name}@{model.slug}"



@dataclass
class Systems:
    """The configured systems, and the shared pieces the respond stage binds at setup."""

    #: Results key (``<system>`` or ``<system>@<model>``) -> the system answering.
    by_name: dict[str, Any] = field(default_factory=dict)
    fingerprints: dict[str, dict] = field(default_factory=dict)
    models: dict[str, Model | None] = field(default_factory=dict)
    oracle: OracleNarrations = field(default_factory=lambda: OracleNarrations(AnnotationIndex()))
    vlm: Any = None
    llm: Any = None
    network: bool = False  # some system waits on an API: run units in threads
    #: The library's videos by uid (bound at setup): media is made or found from them.
    videos: dict = field(default_factory=dict)
    #: The recipes' oracle replies (`AnnotationsOracle`), bound at setup when
    #: oracle_annotations is evaluated.
    annotations: Any = None

    def report(self, counter: str, n: int) -> None:
        """Live counters (frames, captions); the respond stage binds the runner's."""

    def probe(self) -> None:
        """Each remote answering model's key and endpoint, before any frame is decoded."""
        from xlebench.llm.probe import probe

        if self.vlm is not None and vlm_backend(self.vlm.settings.backend).remote:
            probe("vlm", self.vlm.settings)
        if self.llm is not None and self.llm.settings.backend == "litellm":
            probe(self.llm.section, self.llm.settings)


def vlm_client(cfg: DictConfig) -> Any:
    """The configured VLM (``vlm``), its replies cached under the cache folder."""
    from xlebench.vlm.client import make_vlm

    settings = OmegaConf.to_object(cfg.vlm)
    return make_vlm(settings, Path(cfg.paths.cache) / "vlm")


def media_of(cfg: DictConfig, systems: Systems):
    """``uid -> path`` of a library video's media, made or found (the render settings')."""
    from xlebench.render.settings import media_resolver

    resolver = media_resolver(cfg)

    def media(uid: str) -> Path:
        return resolver.ensure(systems.videos[uid])
    return media


def frame_spec(cfg: DictConfig, fps: float | None = None):
    """The frames' size and rate (``render.frames``); ``fps`` overrides the rate."""
    from xlebench.render.frames import FrameSpec

    f = cfg.render.frames
    return FrameSpec(int(f.width), int(f.height), fps or float(f.segment_fps) or 1.0,
                     float(f.segment_s))


def text_answerer(cfg: DictConfig, systems: Systems, who: str):
    """Text answering for Socratic systems: the ``answerer`` model when one is configured,
    else the VLM asked in text (so vlm=scripted runs everything offline). Never the ``llm``
    group, which compiled the benchmark."""
    if cfg.answerer.backend != "offline":
        from xlebench.llm.setup import llm_client

        systems.llm = systems.llm or llm_client(cfg, who, section="answerer")
        return lambda messages: systems.llm.complete(messages).text
    from xlebench.vlm.messages import message

    return lambda messages: systems.vlm.answer(
        [message(m["role"], m["content"]) for m in messages]).text


def caption_source(cfg: DictConfig, systems: Systems) -> Any:
    if cfg.eval.captioner == "oracle_narrations":
        return systems.oracle
    from xlebench.systems.captioners import VLMCaptioner

    return VLMCaptioner(systems.vlm, media_of(cfg, systems), Path(cfg.paths.cache) / "frames",
                        frame_spec(cfg), Path(cfg.paths.cache) / "captions",
                        prompt=str(cfg.eval.get("caption_prompt") or "eval/caption.v1"),
                        report=lambda name, n: systems.report(name, n))


def vlm_model(cfg: DictConfig) -> Model:
    v = cfg.vlm
    name, path = str(v.model), None
    if vlm_backend(str(v.backend)).local_folder and v.path:
        path = str(Path(str(v.path)).expanduser().resolve())
        if name in ("", "transformers"):
            name = Path(path).name
    return Model(name, str(v.backend), "vlm", path)


def answer_model(cfg: DictConfig) -> Model:
    """Socratic systems answer with the answerer group, or with the vlm in text."""
    if cfg.answerer.backend == "offline":
        return vlm_model(cfg)
    return Model(str(cfg.answerer.model), str(cfg.answerer.backend), "answerer")


#: What a system's factory returns: the system, its fingerprint, the model it answers with.
Made = tuple[Any, dict, Model | None]


def frame_source(cfg: DictConfig, out: Systems) -> tuple[Any, Path, int, Any]:
    """The VLM (made once), where media and frames come from, how many frames, at what
    spec: what every system answering from frames starts with."""
    out.vlm = out.vlm or vlm_client(cfg)
    return (media_of(cfg, out), Path(cfg.paths.cache) / "frames", int(cfg.eval.e2e_frames),
            frame_spec(cfg, fps=1.0))


def frames_identity(name: str, version: str, out: Systems, n: int, spec: Any,
                     prompt: str) -> dict:
    return {"system": name, "version": version, "vlm": out.vlm.fingerprint(), "frames": n,
            "spec": spec.key, "prompt": file_digest(prompt_files([prompt])[0])}


def frames_system(name: str, cfg: DictConfig, out: Systems, kind: Any,
                  frames_of: Callable[[Any, Path, int, Any], Callable], prompt: str) -> Made:
    """A system of class ``kind`` answering from frames, ``kind(vlm, frames_of(media, root, n,
    spec))``, identified by its version, the VLM, the frame count and spec, and ``prompt``."""
    media, root, n, spec = frame_source(cfg, out)
    system = kind(out.vlm, frames_of(media, root, n, spec))
    return system, frames_identity(name, kind.version, out, n, spec, prompt), vlm_model(cfg)


@dataclass(frozen=True)
class SystemKind:
    """A system declared once: its name, its factory, and whether it answers from frames
    (``eval.frames_sweep`` runs those at every count listed)."""

    name: str
    make: Callable[[str, DictConfig, Systems], Made]
    frames: bool = False
