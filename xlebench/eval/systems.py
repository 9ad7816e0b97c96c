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
``oracle_annotations``  each recipe's full-information oracle: the answer re-derived from the
                       exact annotations the item was built from (a consistency check, the
                       ceiling of what the annotations support; never a baseline)
=====================  =========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.eval.baselines.captions import OracleNarrations
from xlebench.llm.setup import llm_fingerprint, prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.tasks.source import AnnotationIndex

SYSTEMS = ("oracle_text_retrieval", "socratic", "retrieve_socratic", "end_to_end",
           "oracle_annotations")
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

    by_name: dict[str, Any] = field(default_factory=dict)
    fingerprints: dict[str, dict] = field(default_factory=dict)
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
    """Text answering for Socratic systems: the text LLM when one is configured, else the
    VLM asked in text (so vlm=scripted runs everything offline)."""
    if cfg.llm.backend != "offline":
        from xlebench.llm.setup import llm_client

        systems.llm = systems.llm or llm_client(cfg, who)
        return lambda messages: systems.llm.complete(messages).text
    from xlebench.vlm.messages import message

    return lambda messages: systems.vlm.answer(
        [message(m["role"], m["content"]) for m in messages]).text


def _captions(cfg: DictConfig, systems: Systems) -> Any:
    if cfg.eval.captioner == "oracle_narrations":
        return systems.oracle
    from xlebench.eval.captioners import VLMCaptioner

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
        system, fp = _make(name, cfg, out)
        out.by_name[system.name] = system
        out.fingerprints[system.name] = fp
    return out


def _make(name: str, cfg: DictConfig, out: Systems) -> tuple[Any, dict]:
    from xlebench.eval.baselines.text_retrieval import TextRetrievalBaseline

    if name == "oracle_text_retrieval":
        return TextRetrievalBaseline(out.oracle), {"system": name,
                                                   "version": TextRetrievalBaseline.version}
    if name == "oracle_annotations":
        out.annotations = AnnotationsOracle()
        return out.annotations, {"system": name, "version": AnnotationsOracle.version}
    out.vlm = out.vlm or _vlm(cfg, None)
    if name == "end_to_end":
        from xlebench.eval.baselines.end_to_end import NOTES, PROMPT, EndToEnd
        from xlebench.eval.frames import log_frames

        media, root = _media(cfg, out), Path(cfg.paths.cache) / "frames"
        n = int(cfg.eval.e2e_frames)
        spec = _frame_spec(cfg, fps=1.0)
        out.network |= cfg.vlm.backend == "litellm"
        def frames(log: dict) -> list:
            got = log_frames(log, n, media, root, spec)
            out.report("frames", len(got))
            return got
        return EndToEnd(out.vlm, frames), {
            "system": name, "vlm": out.vlm.fingerprint(), "frames": n, "spec": spec.key,
            "prompts": [file_digest(p) for p in prompt_files([PROMPT, NOTES])]}
    from xlebench.eval.baselines.socratic import SocraticBaseline

    captions = _captions(cfg, out)
    system = SocraticBaseline(_answerer(cfg, out, f"eval.systems=[{name}]"), captions,
                              retrieve=name == "retrieve_socratic",
                              record_s=float(cfg.eval.record_s))
    out.network |= cfg.llm.backend != "offline" or cfg.vlm.backend == "litellm"
    answerer = (llm_fingerprint(cfg, ["eval/socratic.v1"]) if cfg.llm.backend != "offline"
                else {"vlm": out.vlm.fingerprint()})
    captioner = captions.fingerprint() if hasattr(captions, "fingerprint") else {
        "captioner": "oracle_narrations"}
    return system, {"system": name, "answerer": answerer, "captioner": captioner,
                    "record_s": float(cfg.eval.record_s),
                    "prompt": file_digest(prompt_files(["eval/socratic.v1"])[0])}


def selected_logs(all_ids: list[str], max_logs: int | None, lifelogs: list[str]) -> list[str]:
    """The life logs an evaluation covers: the listed ones, else the first N by id, else all."""
    if lifelogs:
        missing = sorted(set(lifelogs) - set(all_ids))
        if missing:
            raise ConfigError(f"eval.lifelogs: {missing} are not life logs of this benchmark "
                              f"(e.g. {', '.join(sorted(all_ids)[:3])})")
        return sorted(lifelogs)
    ids = sorted(all_ids)
    return ids[:max_logs] if max_logs else ids
