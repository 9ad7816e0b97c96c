"""The systems ``eval.systems`` names, built from the config in one place.

A system has a ``name`` (its results folder; ``oracle_`` when it reads ground truth), what it
``reads`` of the annotations (None for none), a ``fingerprint`` of what its replies depend on,
and ``respond(items, recipes, log) -> {item_id: reply}`` for one life log at a time, so the
``respond`` stage can cache, resume and shard them per (system, log).

=====================  =========================================================================
``oracle_text_retrieval``  offline word overlap over the Ego4D narrations (an oracle)
``socratic``           captions of the day, answered by a language model (``eval.captioner``:
                       ``oracle_narrations`` makes it ``oracle_socratic``, ``vlm`` captions frames)
``retrieve_socratic``  the same on the records inside the queried period
``end_to_end``         a VLM answering from ``eval.e2e_frames`` frames of the whole day
``end_to_end_likelihood``  the same frames; each option of a multiple-choice item scored by its
                       mean token log-likelihood (vlm=transformers; EgoSchema's scoring)
``end_to_end_yes``     the same frames; each option scored by log P("Yes") to "Is the answer
                       ... correct?" (vlm=transformers; EgoSchema's rule for mPLUG-Owl)
``end_to_end_grounding``  the same frames; grounded answers' evidence read from the model's
                       hidden states: each ``<Tk>`` pair of its reply against every frame
                       (GeLM's similarity branch, untrained; vlm=transformers)
``oracle_certificate_frames``  the VLM on ``eval.e2e_frames`` frames of each item's evidence
                       spans only (EgoSchema's certificate; reads where the answer is)
``oracle_annotations``  each recipe's full-information oracle: the answer re-derived from the
                       exact annotations the item was built from (a consistency check, the
                       ceiling of what the annotations support; never a baseline)
=====================  =========================================================================
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

from xlebench.config.backends import vlm_backend
from xlebench.errors import ConfigError
from xlebench.eval.predictions import folder_slug
from xlebench.library.annotations import AnnotationIndex
from xlebench.llm.setup import llm_fingerprint, prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.split import split_logs
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


NO_ORACLE = "There is no information available: this recipe has no offline oracle."


@dataclass
class AnnotationsOracle:
    """Replies of the recipes' full-information oracles, kept by the annotate stage."""

    replies: dict[str, str] = field(default_factory=dict)
    name: str = "oracle_annotations"
    reads: str = "the exact annotations each item was built from (its recipe's own oracle)"
    version: str = "1"

    def respond(self, items: list[dict], recipes: dict, log: dict) -> dict[str, str]:
        return {it["item_id"]: self.replies.get(it["item_id"], NO_ORACLE) for it in items}


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
    #: The recipes' oracle replies, bound at setup when oracle_annotations is evaluated.
    annotations: AnnotationsOracle | None = None

    def report(self, counter: str, n: int) -> None:
        """Live counters (frames, captions); the respond stage binds the runner's."""

    def probe(self) -> None:
        """Each remote answering model's key and endpoint, before any frame is decoded."""
        from xlebench.llm.probe import probe

        if self.vlm is not None and vlm_backend(self.vlm.settings.backend).remote:
            probe("vlm", self.vlm.settings)
        if self.llm is not None and self.llm.settings.backend == "litellm":
            probe(self.llm.section, self.llm.settings)


def _vlm(cfg: DictConfig, reporter: Any) -> Any:
    from xlebench.vlm.client import make_vlm

    settings = OmegaConf.to_object(cfg.vlm)
    return make_vlm(settings, Path(cfg.paths.cache) / "vlm")


def _media(cfg: DictConfig, systems: Systems):
    from xlebench.render.settings import media_resolver

    resolver = media_resolver(cfg)

    def media(uid: str) -> Path:
        return resolver.ensure(systems.videos[uid])
    return media


def _frame_spec(cfg: DictConfig, fps: float | None = None):
    from xlebench.render.frames import FrameSpec

    f = cfg.render.frames
    return FrameSpec(int(f.width), int(f.height), fps or float(f.segment_fps) or 1.0,
                     float(f.segment_s))


def _answerer(cfg: DictConfig, systems: Systems, who: str):
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


def _captions(cfg: DictConfig, systems: Systems) -> Any:
    if cfg.eval.captioner == "oracle_narrations":
        return systems.oracle
    from xlebench.systems.captioners import VLMCaptioner

    return VLMCaptioner(systems.vlm, _media(cfg, systems), Path(cfg.paths.cache) / "frames",
                        _frame_spec(cfg), Path(cfg.paths.cache) / "captions",
                        report=lambda name, n: systems.report(name, n))


