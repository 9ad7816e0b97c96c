"""Render stage: one unit per life log -> stitched video, WebVTT clock, mapping, frames.

Finished logs are never redone: each unit is built in a private folder and published with one
rename by the runner, so an interrupted render resumes at the next log and a partial video is
never taken for a finished one. Media for every log is checked before the first encode.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import UserError
from xlebench.library.view import LibraryView
from xlebench.render.media import MediaResolver
from xlebench.render.render import VIDEO, VTT, RenderSettings, render_log
from xlebench.render.settings import media_resolver, render_settings
from xlebench.runner.atomic import write_json
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext

log = logging.getLogger(__name__)


class RenderStage(BaseStage):
    name: ClassVar[str] = "render"
    outputs: ClassVar[tuple[str, ...]] = ("videos",)
    version: ClassVar[str] = "1"
    upstream: ClassVar[tuple[str, ...]] = ("simulate", "library")
    uses_seed: ClassVar[bool] = False

    def __init__(self, *, settings: RenderSettings, resolver: MediaResolver | None,
                 max_logs: int | None, frames_root: Path, no_media: str = "") -> None:
        #: ``resolver`` None: the library has no media here (``no_media`` says why and what
        #: to set): nothing is rendered, and the report shows timelines without a player.
        self.settings, self.resolver, self.no_media = settings, resolver, no_media
        self.max_logs, self.frames_root = max_logs, frames_root
        self._videos: dict[str, Any] = {}

    def setup(self, ctx: StageContext) -> None:
        uid, _ = ctx["library"].only()
        view = LibraryView(ctx["library"].unit_dir(uid))
        self._videos = {v.video_uid: v for v in view.videos}

    def units(self, ctx: StageContext) -> list[Unit]:
        if self.settings.kind == "none":
            return []
        if self.resolver is None:
            log.warning("render: no video rendered: %s", self.no_media)
            return []
        ids = sorted(ctx["simulate"].records)
        if self.max_logs is not None:
            ids = ids[: self.max_logs]
        uids = [s["video_uid"] for i in ids for s in ctx["simulate"].records[i]["segments"]]
        self.resolver.check(uids)  # every missing file listed before anything is encoded
        return [Unit(i) for i in ids]

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        log = ctx.upstream["simulate"].records[unit.id]

        def media(uid: str) -> Path:
            return self.resolver.ensure(self._videos[uid])

        record = render_log(log["segments"], media, self.settings, ctx.workdir,
                            self.frames_root)
        return {"lifelog_id": unit.id, **record}

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        checksums = {}
        for lid, record in result.records.items():
            src = result.unit_dir(lid)
            _link_or_copy(src / VIDEO, dest / "videos" / f"{lid}.mp4")
            _link_or_copy(src / VTT, dest / "videos" / f"{lid}.vtt")
            # The sidecar (output-time mapping, checksums, frames) is what a user shares to
            # let others rebuild the video from their own Ego4D copy.
            write_json(dest / "videos" / f"{lid}.json", record)
            checksums[f"videos/{lid}.mp4"] = record["video"]["sha256"]
            checksums[f"videos/{lid}.vtt"] = record["vtt"]["sha256"]
        return {"rendered": len(result.records), "kind": self.settings.kind,
                "sha256": dict(sorted(checksums.items()))}


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.unlink(missing_ok=True)
    try:
        os.link(src, dst)  # videos are large: share the cached bytes when the disk allows
    except OSError:
        shutil.copyfile(src, dst)


def build_render_stage(cfg: DictConfig) -> StageSpec:
    rc = OmegaConf.to_container(cfg.render, resolve=True)
    resolver, no_media = None, ""
    try:
        resolver = media_resolver(cfg)
    except UserError as exc:  # a library without media (the authors' release): no video
        no_media = f"{exc}; without it the benchmark has no videos, and its report no player"
    stage = RenderStage(settings=render_settings(rc), resolver=resolver,
                        max_logs=rc["max_logs"], no_media=no_media,
                        frames_root=Path(cfg.paths.cache) / "frames")
    lib = OmegaConf.to_container(cfg.library, resolve=True)
    fp = {"render": {k: v for k, v in rc.items() if k != "max_logs"},
          "media": {k: lib.get(k) for k in ("media_width", "media_height", "media_fps")}}
    return StageSpec(stage, fp)
