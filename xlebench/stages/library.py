"""Library stage: a video source -> normalised table + embeddings + FAISS index + stats.

One unit (the whole corpus). With an unchanged source and embedder the stage fingerprint is
unchanged and a rebuild costs nothing; when only part of the source changed, the shared
embedding store re-encodes only the new summaries.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError, DataError
from xlebench.library.embed import EmbeddingStore, make_embedder
from xlebench.library.index import build_index, save_index
from xlebench.library.labellers import (
    Evidence,
    ExtractiveConsolidator,
    GeminiVideoLabeller,
    HeuristicLabeller,
    Labelling,
    LLMConsolidator,
    LLMLabeller,
    default_labelling,
)
from xlebench.library.records import LibraryVideo
from xlebench.library.sources import LoadedLibrary, Selection, load_ego4d, load_release_library
from xlebench.library.stats import library_stats, plot_stats
from xlebench.library.synthetic import SyntheticSpec, generate_corpus
from xlebench.library.view import EMBEDDINGS, INDEX, TABLE
from xlebench.llm.client import Usage
from xlebench.llm.setup import (
    export_usage,
    llm_client,
    llm_fingerprint,
    prompt_files,
    save_usage,
)
from xlebench.media.ffmpeg import safe_uid
from xlebench.media.synthetic import MediaSpec, SyntheticMediaStore
from xlebench.runner.atomic import write_json
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.stages.readers import embedder_settings

LABELLERS = ("heuristic", "llm", "gemini_video")
CONSOLIDATORS = ("extractive", "llm")
LABEL_PROMPT = "library/label.v1"
CONSOLIDATE_PROMPT = "library/consolidate.v1"


class LibraryStage(BaseStage):
    name: ClassVar[str] = "library"
    outputs: ClassVar[tuple[str, ...]] = (
        "library.parquet", "stats/library.json", "stats/library.png",
        "stats/llm_usage_library.json")
    # 4: readable synthetic narrations, content-rich summaries; 5: handling episodes (C picks
    # an object up and uses it, one use per object and video)
    version: ClassVar[str] = "5"
    uses_seed: ClassVar[bool] = False

    def __init__(
        self,
        *,
        source: dict[str, Any],
        embedder: dict[str, Any],
        index: dict[str, Any],
        embedding_store: Path | None = None,
        labelling: Labelling | None = None,
        prompts: list[str] | None = None,
    ) -> None:
        self.source = dict(source)
        self.labelling = labelling
        self.prompts = list(prompts or [])
        self.embedder_cfg = dict(embedder)
        self.index_cfg = dict(index)
        self.embedding_store = embedding_store

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit("library")]

    def prompt_files(self) -> list[Path]:
        return prompt_files(self.prompts)

    def _load(self, workdir: Path) -> LoadedLibrary:
        src = self.source
        sel = Selection(**{k: src[k] for k in ("require_nlq", "require_moments") if k in src})
        if src["kind"] == "synthetic":
            spec = SyntheticSpec(**src)
            generate_corpus(spec, workdir / "corpus")
            loaded = load_ego4d(workdir / "corpus", sel, self.labelling)
            loaded.source = f"synthetic(seed={spec.seed}, n_videos={spec.n_videos})"
            return loaded
        if src["kind"] == "ego4d":
            return load_ego4d(Path(src["root"]), sel, self.labelling)
        if src["kind"] == "xlebench_release":
            return load_release_library(Path(src["path"]))
        raise ConfigError(f"library.kind={src['kind']}: expected synthetic, ego4d or "
                          "xlebench_release")

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        import pyarrow as pa
        import pyarrow.parquet as pq

        loaded = self._load(ctx.workdir)
        videos = sorted(loaded.videos, key=lambda v: v.video_uid)
        if not videos:
            raise ConfigError(f"library source {loaded.source} selected no videos "
                              f"(skipped: {dict(loaded.skips)})")
        table = pa.Table.from_pylist([v.to_row() for v in videos])
        pq.write_table(table, ctx.workdir / TABLE)
        embedder = make_embedder(**self.embedder_cfg)
        texts = [v.summary for v in videos]
        if self.embedding_store is not None:
            store = EmbeddingStore(self.embedding_store, embedder)
            vectors = store.encode(texts)
        else:
            vectors = embedder.encode(texts)
        np.save(ctx.workdir / EMBEDDINGS, vectors)
        save_index(build_index(vectors, self.index_cfg["kind"], self.index_cfg.get("hnsw_m", 32)),
                   ctx.workdir / INDEX)
        usage = _labelling_usage(self.labelling)
        if usage is not None:
            save_usage(ctx.workdir, usage)
        stats = library_stats(videos)
        write_json(ctx.workdir / "stats.json", stats)
        plot_stats(stats, videos, ctx.workdir / "library_stats.png")
        return {
            "source": loaded.source,
            "videos": len(videos),
            "skipped": dict(sorted(loaded.skips.items())),
            "embedder": embedder.key,
            "dim": int(vectors.shape[1]),
            "index": self.index_cfg["kind"],
            "summaries_sha256": hashlib.sha256("\n".join(texts).encode()).hexdigest(),
        }

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        uid, record = result.only()
        src = result.unit_dir(uid)
        out = dest / "stats"
        out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / "stats.json", out / "library.json")
        shutil.copyfile(src / "library_stats.png", out / "library.png")
        shutil.copyfile(src / TABLE, dest / "library.parquet")
        counts = {"videos": record["videos"], "skipped": record["skipped"]}
        model = self.labelling_model()
        return export_usage(model, result, dest, counts)

    def labelling_model(self) -> str | None:
        for part in (self.labelling.labeller, self.labelling.consolidator) if self.labelling \
                else ():
            client = getattr(part, "client", None)
            if client is not None:
                return client.settings.model
        return None


def _labelling_usage(how: Labelling | None) -> Usage | None:
    """Token use of the LLM labeller and consolidator together (None without an LLM)."""
    parts = [p.usage.to_dict() for p in ((how.labeller, how.consolidator) if how else ())
             if isinstance(getattr(p, "usage", None), Usage)]
    return Usage(**Usage.total(parts)) if parts else None


def _source_fingerprint(src: dict) -> dict:
    """Fingerprint the source's content too: editing a file in place must invalidate."""
    out = {k: v for k, v in src.items()
           if k not in ("label_workers", "gemini_model", "gemini_key_env")}
    if src["kind"] == "xlebench_release":
        path = Path(src["path"])
        if path.is_dir():
            found = sorted(p.name for p in path.glob("*.json"))[:3]
            raise ConfigError(f"library.path={path}: is a folder, not a JSON file; point it "
                              "at the authors' video_info.json" + (
                                  f" (this folder has {', '.join(found)})" if found else ""))
        if not path.is_file():
            raise ConfigError(f"library.path={path}: file not found; point it at the authors' "
                              "video_info.json")
        out["content_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    elif src["kind"] == "ego4d":
        from xlebench.library.ego4d import find_layout

        layout = find_layout(Path(src["root"]))
        files = [layout.metadata, layout.narration, *layout.nlq, *layout.moments]
        out["files"] = {str(f.relative_to(layout.root)): [f.stat().st_size, f.stat().st_mtime_ns]
                        for f in files if f is not None}
    return out


def build_library_stage(cfg: DictConfig) -> StageSpec:
    source = OmegaConf.to_container(cfg.library, resolve=True)
    index = OmegaConf.to_container(cfg.matcher.index, resolve=True)
    labelling, prompts, label_fp = make_labelling(cfg, source)
    embedder = embedder_settings(cfg)
    stage = LibraryStage(
        source=source,
        embedder=embedder,
        index=index,
        embedding_store=Path(cfg.paths.cache) / "embeddings",
        labelling=labelling, prompts=prompts,
    )
    fp = {"source": _source_fingerprint(source),
          # what changes the vectors (batch size only on a GPU: same_length_batches)
          "embedder": {k: v for k, v in embedder.items()
                       if k != "batch_size" or "device" in embedder},
          "index": {k: index[k] for k in ("kind", "hnsw_m")},
          "labelling": label_fp}
    return StageSpec(stage, fp)


def make_labelling(cfg: DictConfig, source: dict[str, Any]
                   ) -> tuple[Labelling | None, list[str], dict | None]:
    """The configured labeller + consolidator, their prompt ids and what they add to the
    fingerprint (None for the deterministic defaults, so existing caches stay valid)."""
    if source["kind"] == "xlebench_release":
        return None, [], None
    labeller, consolidator = source.get("labeller", "heuristic"), source.get(
        "consolidator", "extractive")
    if labeller not in LABELLERS:
        raise ConfigError(f"library.labeller={labeller}: choose one of {list(LABELLERS)}")
    if consolidator not in CONSOLIDATORS:
        raise ConfigError(f"library.consolidator={consolidator}: choose one of "
                          f"{list(CONSOLIDATORS)}")
    if (labeller, consolidator) == ("heuristic", "extractive"):
        return default_labelling(), [], None
    client = None
    if "llm" in (labeller, consolidator):
        client = llm_client(cfg, "library.labeller=llm / library.consolidator=llm")
    retries = int(cfg.llm.max_retries)
    prompts = []
    if labeller == "llm":
        lab: Any = LLMLabeller(client, LABEL_PROMPT, retries)
        prompts.append(LABEL_PROMPT)
    elif labeller == "gemini_video":
        lab = GeminiVideoLabeller(
            model=str(source["gemini_model"]), api_key_env=str(source["gemini_key_env"]),
            media=_media_for_labelling(cfg, source),
            cache_dir=Path(cfg.paths.cache) / "labels" / "gemini_video")
    else:
        lab = HeuristicLabeller()
    if consolidator == "llm":
        con: Any = LLMConsolidator(client, CONSOLIDATE_PROMPT, retries)
        prompts.append(CONSOLIDATE_PROMPT)
    else:
        con = ExtractiveConsolidator()
    fp = {"labeller": labeller, "consolidator": consolidator,
          "gemini_model": source.get("gemini_model") if labeller == "gemini_video" else None,
          "llm": llm_fingerprint(cfg, prompts) if client else None}
    return Labelling(lab, con, workers=int(source.get("label_workers", 8))), prompts, fp


def _media_for_labelling(cfg: DictConfig, source: dict[str, Any]):
    """Where gemini_video finds each video: Ego4D's full_scale folder, or synthetic media."""
    if source["kind"] == "ego4d":
        root = Path(source["root"])

        def ego4d_media(ev: Evidence) -> Path:
            path = root / "v2" / "full_scale" / f"{safe_uid(ev.video_uid)}.mp4"
            if not path.is_file():
                raise DataError(str(path), ev.video_uid, "the video file for gemini_video "
                                "labelling", "download it with the Ego4D CLI (full_scale)")
            return path
        return ego4d_media
    store = SyntheticMediaStore(Path(cfg.paths.cache) / "media" / "synthetic",
                                MediaSpec(int(source["media_width"]),
                                          int(source["media_height"]), int(source["media_fps"])))

    def synthetic_media(ev: Evidence) -> Path:
        return store.ensure(LibraryVideo(ev.video_uid, ev.duration_s, "", None, ev.scenarios,
                                         "uncertain", "mixed", ""))
    return synthetic_media


__all__ = ["LibraryStage", "build_library_stage"]
