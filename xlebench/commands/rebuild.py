"""``xlebench-rebuild``: re-render a published benchmark's life-log videos from local Ego4D media
(see `xlebench.render.rebuild`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from xlebench.errors import UserError
from xlebench.render.rebuild import __doc__ as ABOUT
from xlebench.render.rebuild import rebuild


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="xlebench-rebuild",
                                 description=(ABOUT or "").split("\n\n")[0])
    ap.add_argument("benchmark", type=Path)
    ap.add_argument("--media-root", type=Path, required=True,
                    help="folder with v2/full_scale/<video_uid>.mp4")
    ap.add_argument("--out", type=Path, default=None, help="default: the benchmark folder")
    args = ap.parse_args(argv)
    out = args.out or args.benchmark
    out.mkdir(parents=True, exist_ok=True)
    try:
        report = rebuild(args.benchmark, args.media_root, out)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