def build_systems(cfg: DictConfig) -> Systems:
    """The systems of ``cfg.eval.systems``; a misspelt one is a one-line error."""
    out = Systems()
    for name in cfg.eval.systems:
        if name not in SYSTEMS:
            hint = " (renamed: it reads the narrations, so it is oracle_text_retrieval)" \
                if name == "text_retrieval" else ""
            raise ConfigError(f"eval.systems: {name!r} is not a system{hint}; choose from "
                              f"{list(SYSTEMS)} (or give eval.predictions=<file.jsonl>)")
        for frames in _frame_counts(cfg, name):
            made = cfg if frames is None else _with_frames(cfg, frames)
            system, fp, model = KINDS[name].make(name, made, out)
            key = result_key(system.name, model) + (f"@frames={frames}" if frames else "")
            key = split_key(key, str(cfg.eval.split))
            out.by_name[key] = system
            out.fingerprints[key] = fp
            out.models[key] = model
    return out


def _frame_counts(cfg: DictConfig, name: str) -> list[int | None]:
    sweep = [int(n) for n in cfg.eval.get("frames_sweep") or []]
    if sweep and not any(s in FRAME_SYSTEMS for s in cfg.eval.systems):
        raise ConfigError(f"eval.frames_sweep={sweep} needs a system that sees frames in "
                          f"eval.systems: {', '.join(FRAME_SYSTEMS)}")
    return sorted(set(sweep)) if sweep and name in FRAME_SYSTEMS else [None]


def _with_frames(cfg: DictConfig, frames: int) -> DictConfig:
    made = copy.deepcopy(cfg)
    with open_dict(made):
        made.eval.e2e_frames = frames
    return made


def _vlm_model(cfg: DictConfig) -> Model:
    v = cfg.vlm
    name, path = str(v.model), None
    if vlm_backend(str(v.backend)).local_folder and v.path:
        path = str(Path(str(v.path)).expanduser().resolve())
        if name in ("", "transformers"):
            name = Path(path).name
    return Model(name, str(v.backend), "vlm", path)


def _answer_model(cfg: DictConfig) -> Model:
    """Socratic systems answer with the answerer group, or with the vlm in text."""
    if cfg.answerer.backend == "offline":
        return _vlm_model(cfg)
    return Model(str(cfg.answerer.model), str(cfg.answerer.backend), "answerer")


Made = tuple[Any, dict, Model | None]


def _text_retrieval(name: str, cfg: DictConfig, out: Systems) -> Made:
    from xlebench.systems.baselines.text_retrieval import TextRetrievalBaseline

    return TextRetrievalBaseline(out.oracle), {
        "system": name, "version": TextRetrievalBaseline.version}, None


def _annotations(name: str, cfg: DictConfig, out: Systems) -> Made:
    out.annotations = AnnotationsOracle()
    return out.annotations, {"system": name, "version": AnnotationsOracle.version}, None


def _frame_source(cfg: DictConfig, out: Systems) -> tuple[Any, Path, int, Any]:
    """The VLM (made once), where media and frames come from, how many frames, at what
    spec: what every system answering from frames starts with."""
    out.vlm = out.vlm or _vlm(cfg, None)
    return (_media(cfg, out), Path(cfg.paths.cache) / "frames", int(cfg.eval.e2e_frames),
            _frame_spec(cfg, fps=1.0))


def _frames_identity(name: str, version: str, out: Systems, n: int, spec: Any,
                     prompt: str) -> dict:
    return {"system": name, "version": version, "vlm": out.vlm.fingerprint(), "frames": n,
            "spec": spec.key, "prompt": file_digest(prompt_files([prompt])[0])}


def _per_option(name: str, cfg: DictConfig, out: Systems) -> Made:
    """The systems reading a local model's scores: per-option likelihoods, hidden states."""
    from xlebench.systems.baselines.end_to_end import PROMPT
    from xlebench.systems.baselines.grounding_tokens import GroundingTokens
    from xlebench.systems.baselines.likelihood import Likelihood, YesLikelihood
    from xlebench.systems.frames import log_frames

    media, root, n, spec = _frame_source(cfg, out)
    kind = {"end_to_end_likelihood": Likelihood, "end_to_end_yes": YesLikelihood,
            "end_to_end_grounding": GroundingTokens}[name]
    system = kind(out.vlm, lambda log: log_frames(log, n, media, root, spec))
    return system, _frames_identity(name, kind.version, out, n, spec, PROMPT), _vlm_model(cfg)


