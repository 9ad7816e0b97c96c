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

from xlebench.errors import ConfigError
from xlebench.library.embed import EmbeddingStore, make_embedder
from xlebench.library.index import build_index, save_index
from xlebench.library.sources import LoadedLibrary, Selection, load_ego4d, load_release_library
from xlebench.library.stats import library_stats, plot_stats
from xlebench.library.synthetic import SyntheticSpec, generate_corpus
from xlebench.library.view import EMBEDDINGS, INDEX, TABLE
from xlebench.runner.atomic import write_json
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext


class LibraryStage(BaseStage):
    name: ClassVar[str] = "library"
    version: ClassVar[str] = "2"
    uses_seed: ClassVar[bool] = False

    def __init__(
        self,
        *,
        source: dict[str, Any],
        embedder: dict[str, Any],
        index: dict[str, Any],
        embedding_store: Path | None = None,
    ) -> None:
        self.source = dict(source)
        self.embedder_cfg = dict(embedder)
        self.index_cfg = dict(index)
        self.embedding_store = embedding_store

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit("library")]

    def _load(self, workdir: Path) -> LoadedLibrary:
        src = self.source
        sel = Selection(**{k: src[k] for k in ("require_nlq", "require_moments", "labeller",
                                               "consolidator") if k in src})
        if src["kind"] == "synthetic":
            fields = SyntheticSpec.__dataclass_fields__
            spec = SyntheticSpec(**{k: v for k, v in src.items() if k in fields})
            generate_corpus(spec, workdir / "corpus")
            loaded = load_ego4d(workdir / "corpus", sel)
            loaded.source = f"synthetic(seed={spec.seed}, n_videos={spec.n_videos})"
            return loaded
        if src["kind"] == "ego4d":
            return load_ego4d(Path(src["root"]), sel)
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
        return {"videos": record["videos"], "skipped": record["skipped"]}


def _source_fingerprint(src: dict) -> dict:
    """Fingerprint the source's content too: editing a file in place must invalidate."""
    out = dict(src)
    if src["kind"] == "xlebench_release":
        path = Path(src["path"])
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
    embedder = OmegaConf.to_container(cfg.matcher.embedder, resolve=True)
    index = OmegaConf.to_container(cfg.matcher.index, resolve=True)
    stage = LibraryStage(
        source=source,
        embedder={k: embedder[k] for k in ("kind", "dim", "model", "batch_size")},
        index=index,
        embedding_store=Path(cfg.paths.cache) / "embeddings",
    )
    fp = {"source": _source_fingerprint(source),
          "embedder": {k: embedder[k] for k in ("kind", "dim", "model")},
          "index": {k: index[k] for k in ("kind", "hnsw_m")}}
    return StageSpec(stage, fp)


__all__ = ["LibraryStage", "build_library_stage"]
