"""From the ``render`` (and ``library``) config to the render's settings and media source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.media.synthetic import MediaSpec, SyntheticMediaStore
from xlebench.render.frames import FrameSpec
from xlebench.render.media import MediaResolver
from xlebench.render.render import RenderSettings
from xlebench.render.stitch import EncodeSpec


def render_settings(rc: dict[str, Any]) -> RenderSettings:
    f = rc["frames"]
    return RenderSettings(
        kind=rc["kind"],
        encode=EncodeSpec(rc["width"], rc["height"], rc["fps"], rc["crf"], rc["preset"],
                          bool(rc["burn_clock"])),
        uniform_frames=int(f["uniform_n"]), segment_fps=float(f["segment_fps"]),
        frames=FrameSpec(int(f["width"]), int(f["height"]), 1.0, float(f["segment_s"])),
    )


def media_resolver(cfg: DictConfig) -> MediaResolver:
    lib = OmegaConf.to_container(cfg.library, resolve=True)
    root = cfg.render.media_root
    if lib["kind"] == "synthetic" and root is None:
        spec = MediaSpec(int(lib["media_width"]), int(lib["media_height"]),
                         int(lib["media_fps"]))
        return MediaResolver(synthetic=SyntheticMediaStore(
            Path(cfg.paths.cache) / "media" / "synthetic", spec))
    if root is None and lib["kind"] == "ego4d":
        root = lib["root"]
    return MediaResolver(root=Path(root) if root else None,
                         report_dir=Path(cfg.paths.outputs))


