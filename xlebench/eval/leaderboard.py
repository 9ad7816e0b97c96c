"""What one evaluation records about itself, and the leaderboard over all of them.

A published benchmark gathers the results of many evaluations, run one after another or at
once, each in ``results/<system>[@<model>]/``. Each folder holds ``evaluation.json``: the
system, the model that answered (and whether it is a stand-in), the answering and judging
configuration, the fingerprints its replies and scores came from, and the date its numbers
were first produced (``SOURCE_DATE_EPOCH`` when set, as reproducible builds do; kept when a
rerun reproduces the same table). ``results/leaderboard.md`` / ``.json`` put every system's
headline on one table, subtasks by systems, with each subtask's floor: remade from the folders
present whenever any evaluation publishes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.runner.atomic import write_json, write_text
from xlebench.runner.fingerprint import strip_keys

EVALUATION = "evaluation.json"
LEADERBOARD_FILES = ("results/leaderboard.md", "results/leaderboard.json")
#: The config groups a system's answers depend on, by the model's config group.
_SECTIONS = {"vlm": ("vlm",), "answerer": ("answerer", "vlm")}


def evaluation_config(cfg: DictConfig, key: str, model: Any, system_fp: dict | None,
                      eval_fp: dict) -> dict[str, Any]:
    """The evaluation's own record, less its date and stage fingerprint (known at export)."""
    sections = _SECTIONS.get(model.section, ()) if model is not None else ()
    if "judge_llm" in eval_fp:
        sections = (*sections, "judge")
    config = {"eval": eval_fp["eval"]}
    for name in sections:
        config[name] = strip_keys(OmegaConf.to_container(cfg[name], resolve=True))
    return {"system": key, "model": model.describe() if model is not None else None,
            "config": config,
            "fingerprints": {"system": _digest(system_fp) if system_fp else None,
                             "predictions_sha256": eval_fp.get("predictions_sha256")}}


def evaluation_record(base: dict[str, Any], evaluate_fp: str, old: dict[str, Any] | None,
                      table: dict[str, Any] | None = None) -> dict[str, Any]:
    """``base`` with the evaluate stage's fingerprint, the code revision and the date; a
    rerun that reproduces the published table keeps the published date."""
    from xlebench.manifest import git_revision

    record = {**base, "fingerprints": {**base.get("fingerprints", {}),
                                       "evaluate": evaluate_fp},
              "table_sha256": _digest(table) if table is not None else None,
              "git_revision": git_revision()}
    date = today()
    if old and old.get("table_sha256") and old.get("table_sha256") == record["table_sha256"]:
        date = old.get("date", date)
    return {**record, "date": date}


def read_records(bench: Path, keys: list[str]) -> dict[str, dict]:
    """The published ``evaluation.json`` of these results keys (those that exist)."""
    out = {}
    for key in keys:
        try:
            out[key] = json.loads((Path(bench) / "results" / key / EVALUATION).read_text("utf-8"))
        except (OSError, ValueError):
            continue
    return out


