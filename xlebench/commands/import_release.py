"""``xlebench-import-release``: read the X-LeBench release into a folder `xlebench-score` reads
(see `xlebench.export.release_import`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xlebench.errors import UserError
from xlebench.export.release_import import __doc__ as ABOUT
from xlebench.export.release_import import import_release, write_import


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="xlebench-import-release",
                                 description=(ABOUT or "").split("\n\n")[0])
    ap.add_argument("release", type=Path, help="folder of simulation_*_annotation.json files")
    ap.add_argument("out", type=Path, help="new folder for annotations/, lifelogs/, import.json")
    args = ap.parse_args(argv)
    try:
        if args.out.exists():
            raise UserError(f"{args.out}: already exists; choose a new folder (nothing is "
                            "overwritten)")
        imp = import_release(args.release)
        write_import(imp, args.out)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    n = sum(len(v) for v in imp.items.values())
    print(f"imported {len(imp.logs)} life logs, {n} items into {args.out}"
          + (f"; skipped {sum(imp.skipped.values())} entries (see import.json)"
             if imp.skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