def _certificate(name: str, cfg: DictConfig, out: Systems) -> Made:
    from xlebench.systems.baselines.certificate_frames import CertificateFrames
    from xlebench.systems.baselines.end_to_end import PROMPT
    from xlebench.systems.frames import evidence_frames

    media, root, n, spec = _frame_source(cfg, out)
    out.network |= vlm_backend(cfg.vlm.backend).remote
    system = CertificateFrames(out.vlm, lambda it, log: evidence_frames(
        it, log, n, media, root, spec))
    return system, _frames_identity(name, CertificateFrames.version, out, n, spec, PROMPT), \
        _vlm_model(cfg)


def _end_to_end(name: str, cfg: DictConfig, out: Systems) -> Made:
    from xlebench.systems.baselines.end_to_end import NOTES, PROMPT, EndToEnd
    from xlebench.systems.frames import log_frames

    media, root, n, spec = _frame_source(cfg, out)
    out.network |= vlm_backend(cfg.vlm.backend).remote
    def frames(log: dict) -> list:
        got = log_frames(log, n, media, root, spec)
        out.report("frames", len(got))
        return got
    return EndToEnd(out.vlm, frames), {
        "system": name, "vlm": out.vlm.fingerprint(), "frames": n, "spec": spec.key,
        "prompts": [file_digest(p) for p in prompt_files([PROMPT, NOTES])]}, _vlm_model(cfg)


def _socratic(name: str, cfg: DictConfig, out: Systems) -> Made:
    from xlebench.systems.baselines.socratic import SocraticBaseline

    out.vlm = out.vlm or _vlm(cfg, None)
    captions = _captions(cfg, out)
    system = SocraticBaseline(_answerer(cfg, out, f"eval.systems=[{name}]"), captions,
                              retrieve=name == "retrieve_socratic",
                              record_s=float(cfg.eval.record_s))
    out.network |= cfg.answerer.backend != "offline" or vlm_backend(cfg.vlm.backend).remote
    answerer = (llm_fingerprint(cfg, ["eval/socratic.v1"], section="answerer")
                if cfg.answerer.backend != "offline" else {"vlm": out.vlm.fingerprint()})
    captioner = captions.fingerprint() if hasattr(captions, "fingerprint") else {
        "captioner": "oracle_narrations"}
    return system, {"system": name, "answerer": answerer, "captioner": captioner,
                    "record_s": float(cfg.eval.record_s),
                    "prompt": file_digest(prompt_files(["eval/socratic.v1"])[0])}, \
        _answer_model(cfg)


@dataclass(frozen=True)
class SystemKind:
    """A system declared once: its name, its factory, and whether it answers from frames
    (``eval.frames_sweep`` runs those at every count listed)."""

    name: str
    make: Callable[[str, DictConfig, Systems], Made]
    frames: bool = False


#: Every system, in the order ``eval.systems`` lists them in its error message.
KINDS: dict[str, SystemKind] = {k.name: k for k in (
    SystemKind("oracle_text_retrieval", _text_retrieval),
    SystemKind("socratic", _socratic),
    SystemKind("retrieve_socratic", _socratic),
    SystemKind("end_to_end", _end_to_end, frames=True),
    SystemKind("end_to_end_likelihood", _per_option, frames=True),
    SystemKind("end_to_end_yes", _per_option, frames=True),
    SystemKind("end_to_end_grounding", _per_option, frames=True),
    SystemKind("oracle_certificate_frames", _certificate, frames=True),
    SystemKind("oracle_annotations", _annotations),
)}
SYSTEMS = tuple(KINDS)
#: Systems that answer from frames: eval.frames_sweep runs each at every count listed.
FRAME_SYSTEMS = tuple(k.name for k in KINDS.values() if k.frames)


def split_key(key: str, split: str) -> str:
    """A system's results folder for one split (``oracle_text_retrieval@split=test``):
    scoring a split never replaces the whole benchmark's results."""
    return key if split == "all" else f"{key}@split={split}"


def selected_logs(all_ids: list[str], max_logs: int | None, lifelogs: list[str],
                  split: tuple[int, float, str] = (0, 0.0, "all")) -> list[str]:
    """The life logs an evaluation covers: those of its split (``(seed, heldout, which)``,
    `xlebench.split`), of them the listed ones, else the first N by id, else all."""
    all_ids = split_logs(all_ids, *split)
    if lifelogs:
        missing = sorted(set(lifelogs) - set(all_ids))
        if missing:
            raise ConfigError(f"eval.lifelogs: {missing} are not life logs of this benchmark "
                              f"(e.g. {', '.join(sorted(all_ids)[:3])})")
        return sorted(lifelogs)
    ids = sorted(all_ids)
    return ids[:max_logs] if max_logs else ids
