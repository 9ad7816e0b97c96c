"""``xlebench-score <folder> <predictions.jsonl>``: score replies against the items of any
folder holding ``annotations/<subtask>.jsonl`` — a compiled benchmark, or the X-LeBench release
read by ``xlebench-import-release`` — with the same scorers, chance floors, intervals and table
as the evaluate stage (its default settings; ``--no-bertscore`` for speed)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from xlebench.config.schema import EvalConfig
from xlebench.errors import DataError, UserError
from xlebench.eval.markdown import to_markdown
from xlebench.eval.panel.blind import panel_rows
from xlebench.eval.panel.public import script_of_folder
from xlebench.eval.score import ScoreSettings, corpus_metrics, score_spread
from xlebench.eval.table import results_table
from xlebench.runner.atomic import write_json, write_jsonl, write_text
from xlebench.tasks.recipe.registry import groups, load_recipe


def read_items(folder: Path) -> dict[str, list[dict]]:
    files = sorted((folder / "annotations").glob("*.jsonl"))
    if not files:
        raise UserError(f"{folder}: no annotations/*.jsonl; pass a compiled benchmark or a "
                        "folder written by xlebench-import-release")
    out = {}
    for path in files:
        rows = []
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(str(path), f"line {n}", f"expected a JSON item ({exc.msg})") \
                    from None
        if rows:
            out[path.stem] = rows
    return out


def score_folder(folder: Path, predictions: Path | Mapping[str, str | None], *,
                 bertscore: bool = True, n_boot: int | None = None, seed: int = 0,
                 allow_partial: bool = False) -> dict:
    """The table and per-item rows of ``predictions`` (a JSONL file, or replies in memory
    keyed by item or question id; a None reply is no reply) over the folder's items.

    Replies are cut to `MAX_REPLY_CHARS` as the evaluate stage cuts them, and the table's
    ``coverage`` says how many were cut: one file scores the same by every door."""
    from xlebench.eval.predictions import (
        MAX_REPLY_CHARS,
        capped,
        check_covers,
        check_known,
        load_predictions,
    )
    from xlebench.export.questions import resolve_ids

    defaults = {f.name: f.default_factory() if callable(f.default_factory) else f.default
                for f in fields(EvalConfig)}
    by_sub = in_compile_order(folder, read_items(folder))
    recipes = {sub: load_recipe(sub) for sub in by_sub}
    items = [it for sub in by_sub for it in sorted(by_sub[sub], key=lambda i: i["item_id"])]
    check_item_fields(folder, by_sub)
    if isinstance(predictions, Mapping):  # replies in memory (`xlebench.api`)
        source, partial = Path("predictions"), "allow_partial=True"
        given = in_memory_replies(predictions)
    else:
        source, partial, given = predictions, "--allow-partial", load_predictions(predictions)
    responses, cut = capped(resolve_ids(source, given, items))
    check_known(source, responses, {it["item_id"] for it in items})
    if not allow_partial:
        check_covers(source, responses, items, partial=partial)
    settings = ScoreSettings.from_eval({**defaults, "bertscore": bertscore})
    scorer = None
    if bertscore:
        from xlebench.eval.metrics.bertscore import BERTScorer

        scorer = BERTScorer()
    rows = score_spread(items, responses, recipes, settings, scorer)
    panel = panel_rows(items, recipes, settings, seed=seed, draws=defaults["floor_draws"],
                       bertscorer=scorer, script=script_of_folder(folder))
    table = results_table(rows, panel, groups=groups(list(recipes.values())),
                          corpus=corpus_metrics(recipes),
                          n_boot=defaults["bootstrap"] if n_boot is None else n_boot, seed=seed,
                          paper={n: r.paper_layout for n, r in recipes.items()})
    table["bertscore"] = scorer.describe() if scorer is not None else None
    table.update(layout=defaults["layout"],
                 paper_metrics={n: list(r.paper_layout) for n, r in recipes.items()},
                 coverage={"items": len(items), "answered": len(responses),
                           "truncated": cut, "max_reply_chars": MAX_REPLY_CHARS})
    return {"table": table, "rows": rows}


def in_memory_replies(predictions: Mapping[Any, Any]) -> dict[str, str]:
    """Replies held in memory, checked as `load_predictions` checks a file's lines: ids and
    replies are strings; a None reply is no reply (it counts as missing, scored as wrong),
    never the text "None"."""
    out = {}
    for key, reply in predictions.items():
        if not isinstance(key, str):
            raise UserError(f"predictions: key {key!r} is a {type(key).__name__}; key each "
                            "reply by its question_id or item_id (a string)")
        if reply is None:
            continue
        if not isinstance(reply, str):
            raise UserError(f"predictions[{key!r}]: the reply is a {type(reply).__name__} "
                            f"({str(reply)[:40]!r}); give the reply as text (a string), or "
                            "None for no reply")
        out[key] = reply
    return out


#: What every scorer reads of an item: a hand-edited annotation without them is one line.
ITEM_FIELDS = {"item_id": str, "lifelog_id": str, "subtask": str}


def check_item_fields(folder: Path, by_sub: Mapping[str, list[dict]]) -> None:
    """Each item is an object with a string ``item_id``, ``lifelog_id`` and ``subtask`` that
    names its file, and ``answer``; a hand-edited line that is not is named (file, line,
    field) before any scoring."""
    for sub, rows in by_sub.items():
        path = folder / "annotations" / f"{sub}.jsonl"
        for n, row in enumerate(rows, start=1):
            if not isinstance(row, dict):
                raise DataError(str(path), f"line {n}", "expected a JSON object (an item)")
            for name, kind in ITEM_FIELDS.items():
                if not isinstance(row.get(name), kind):
                    raise DataError(str(path), f"line {n}.{name}", f"expected a string, got "
                                    f"{row.get(name)!r}", "restore the line as the compile "
                                    "wrote it, or compile the benchmark again")
            if row["subtask"] != sub:
                raise DataError(str(path), f"line {n}.subtask", f"{row['subtask']!r} is not "
                                f"this file's subtask {sub!r}", "move the item to "
                                f"annotations/{row['subtask']}.jsonl")
            if "answer" not in row:
                raise DataError(str(path), f"line {n}.answer", "missing", "restore the line "
                                "as the compile wrote it, or compile the benchmark again")


#: The order of the default recipes (conf/config.yaml), the paper's Table 5 order.
PAPER_ORDER = ("object_retrieval", "people_retrieval", "moment_retrieval", "single_summary",
               "multi_summary", "holistic_summary", "action_counting", "summary_ordering")


def in_compile_order(folder: Path, by_sub: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Subtasks in the order the evaluate stage lists them: the compiling run's recipe order
    (its manifest), else the paper's, then the rest by name."""
    order: list[str] = []
    try:
        order = list(json.loads((folder / "manifest.json").read_text("utf-8"))
                     .get("config", {}).get("tasks", {}))
    except (OSError, ValueError):
        pass
    order += [s for s in PAPER_ORDER if s not in order]
    rank = {s: k for k, s in enumerate(order)}
    return dict(sorted(by_sub.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="xlebench-score", description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("predictions", type=Path, help='JSONL of {"item_id", "response"}')
    ap.add_argument("--out", type=Path, default=None,
                    help="write table.json, table.md and scores.jsonl here (a new folder)")
    ap.add_argument("--no-bertscore", action="store_true")
    ap.add_argument("--bootstrap", type=int, default=None)
    ap.add_argument("--layout", choices=("validity", "paper"), default=None,
                    help="the printed table's metrics: each subtask's headline (default) or "
                         "each paper's own, as its results table prints them")
    ap.add_argument("--allow-partial", action="store_true",
                    help="score items the file does not predict as wrong answers (refused "
                         "without it)")
    args = ap.parse_args(argv)
    try:
        if args.out is not None:
            check_new_folder(args.out)  # before the scoring, not after it
        res = score_folder(args.folder, args.predictions, bertscore=not args.no_bertscore,
                           n_boot=args.bootstrap, allow_partial=args.allow_partial)
        if args.layout:
            res["table"]["layout"] = args.layout
        from xlebench.eval.predictions import cut_note

        note = cut_note(res["table"]["coverage"])
        md = to_markdown(res["table"], f"predictions-{args.predictions.stem}",
                         [note] if note else [])
        if note:
            print(f"warning: {note}", file=sys.stderr)
        if args.out is not None:
            write_out(args.out, res, md)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(md)
    return 0


def check_new_folder(out: Path) -> None:
    """``--out`` names a new folder whose parent takes a write: checked by writing there
    (permission bits say nothing to root, nor of a read-only mount or a full disk)."""
    if out.exists() or out.is_symlink():
        raise UserError(f"--out {out}: already exists; choose a new folder")
    parent = out.absolute().parent
    if parent.exists() and not parent.is_dir():
        raise UserError(f"--out {out}: {parent} is a file, not a folder; choose a new "
                        "folder's path")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".xlebench-write-check-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write in {parent} ({exc.strerror or exc}); "
                        "choose a folder you can write, or free space") from None


def write_out(out: Path, res: dict, md: str) -> None:
    """The three files into a staging folder renamed to ``out`` once all are written:
    a write that fails leaves no half-written folder."""
    staging = out.with_name(f".{out.name}.staging-{os.getpid()}")
    try:
        write_json(staging / "table.json", res["table"])
        write_text(staging / "table.md", md)
        write_jsonl(staging / "scores.jsonl", res["rows"])
        staging.rename(out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise UserError(f"--out {out}: cannot write {exc.filename or out} "
                        f"({exc.strerror or exc}); choose a folder you can write, or free "
                        "space") from None


if __name__ == "__main__":
    sys.exit(main())
