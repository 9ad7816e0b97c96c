"""What a unit costs to record: the previous pattern (pretty-printed record and marker, each a
temporary sibling, fsync and rename) vs the runner's (compact record and marker written in the
unit's private folder, one ``syncfs`` for the whole stage), side by side, alternating, on the
432 life-log records of the paper grid when a compiled grid is given, else on synthetic ones.

A second pair is the simulate stage's own unit: it writes the life log's published (indented)
form anyway; the runner then either encodes and writes the record compactly beside it (until
2026-11-23) or hard-links ``record.json`` to the published file (``record_file``).

Usage: python benchmarks/unit_writes.py [--units 432] [--from <cache>/simulate/<fp>]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from functools import partial
from pathlib import Path

from xlebench.runner.atomic import barrier, dumps, dumps_compact, write_text
from xlebench.runner.pretty import _reference_dumps


def _records(source: Path | None, n: int) -> list[dict]:
    if source is not None:
        return [json.loads(p.read_text()) for p in sorted(source.glob("units/*/record.json"))]
    seg = {"index": 0, "video_uid": "0" * 36, "start_s": 25200, "end_s": 26100,
           "chunk": {"chunk_id": "c01", "activity": "cooking breakfast", "scenarios": ["Cooking"]},
           "match": {"score": 0.512345, "candidates": [{"video_uid": "1" * 36, "score": 0.5}] * 5}}
    return [{"lifelog_id": f"log{i}", "segments": [dict(seg, index=k) for k in range(9)]}
            for i in range(n)]


def previous(root: Path, records: list[dict]) -> None:
    for i, rec in enumerate(records):
        unit = root / "units" / f"u{i}"
        unit.mkdir(parents=True)
        # the standard library's indenting encoder, a temporary sibling, fsync, rename
        write_text(unit / "record.json", _reference_dumps(rec) + "\n")
        write_text(root / "done" / f"u{i}.json",
                   _reference_dumps({"unit": f"u{i}", "attempts": 1}) + "\n")


def current(root: Path, records: list[dict]) -> None:
    (root / "done").mkdir(parents=True)
    for i, rec in enumerate(records):
        unit = root / "units" / f"u{i}"
        unit.mkdir(parents=True)
        (unit / "record.json").write_text(dumps_compact(rec), encoding="utf-8")
        (root / "done" / f"u{i}.json").write_text(dumps_compact({"unit": f"u{i}",
                                                                 "attempts": 1}))
    barrier(root)


def _published(root: Path, records: list[dict], link: bool) -> None:
    (root / "done").mkdir(parents=True)
    for i, rec in enumerate(records):
        unit = root / "units" / f"u{i}"
        unit.mkdir(parents=True)
        (unit / "lifelog.json").write_text(dumps(rec), encoding="utf-8")
        if link:
            os.link(unit / "lifelog.json", unit / "record.json")
        else:
            (unit / "record.json").write_text(dumps_compact(rec), encoding="utf-8")
        (root / "done" / f"u{i}.json").write_text(dumps_compact({"unit": f"u{i}",
                                                                 "attempts": 1}))
    barrier(root)


PAIRS = {"previous": previous, "current": current,
         "published_and_compact": partial(_published, link=False),
         "published_linked": partial(_published, link=True)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--units", type=int, default=432)
    ap.add_argument("--from", dest="source", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    records = _records(args.source, args.units)
    best = {name: 1e9 for name in PAIRS}
    with tempfile.TemporaryDirectory(dir=os.environ.get("XLEBENCH_BENCH_DIR")) as tmp:
        for r in range(args.repeats):
            for name, fn in PAIRS.items():
                root = Path(tmp) / f"{name}{r}"
                start = time.perf_counter()
                fn(root, records)
                best[name] = min(best[name], time.perf_counter() - start)
    print(json.dumps({"units": len(records),
                      "seconds": {k: round(v, 3) for k, v in best.items()},
                      "ms_per_unit": {k: round(v / len(records) * 1000, 3)
                                      for k, v in best.items()},
                      "speedup": round(best["previous"] / best["current"], 2),
                      "simulate_unit_speedup": round(best["published_and_compact"]
                                                     / best["published_linked"], 2)},
                     indent=1))


if __name__ == "__main__":
    main()
