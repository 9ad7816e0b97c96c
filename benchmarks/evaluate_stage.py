"""The evaluate stage of the embedded demo (BERTScore on), recomputed with
``force=[evaluate]``: xlebench's text similarity scoring (BERTScore and Sent.Sim embed each
distinct text once per process) vs the previous (every candidate and reference embedded),
side by side, alternating. The scores
are the same (a text's vectors do not depend on its batch), checked on the written tables.

Usage: python benchmarks/evaluate_stage.py [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The previous scoring: BERTScore and Sent.Sim embed every candidate and reference (one
#: MiniLM per process, as before).
EVERY_TEXT = ("import sys; from xlebench.eval.bertscore import BERTScorer; "
              "BERTScorer._vectors = lambda self, texts: self._embed(list(texts)); "
              "import xlebench.eval.scorers as sc; "
              "from xlebench.library.embed import MiniLMEmbedder; "
              "import functools; sc._sentence_encoder = functools.cache(MiniLMEmbedder); "
              "from xlebench.cli import main; sys.argv = ['xlebench', *sys.argv[1:]]; main()")


def _stage_seconds(code: list[str], out: Path, args: list[str]) -> tuple[float, dict]:
    subprocess.run([sys.executable, *code, f"paths.outputs={out}", *args], cwd=ROOT,
                   check=True, capture_output=True)
    summary = sorted((out / "runs").glob("*/*/run_summary.json"))[-1]
    stages = {s["stage"]: s["seconds"] for s in json.loads(summary.read_text())["stages"]}
    table = out / "benchmarks" / "demo" / "results" / "oracle_text_retrieval" / "table.json"
    return stages["evaluate"], json.loads(table.read_text())["rows"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    cli = ["progress=false", "render=none"]
    runs = {"deduplicated": ["-m", "xlebench"], "every text": ["-c", EVERY_TEXT]}
    best = {k: 1e9 for k in runs}
    tables = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={out}", *cli],
                       cwd=ROOT, check=True, capture_output=True)
        for _ in range(args.repeats):
            for name, code in runs.items():
                seconds, tables[name] = _stage_seconds(code, out, [*cli, "force=[evaluate]"])
                best[name] = min(best[name], seconds)
    assert tables["deduplicated"] == tables["every text"], "scores differ"
    print(json.dumps({"evaluate_stage_s": {k: round(v, 2) for k, v in best.items()},
                      "speedup": round(best["every text"] / best["deduplicated"], 2),
                      "tables_identical": True}, indent=1))


if __name__ == "__main__":
    main()
