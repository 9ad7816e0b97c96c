"""EgoSchema's No-Q view on the default EgoSchema compile, beside the paper's sanity figure.

EgoSchema shows a text-only model the narrations of the whole clip and the five options
without the question, and reports about 20% (chance) as its sanity check: options that the
clip's narrations alone single out would not need the question. Offline there is no model, so
this reads the view as the strongest rule that uses it does: each option scored by the
content-word ROUGE-L of its best-matching stretch of the clip's narrations (the sequence of
acts as well as their words), and by plain content-word overlap; the higher-scoring option
picked (ties: the first, which the options' random order makes chance). It compiles
``tasks=[egoschema_mcq]`` on the demo configuration through the real CLI, reads the view
exactly as the ``no_q`` filter builds it (`xlebench.tasks.choices.mcq.clip_narrations`), and
prints each reader's accuracy with its 95% interval over source videos.

    python benchmarks/no_q.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from xlebench.eval.metrics import rouge_l_content
from xlebench.eval.panel.public import content_words
from xlebench.eval.provenance import source_videos
from xlebench.eval.table import clustered_ci
from xlebench.library.annotations import load_annotations
from xlebench.tasks.choices.mcq import clip_narrations

ROOT = Path(__file__).resolve().parents[1]


def compile_egoschema(out: Path) -> Path:
    cmd = [sys.executable, "-m", "xlebench", f"paths.outputs={out}", "progress=false",
           "tasks=[egoschema_mcq]", "render=none", "name=noq",
           "stages=[library,persona,plan,simulate,annotate]"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"xlebench failed:\n{proc.stderr[-3000:]}")
    return out / "benchmarks" / "noq"


def readers(view: str, options: list[str]) -> dict[str, int]:
    """Each rule's pick from the No-Q view (narrations, options)."""
    lines = [ln.partition(" - ")[2] for ln in view.splitlines() if " - " in ln]
    said = set(content_words(view))

    def rouge(o: str) -> float:
        n = max(1, len(o.split()) // 3)  # about as many acts as the option names
        return max((rouge_l_content(o, " ".join(lines[i:i + n]))
                    for i in range(max(1, len(lines) - n + 1))), default=0.0)

    def overlap(o: str) -> float:
        words = set(content_words(o))
        return len(words & said) / len(words) if words else 0.0
    return {name: max(range(len(options)), key=lambda k: (f(options[k]), -k))
            for name, f in (("narration_rouge", rouge), ("narration_overlap", overlap))}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bench = compile_egoschema(Path(tmp))
        items = [json.loads(x) for x in
                 (bench / "annotations" / "egoschema_mcq.jsonl").read_text().splitlines()]
        corpus = next(Path(tmp).glob("cache/library/*/units/*/corpus"))
        ann = load_annotations(corpus, {v for it in items for v in source_videos(it)})
        right: dict[str, list[tuple[str, float, float]]] = {}
        for it in items:
            opts, label = it["answer"]["options"], it["answer"]["label"]
            for name, pick in readers(clip_narrations(ann, it), opts).items():
                right.setdefault(name, []).append((source_videos(it)[0], float(pick == label),
                                                   1.0))
    print(f"EgoSchema No-Q view on the default egoschema_mcq compile ({len(items)} items; "
          "EgoSchema's sanity figure: about 20%, chance 20%)\n")
    print("| reader of the No-Q view | accuracy [95% CI over source videos] |")
    print("|---|---|")
    for name, rows in right.items():
        mean = 100 * sum(v for _, v, _ in rows) / len(rows)
        lo, hi = clustered_ci(rows, 1000, 0) or (float("nan"), float("nan"))
        print(f"| {name} | {mean:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] |")


if __name__ == "__main__":
    main()
