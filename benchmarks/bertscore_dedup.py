"""BERTScore with deduplicated texts vs embedding every candidate and reference, side by side
in one process on a compiled benchmark's summary replies (the oracle's, plus the generic floor
reply for every item, as the evaluate stage scores them).

Usage: python benchmarks/bertscore_dedup.py [<benchmark folder>] [--repeats 2]
(without a folder it compiles the embedded demo first, BERTScore off, into a temporary folder)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xlebench.eval.metrics.bertscore import BERTScorer
from xlebench.eval.scorers import GENERIC_SUMMARY


def pairs(bench: Path) -> tuple[list[str], list[str]]:
    items = {json.loads(x)["item_id"]: json.loads(x) for p in (bench / "annotations").glob(
        "*_summary.jsonl") for x in p.read_text().splitlines()}
    rows = [json.loads(x) for x in (bench / "results" / "oracle_text_retrieval" /
                                    "scores.jsonl").read_text().splitlines()]
    cands, refs = [], []
    for r in rows:
        if r["item_id"] in items and r["response"]:
            cands.append(r["response"])
            refs.append(items[r["item_id"]]["answer"]["text"])
    # the floor: the same references against one generic reply
    return cands + [GENERIC_SUMMARY] * len(refs), refs + refs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("benchmark", type=Path, nargs="?")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    if args.benchmark is None:
        tmp = Path(tempfile.mkdtemp(prefix="xlebench-bench-"))
        subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={tmp}",
                        "progress=false", "eval.bertscore=false", "render=none",
                        "stages=[annotate,evaluate]"], check=True, capture_output=True,
                       cwd=Path(__file__).resolve().parents[1])
        args.benchmark = tmp / "benchmarks" / "demo"
    cands, refs = pairs(args.benchmark)
    warm = BERTScorer()
    warm.f1(cands[:8], refs[:8])  # load the model outside the timings
    times = {"every text": [], "deduplicated": []}
    for _ in range(args.repeats):
        for name in times:
            s = BERTScorer()
            s.__dict__["_shared"], s.layer = warm._shared, warm.layer  # the loaded MiniLM
            start = time.perf_counter()
            if name == "every text":  # the model runs on every text (tokens() would dedup)
                run = s._shared.embedder.encode_with_tokens
                e_c, e_r = run(cands)[1], run(refs)[1]
                assert len(e_c) == len(cands) and len(e_r) == len(refs)
                out = None
            else:
                out = s.f1(cands, refs)
            times[name].append(time.perf_counter() - start)
            if out is not None:
                assert len(out) == len(cands)
    best = {k: min(v) for k, v in times.items()}
    unique = len(set(cands) | set(refs))
    print(json.dumps({"pairs": len(cands), "texts": 2 * len(cands), "unique_texts": unique,
                      "seconds": {k: round(v, 2) for k, v in best.items()},
                      "speedup": round(best["every text"] / best["deduplicated"], 2)},
                     indent=1))


if __name__ == "__main__":
    main()
