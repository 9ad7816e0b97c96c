"""The evaluate stage of the embedded demo (BERTScore on), recomputed with
``force=[evaluate]``, three ways side by side, alternating:

* one pass, references stored: xlebench re-evaluating (a new system, or a rescoring): the
  references' vectors were kept on disk by an earlier evaluation, only replies run through
  MiniLM, each distinct text once, and that pass gives BERTScore its token vectors and
  Sent.Sim its sentence vector;
* one pass, first evaluation: the same with no reference stored yet (the store is removed
  before the run);
* separate passes: each distinct text embedded once per metric (BERTScore's own model, then
  Sent.Sim's), as before the shared pass;
* every text: every candidate and reference embedded, per metric, as before deduplication.

The scores are the same (a text's vectors do not depend on its batch or on which pass
computed them), checked on the written tables.

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
MAIN = "from xlebench.commands.cli import main; sys.argv = ['xlebench', *sys.argv[1:]]; main()"
#: BERTScore on its own model (no shared pass); Sent.Sim still remembers its sentences.
SEPARATE = ("import sys; from xlebench.eval.metrics.bertscore import BERTScorer; "
            "BERTScorer._shared = None; " + MAIN)
#: The scoring before both: every candidate and reference embedded by each metric (one
#: MiniLM per process, as then).
EVERY_TEXT = ("import sys, functools; from xlebench.eval.metrics.bertscore import BERTScorer; "
              "BERTScorer._shared = None; "
              "BERTScorer._vectors = lambda self, texts, keep=False: self._embed(list(texts)); "
              "import xlebench.eval.metrics.encoder as enc; "
              "from xlebench.library.embed import MiniLMEmbedder; "
              "enc.sentence_encoder = functools.cache(MiniLMEmbedder); " + MAIN)


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
    runs = {"one pass, first evaluation": ["-m", "xlebench"],
            "one pass, references stored": ["-m", "xlebench"],
            "separate passes": ["-c", SEPARATE], "every text": ["-c", EVERY_TEXT]}
    best = {k: 1e9 for k in runs}
    tables = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run([sys.executable, "-m", "xlebench", f"paths.outputs={out}", *cli],
                       cwd=ROOT, check=True, capture_output=True)
        for _ in range(args.repeats):
            for name, code in runs.items():
                if name == "one pass, first evaluation":
                    for db in (out / "cache" / "embeddings").glob("text-metrics-*"):
                        db.unlink()
                seconds, tables[name] = _stage_seconds(code, out, [*cli, "force=[evaluate]"])
                best[name] = min(best[name], seconds)
    assert len({json.dumps(t, sort_keys=True) for t in tables.values()}) == 1, "scores differ"
    print(json.dumps({
        "evaluate_stage_s": {k: round(v, 2) for k, v in best.items()},
        "speedup_vs_every_text": {k: round(best["every text"] / best[k], 2)
                                  for k in runs if k.startswith("one pass")},
        "speedup_vs_separate_passes": {k: round(best["separate passes"] / best[k], 2)
                                       for k in runs if k.startswith("one pass")},
        "tables_identical": True}, indent=1))


if __name__ == "__main__":
    main()
