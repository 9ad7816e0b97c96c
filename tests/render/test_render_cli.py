"""The render stage through the real CLI: missing media, resume after SIGKILL, rebuild."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, cli_env, last_summary, run_cli
from xlebench.commands.rebuild import main as rebuild_main
from xlebench.media.probe import probe
from xlebench.render.render import sha256_file

SMALL = ["library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
         "persona.mbti=[INTJ,ENFP,ISTP]", "progress=false",
         "render.max_logs=null", "stages=[library,persona,plan,simulate,render]"]


def test_missing_media_lists_every_uid_and_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "ego4d"
    (empty / "v2" / "full_scale").mkdir(parents=True)
    proc = run_cli(tmp_path / "out", *SMALL, "render=concat", f"render.media_root={empty}",
                   check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "video file(s) missing" in proc.stderr and "Traceback" not in proc.stderr
    listing = tmp_path / "out" / "missing_uids.txt"
    logs = [json.loads(p.read_text()) for p in
            (tmp_path / "out" / "cache" / "simulate").glob("*/units/*/record.json")]
    wanted = sorted({s["video_uid"] for lg in logs for s in lg["segments"]})
    assert listing.read_text().split() == wanted and len(wanted) >= 4
    assert not (tmp_path / "out" / "benchmarks" / "demo" / "videos").exists()


def _done(out: Path) -> int:
    return len(list((out / "cache" / "render").glob("*/done/*.json")))


@pytest.mark.ffmpeg
def test_interrupted_render_resumes_and_rebuilds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_cli(out, *SMALL[:-1], "stages=[library,persona,plan,simulate]")
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", *SMALL, "render=concat"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=cli_env(), start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while _done(out) < 1 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = _done(out)
    assert 1 <= finished < 3, "kill the run between two logs"
    run_cli(out, *SMALL, "render=concat")
    summary = last_summary(out)["render"]
    assert (summary["cached"], summary["done"]) == (finished, 3 - finished)

    bench = out / "benchmarks" / "demo"
    records = {}
    for p in sorted((bench / "lifelogs").glob("*.json")):
        lg = json.loads(p.read_text())
        lg["render"] = json.loads((bench / "videos" / p.name).read_text())
        records[lg["lifelog_id"]] = lg
        video = bench / "videos" / f"{lg['lifelog_id']}.mp4"
        info = probe(video)
        n = len(lg["segments"])
        assert abs(info.duration_s - lg["render"]["duration_s"]) <= n / 2
        assert abs(lg["render"]["duration_s"] - lg["total_duration_s"]) <= n / 2
        assert sha256_file(video) == lg["render"]["video"]["sha256"]
    manifest = json.loads((bench / "manifest.json").read_text())
    assert len(manifest["counts"]["render"]["sha256"]) == 6

    # Share without videos: rebuild them from "your own" media laid out as Ego4D's.
    media = tmp_path / "ego4d" / "v2" / "full_scale"
    media.mkdir(parents=True)
    for f in (out / "cache" / "media" / "synthetic").rglob("*.mp4"):
        os.symlink(f, media / f.name)
    shared = tmp_path / "shared"
    for sub in ("lifelogs", "videos"):  # timelines and render sidecars, no video
        (shared / sub).mkdir(parents=True)
        for p in (bench / sub).glob("*.json"):
            (shared / sub / p.name).write_bytes(p.read_bytes())
    (shared / "manifest.json").write_bytes((bench / "manifest.json").read_bytes())
    assert rebuild_main([str(shared), "--media-root", str(tmp_path / "ego4d")]) == 0
    for lid, lg in records.items():
        assert sha256_file(shared / "videos" / f"{lid}.mp4") == lg["render"]["video"]["sha256"]


def test_a_frame_filter_names_every_missing_file_at_once(tmp_path: Path) -> None:
    """Neptune's C.1 filters read the library's media: absent files are listed all together
    (as the render stage lists them), not one per item."""
    empty = tmp_path / "ego4d"
    (empty / "v2" / "full_scale").mkdir(parents=True)
    proc = run_cli(tmp_path / "out", *SMALL[:-1], "stages=[annotate]", "render=none",
                   "tasks=[neptune_qa]", f"render.media_root={empty}",
                   "tasks.neptune_qa.filters=[{kind: static_video, max_frames: 6}]", check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    logs = [json.loads(p.read_text()) for p in
            (tmp_path / "out" / "cache" / "simulate").glob("*/units/*/record.json")]
    wanted = sorted({s["video_uid"] for lg in logs for s in lg["segments"]})
    assert f"{len(wanted)} video file(s) missing" in proc.stderr and len(wanted) >= 4
    assert "Traceback" not in proc.stderr