def today() -> str:
    """UTC date of now, or of ``SOURCE_DATE_EPOCH`` (seconds) when set."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch and epoch.isdigit() \
        else dt.datetime.now(dt.UTC)
    return when.date().isoformat()


def _digest(obj: Any) -> str:
    blob = json.dumps(obj, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# -- the leaderboard -----------------------------------------------------------------------


def write_leaderboard(bench: Path) -> dict[str, Any] | None:
    """Remake ``results/leaderboard.{md,json}`` from every ``results/*/table.json``."""
    tables = _tables(Path(bench) / "results")
    for rel in LEADERBOARD_FILES:
        (Path(bench) / rel).unlink(missing_ok=True)
    if not tables:
        return None
    board = leaderboard(tables)
    board.update(appendix(Path(bench) / "results", tables))
    write_json(Path(bench) / LEADERBOARD_FILES[1], board)
    write_text(Path(bench) / LEADERBOARD_FILES[0], leaderboard_markdown(board))
    return board


def appendix(results: Path, tables: dict[str, dict]) -> dict[str, Any]:
    """Neptune's appendix measures over the systems that allow them (`frames_sweep`): the
    accuracy-vs-frames curve with the effort score, and the certificate probe."""
    from xlebench.eval.frames_sweep import (
        ALL_FRAMES,
        CERTIFICATE,
        certificate_probe,
        frames_summary,
        sweeps,
    )

    swept = sweeps(list(tables))
    wanted = {k for keys in swept.values() for k in keys.values()}
    wanted |= {k for k in tables if k.startswith((ALL_FRAMES + "@", CERTIFICATE + "@"))}
    scores = {k: _scores(results / k) for k in sorted(wanted)}
    return {"frames_sweep": frames_summary(tables, scores, _clip_lengths(results, swept)),
            "certificate_probe": certificate_probe(tables, scores)}


def _clip_lengths(results: Path, swept: dict[str, dict[int, str]]
                  ) -> dict[str, dict[int, float]]:
    """Per growing-clip sweep (``centred_clip``), each count's clip seconds, from the
    evaluation config its results were made with (a sweep whose records cannot be read: left
    out)."""
    from xlebench.eval.frames_sweep import CLIP, clip_length

    out = {}
    for base, by_n in swept.items():
        if not base.startswith(CLIP + "@"):
            continue
        configs = {n: _eval_config(results / key) for n, key in by_n.items()}
        if all(c is not None for c in configs.values()):
            out[base] = {n: clip_length(c, n) for n, c in configs.items()}
    return out


def _eval_config(folder: Path) -> dict | None:
    """The ``eval`` config recorded in a results folder's evaluation.json, None unreadable."""
    try:
        record = json.loads((folder / EVALUATION).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return (record.get("config") or {}).get("eval") or {}


def _scores(folder: Path) -> list[dict]:
    path = folder / "scores.jsonl"
    try:
        return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    except (OSError, ValueError):
        return []


def _tables(results: Path) -> dict[str, dict]:
    out = {}
    for path in sorted(results.glob("*/table.json")):
        try:
            out[path.parent.name] = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue  # a folder being replaced; the next publication remakes the board
    return out


def leaderboard(tables: dict[str, dict]) -> dict[str, Any]:
    """Subtasks (rows, the first table's order) by systems (columns): headline mean, CI, n.

    A row's floor is the blind panel's on the most items any system was scored on (the whole
    benchmark when one evaluation covered it), never whichever system sorts first: a system
    scored on a subset (``eval.max_logs``) carries its own n and floor in its cell."""
    systems = [{"key": k, **({"label": t["label"]} if t.get("label") else {}),
                "oracle": bool(t.get("oracle")),
                "stand_in": bool((t.get("model") or {}).get("stand_in"))}
               for k, t in tables.items()]
    subtasks: list[str] = []
    for t in tables.values():
        subtasks += [s for s in [*t.get("rows", {}), *t.get("not_applicable", {})]
                     if s not in subtasks]
    return {"systems": systems, "rows": [_row(sub, tables) for sub in subtasks],
            "by_capability": by_capability(tables)}


#: Neptune's capabilities in its Table 6's column order.
CAPABILITY_ORDER = ("TO", "CE", "SC", "VN", "CI", "CT", "PR", "GR", "CMP", "ID", "SUM", "OTH")


