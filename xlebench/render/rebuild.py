"""Regenerate a shared benchmark's videos from its timelines and your own Ego4D media.

A compiled benchmark can be shared without its videos: the life-log timelines, the render
sidecars (``videos/<log>.json``) and ``manifest.json`` say exactly what to stitch. This command re-renders each
log from ``<media_root>/v2/full_scale/<video_uid>.mp4`` with the benchmark's own render
settings and compares the result with the recorded sha256 (byte-identical with the same media
and ffmpeg build; otherwise the mapping and durations are still checked).

Usage: xlebench-rebuild BENCHMARK_DIR --media-root EGO4D_ROOT [--out DIR]
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from xlebench.errors import UserError
from xlebench.library.records import LibraryVideo
from xlebench.render.media import MediaResolver
from xlebench.render.render import VIDEO, VTT, render_log
from xlebench.render.settings import render_settings


def rebuild(benchmark: Path, media_root: Path, out: Path) -> dict:
    manifest_path = benchmark / "manifest.json"
    if not manifest_path.is_file():
        raise UserError(f"{manifest_path}: not found; pass the folder of a compiled benchmark")
    rc = json.loads(manifest_path.read_text("utf-8"))["config"].get("render")
    if not rc or rc.get("kind", "none") == "none":
        raise UserError(f"{manifest_path}: this benchmark was compiled with render=none; "
                        "there are no videos to rebuild")
    settings = render_settings(rc)
    logs = []
    for path in sorted((benchmark / "lifelogs").glob("*.json")):
        sidecar = benchmark / "videos" / path.name
        if sidecar.is_file():  # rendered logs have a sidecar beside their video
            logs.append({**json.loads(path.read_text("utf-8")),
                         "render": json.loads(sidecar.read_text("utf-8"))})
    resolver = MediaResolver(root=media_root, report_dir=out)
    resolver.check(s["video_uid"] for lg in logs for s in lg["segments"])
    report = {"rebuilt": 0, "identical": 0, "different": []}
    for lg in logs:
        with tempfile.TemporaryDirectory(dir=out, prefix=".rebuild-") as tmp:
            rec = render_log(lg["segments"], lambda uid: resolver.ensure(_stub(uid)),
                             settings, Path(tmp))
            for name, suffix in ((VIDEO, ".mp4"), (VTT, ".vtt")):
                dest = out / "videos" / f"{lg['lifelog_id']}{suffix}"
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(Path(tmp) / name), dest)
        report["rebuilt"] += 1
        if rec["video"]["sha256"] == lg["render"]["video"]["sha256"]:
            report["identical"] += 1
        else:
            report["different"].append({
                "lifelog_id": lg["lifelog_id"],
                "duration_s": [lg["render"]["duration_s"], rec["duration_s"]],
                "mapping_equal": rec["mapping"] == lg["render"]["mapping"]})
    return report


def _stub(uid: str) -> LibraryVideo:
    return LibraryVideo(uid, 0.0, "", None, (), "uncertain", "mixed", "")
