"""What several stages read from the composed config, in one place: the embedder's settings,
the planner's parameters and LLM, the recipes and where their annotations come from — so no
stage imports another stage for them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
from xlebench.library.annotations import AnnotationIndex, load_annotations
from xlebench.llm.setup import llm_client
from xlebench.plan.llm import LLMPlanner, PlannerPrompts
from xlebench.plan.offline import PlannerParams
from xlebench.runner.stage import StageContext
from xlebench.tasks.recipe.registry import Recipe, recipes_from_config

#: The plan stage's chunk embeddings, which simulate reads.
CHUNK_EMBEDDINGS = "chunk_embeddings.npy"


def embedder_settings(cfg: DictConfig) -> dict[str, Any]:
    """The embedder's settings; fp32 on the CPU, the defaults, are left out so that stage
    fingerprints made before those knobs existed stay valid."""
    embedder = OmegaConf.to_container(cfg.matcher.embedder, resolve=True)
    return {**{k: embedder[k] for k in ("kind", "dim", "model", "batch_size")},
            **{k: embedder[k] for k, default in (("precision", "fp32"), ("device", "cpu"))
               if embedder[k] != default}}


def planner_params(cfg: DictConfig) -> PlannerParams:
    """The ``planner`` group's schema instance: the planner's runtime settings."""
    return OmegaConf.to_object(cfg.planner)


def llm_planner(cfg: DictConfig, who: str) -> LLMPlanner | None:
    """The LLM planner when planner=llm (None for the offline planner)."""
    kind = str(cfg.planner.kind)
    if kind == "offline":
        return None
    if kind != "llm":
        raise ConfigError(f"planner.kind={kind!r}: expected offline or llm")
    return LLMPlanner(llm_client(cfg, who), planner_params(cfg),
                      max_retries=int(cfg.llm.max_retries),
                      prompts=PlannerPrompts(**dict(cfg.planner.prompts)))


def stage_annotations(ctx: StageContext, root: Path | None, min_duration_s: float = 0.0
                      ) -> AnnotationIndex:
    """The Ego4D annotations of the videos the logs use (from the Ego4D root, or the synthetic
    corpus kept with the library; none for the X-LeBench release, whose logs then get no
    annotation-based items, counted)."""
    uid, _ = ctx["library"].only()
    lib_dir = ctx["library"].unit_dir(uid)
    root = root or (lib_dir / "corpus" if (lib_dir / "corpus").is_dir() else None)
    if root is None:
        return AnnotationIndex()
    uids = {s["video_uid"] for r in ctx["simulate"].records.values() for s in r["segments"]}
    return load_annotations(root, uids, min_duration_s)


def annotations_root(cfg: DictConfig) -> Path | None:
    """The Ego4D folder whose annotations items come from: ``library.annotations_root`` (any
    library, e.g. the authors' file paired with a local download), else an ego4d library's
    own root (the synthetic corpus keeps its own beside the library)."""
    lib = OmegaConf.to_container(cfg.library, resolve=True)
    if lib.get("annotations_root"):
        root = Path(lib["annotations_root"])
        if not any((root / d / "annotations").is_dir() for d in ("v2", "v1", ".")):
            raise ConfigError(f"library.annotations_root={root}: no v2/annotations/ folder "
                              "there; point it at your Ego4D download (the folder holding v2/)")
        return root
    return Path(lib["root"]) if lib["kind"] == "ego4d" else None


def configured_recipes(cfg: DictConfig) -> dict[str, tuple[Recipe, Any]]:
    """The recipes of ``cfg.tasks``, resolved and with their parameters checked."""
    return recipes_from_config(OmegaConf.to_container(cfg.tasks, resolve=True) or {})


def rendered_logs(cfg: DictConfig) -> int | None:
    """How many life logs the render stage renders (None: all, 0: none)."""
    if cfg.render.kind == "none":
        return 0
    return None if cfg.render.max_logs is None else int(cfg.render.max_logs)


#: The recipe filters that read the records' frames.
FRAME_FILTERS = ("talking_head", "static_video")


def record_frames(cfg: DictConfig, tasks: dict[str, Any]) -> Any:
    """The frames reader of Neptune's C.1 filters where a recipe lists one (None otherwise):
    the library's media through the render stage's resolver, frames cached under
    ``cache/frames``."""
    if not any(isinstance(f, dict) and f.get("kind") in FRAME_FILTERS
               for params in tasks.values() for f in (params or {}).get("filters") or []):
        return None
    from xlebench.render.settings import media_resolver

    return RecordFrames(media_resolver(cfg), Path(cfg.paths.cache) / "frames")


@dataclass
class RecordFrames:
    """Frames of an item's whole source records from the library's media (``resolver``:
    the render stage's), decoded once per (video, time) into the frame cache ``root``
    (`xlebench.render.frames.frames_at`). Called as ``frames(videos, item, fps, max_frames)``
    with the library's videos by uid; the annotate stage binds ``videos``."""

    resolver: Any
    root: Path
    width: int = 320
    height: int = 240

    def __call__(self, videos: Mapping[str, Any], item: dict, fps: float, max_frames: int
                 ) -> dict[str, list[np.ndarray]]:
        import cv2

        from xlebench.render.frames import FrameSpec, frames_at

        spec = FrameSpec(self.width, self.height)
        out = {}
        for uid in dict.fromkeys(e["video_uid"] for e in item["evidence"]):
            video = videos[uid]
            times = _times(float(video.duration_s), fps, max_frames)
            files = frames_at(self.resolver.ensure(video), uid, times, self.root, spec)
            out[uid] = [im for t in times if (im := cv2.imread(str(self.root / files[t])))
                        is not None]
        return out


def _times(duration: float, fps: float, max_frames: int) -> Sequence[float]:
    """Sample times over the whole record: ``fps`` per second, at most ``max_frames``."""
    n = max(1, min(max_frames, int(duration * fps)))
    return [round(duration * (k + 0.5) / n, 3) for k in range(n)]
