"""Write docs/samples.md: ten items drawn at random (seed 0) from each recipe's annotations of
a compiled benchmark.

    xlebench "tasks=[...every offline recipe...]" stages=[annotate]
    python docs/make_samples.py outputs/benchmarks/demo > docs/samples.md
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

RECIPES = ("object_retrieval,people_retrieval,moment_retrieval,single_summary,multi_summary,"
           "holistic_summary,action_counting,summary_ordering,egoschema_mcq,summary_mcq,"
           "multihop_qa,neptune_qa,neptune_mcq,event_srl,event_roles")


def _line(it: dict) -> str:
    answer = it["answer"]["text"].replace("\n", " / ")
    tag = ", ".join(f"{k}: {v}" for k, v in sorted((it.get("tags") or {}).items()))
    return f"* **Q** {it['query']}<br>**A** {answer}" + (f" ({tag})" if tag else "")


def main(bench: Path) -> str:
    out = ["# Ten sample items per recipe (the demo)", "",
           "Generated from the demo configuration with every offline recipe:", "", "```bash",
           f'xlebench "tasks=[{RECIPES}]" stages=[annotate]',
           "python docs/make_samples.py outputs/benchmarks/demo > docs/samples.md", "```", "",
           "Ten items drawn at random (seed 0) from each `annotations/<recipe>.jsonl`; "
           "synthetic library, so the narrations and summaries are the generator's "
           "(`xlebench/library/synthetic_text.py`, `xlebench/data/actions.yaml`).", ""]
    for path in sorted((bench / "annotations").glob("*.jsonl")):
        items = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        picked = random.Random(0).sample(items, min(10, len(items)))
        out += [f"<details><summary><code>{path.stem}</code> ({len(items)} items on the demo)"
                "</summary>", "", *(_line(it) for it in picked), "", "</details>", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(main(Path(sys.argv[1])))
