"""The side-by-side summary of a sweep (``xlebench -m seed=0,1,2 ...``).

Each job of a sweep publishes its own benchmark under ``benchmarks/<name>/<overrides>/``;
``benchmarks/<name>/summary.md`` (and ``.json``) puts them next to each other: what each job
changed, its life logs and items per subtask, and every system's headline per subtask — so
seeds or variants are compared by looking, not by opening each folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xlebench.runner.atomic import write_json, write_text


def sweep_summary(root: Path) -> dict[str, Any] | None:
    """Read every published job folder under ``root`` (a sweep's benchmark name)."""
    jobs = {}
    for manifest in sorted(Path(root).glob("*/manifest.json")):
        folder = manifest.parent
        try:
            m = json.loads(manifest.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        board = folder / "results" / "leaderboard.json"
        jobs[folder.name] = {
            "lifelogs": m.get("counts", {}).get("simulate", {}).get("lifelogs")
            or len(list((folder / "lifelogs").glob("*.json"))),
            "items": m.get("counts", {}).get("annotate", {}).get("items", {}),
            "leaderboard": json.loads(board.read_text("utf-8")) if board.is_file() else None}
    return {"jobs": jobs} if jobs else None


def _headlines(job: dict[str, Any]) -> dict[tuple[str, str], str]:
    out = {}
    board = job.get("leaderboard") or {"rows": [], "systems": []}
    for row in board["rows"]:
        for system, cell in row["cells"].items():
            if cell.get("mean") is not None:
                out[(row["subtask"], system)] = f"{100 * cell['mean']:.1f}"
    return out


def _differing(names: list[str]) -> dict[str, str]:
    """Each job's overrides less those every job shares (``seed=1`` rather than the whole
    folder name)."""
    parts = {n: n.split("__") for n in names}
    common = set.intersection(*(set(p) for p in parts.values())) if len(names) > 1 else set()
    return {n: "__".join(x for x in p if x not in common) or n for n, p in parts.items()}


def summary_markdown(summary: dict[str, Any]) -> str:
    jobs = summary["jobs"]
    names = list(jobs)
    short = _differing(names)
    shared = sorted(set(names[0].split("__")) - set(short[names[0]].split("__"))) \
        if len(names) > 1 else []
    lines = ["# Sweep summary", "", "One column per job (the overrides it does not share with "
             "the others); headline metrics x100 (each job's results/leaderboard.md has "
             "intervals and floors)." + (f" Every job: `{'__'.join(shared)}`." if shared
                                         else ""), "",
             "| | " + " | ".join(f"`{short[n]}`" for n in names) + " |",
             "|---|" + "---|" * len(names),
             "| life logs | " + " | ".join(str(jobs[n]["lifelogs"]) for n in names) + " |"]
    subtasks = sorted({s for j in jobs.values() for s in j["items"]})
    lines += [f"| items: {s} | " + " | ".join(str(jobs[n]["items"].get(s, 0)) for n in names)
              + " |" for s in subtasks]
    heads = {n: _headlines(jobs[n]) for n in names}
    keys = sorted({k for h in heads.values() for k in h})
    lines += [f"| {sub} · {system} | " + " | ".join(heads[n].get((sub, system), "–")
                                                    for n in names) + " |"
              for sub, system in keys]
    return "\n".join(lines) + "\n"


def write_sweep_summary(root: Path) -> Path | None:
    summary = sweep_summary(root)
    if summary is None:
        return None
    write_json(Path(root) / "summary.json", summary)
    write_text(Path(root) / "summary.md", summary_markdown(summary))
    return Path(root) / "summary.md"