def by_capability(tables: dict[str, dict]) -> dict[str, dict[str, dict[str, Any]]]:
    """Neptune's Table 6 layout, per subtask whose items carry a capability: per system, each
    capability's cell (mean, CI, n) and the task average (the unweighted mean over the
    capabilities it was scored on, as Table 6's Task-avg)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key, t in tables.items():
        for sub, tags in t.get("by_tag", {}).items():
            cells = tags.get("capability")
            if not cells:
                continue
            row = {c: {k: cells[c].get(k) for k in ("mean", "ci95", "n")}
                   for c in CAPABILITY_ORDER if c in cells}
            means = [c["mean"] for c in row.values() if c["mean"] is not None]
            row["task_avg"] = {"mean": sum(means) / len(means) if means else None,
                               "n": len(means)}
            row["floor"] = {c: cells[c].get("floor", {}).get("mean") for c in row
                            if c in cells}
            out.setdefault(sub, {})[key] = row
    return out


def _row(sub: str, tables: dict[str, dict]) -> dict[str, Any]:
    """A subtask's row: its metric, n and floor from the system scored on the most items, or,
    where no system applies (none could read a source), from the validity check every
    evaluation runs over the whole subtask."""
    scored = {key: t["rows"][sub]["all"] for key, t in tables.items()
              if (t.get("rows", {}).get(sub) or {}).get("all")}
    full = max(scored.values(), key=lambda c: c.get("n") or 0, default={}) or \
        _unscored(sub, tables)
    cells: dict[str, dict] = {key: {"not_applicable": True} for key, t in tables.items()
                              if sub in t.get("not_applicable", {})}
    for key, cell in scored.items():
        cells[key] = {"mean": cell.get("mean"), "ci95": cell.get("ci95"), "n": cell.get("n")}
        if cell.get("n") != full.get("n"):
            cells[key]["floor"] = cell.get("floor")
    return {"subtask": sub, "metric": full.get("metric"), "n": full.get("n"),
            "floor": full.get("floor"), "cells": cells}


def _unscored(sub: str, tables: dict[str, dict]) -> dict[str, Any]:
    """Metric, n and floor of a subtask no system was scored on, from a validity check."""
    check = next((t["validity"][sub] for t in tables.values()
                  if (t.get("validity") or {}).get(sub)), None)
    if not check:
        return {}
    return {"metric": check.get("metric"), "n": check.get("items"),
            "floor": check.get("blind")}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _cell(c: dict | None, n: int | None) -> str:
    if not c:
        return "–"
    if c.get("not_applicable"):
        return "n/a (no source)"
    ci = c.get("ci95")
    text = _pct(c.get("mean")) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")
    if c.get("n") == n:
        return text
    return text + f" n={c['n']}" + (f", floor {subset_floor(c)}" if "floor" in c else "")


def subset_floor(cell: dict) -> str:
    """The floor of a cell scored on other items than its row's (a subset of life logs)."""
    f = cell.get("floor") or {}
    return f"{_pct(f.get('mean'))} ({f.get('member') or 'chance'})" if f else "–"


def leaderboard_markdown(board: dict[str, Any]) -> str:
    heads = [s.get("label", s["key"]).replace("|", "\\|") + (" (ORACLE)" if s["oracle"] else "")
             + (" (STAND-IN)" if s["stand_in"] else "") for s in board["systems"]]
    lines = ["# Leaderboard", "",
             "Headline metric x100 over every evaluated item [95% CI, bootstrap over source "
             "videos]; n = items (a cell scored on fewer, e.g. eval.max_logs, shows its own n "
             "and floor); floor = the strongest video-blind strategy on the row's items. ORACLE systems read the annotations the "
             "answers came from; STAND-IN ones answer without a model.", "",
             "| subtask | metric | n | floor | " + " | ".join(heads) + " |",
             "|---|---|---|---|" + "---|" * len(heads)]
    for row in board["rows"]:
        n = row.get("n")
        floor = subset_floor(row)
        cells = [_cell(row["cells"].get(s["key"]), n) for s in board["systems"]]
        lines.append(f"| {row['subtask']} | {row['metric'] or ''} | {n if n else '–'} | "
                     f"{floor} | " + " | ".join(cells) + " |")
    from xlebench.eval.frames_sweep import sweep_lines

    lines += sweep_lines(board.get("frames_sweep") or {}, board.get("certificate_probe") or {})
    for sub, systems in board.get("by_capability", {}).items():
        lines += ["", *capability_lines(sub, systems, {s["key"]: h for s, h in
                                                        zip(board["systems"], heads,
                                                            strict=True)})]
    return "\n".join(lines) + "\n"


def capability_lines(sub: str, systems: dict[str, dict], heads: dict[str, str]) -> list[str]:
    """One system per row, Neptune's capabilities as columns (its Table 6), score (n), the
    floor row first."""
    caps = [c for c in CAPABILITY_ORDER if any(c in r for r in systems.values())]
    first = next(iter(systems.values()))
    lines = [f"## {sub} per capability (Neptune's Table 6 layout)", "",
             "Accuracy x100 per capability (n items); Task-avg = the mean over the "
             "capabilities scored; floor = the strongest blind strategy on the same items.", "",
             "| system | " + " | ".join(caps) + " | Task-avg |",
             "|---|" + "---|" * (len(caps) + 1),
             "| floor | " + " | ".join(_pct(first["floor"].get(c)) for c in caps) + " | – |"]
    for key, row in systems.items():
        cells = [f"{_pct(row[c]['mean'])} ({row[c]['n']})" if c in row else "–" for c in caps]
        lines.append(f"| {heads.get(key, key)} | " + " | ".join(cells)
                     + f" | {_pct(row['task_avg']['mean'])} |")
    return lines
