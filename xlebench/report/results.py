"""What is derived from every system's results: the leaderboard (``results/leaderboard.*``) and
the report's results page (``report/results.html`` with its item browser).

Built once, at publication, from the folder being published — this run's results, every
evaluation published before and, when another run published meanwhile, that run's too — so no
stage is re-entered after publication begins and scoring one more system never recomputes a
page. Everything is read from the folder: the results tables and scores, the items' queries and
answers (``annotations/``), the recipes' validity checks (``stats/tasks.json``).
"""

from __future__ import annotations

from pathlib import Path

from xlebench.eval.leaderboard import LEADERBOARD_FILES, write_leaderboard
from xlebench.report import pages
from xlebench.runner.atomic import write_text
from xlebench.runner.textfile import read_published_json, read_published_jsonl


def derive(folder: Path) -> None:
    """Remake the leaderboard, and the results page where the folder has a report."""
    write_leaderboard(folder)
    if (folder / "report" / "index.html").is_file():
        write_results_page(folder)


def write_results_page(folder: Path) -> None:
    """Every system's results in ``folder``, with a per-item browser (script files, each under
    a megabyte, so the page opens from disk)."""
    tables, scores = {}, {}
    for sub in sorted((folder / "results").glob("*/")):
        if (sub / "table.json").is_file():
            tables[sub.name] = read_published_json(sub / "table.json")
            path = sub / "scores.jsonl"
            scores[sub.name] = read_published_jsonl(path) if path.is_file() else []
    board = folder / LEADERBOARD_FILES[1]
    leaderboard = read_published_json(board) if board.is_file() else None
    stats = folder / "stats" / "tasks.json"
    validity = read_published_json(stats).get("validity") if stats.is_file() else None
    items = _items(folder)
    scripts = pages.results_items_scripts(scores, items)
    write_text(folder / "report" / "results.html",
               pages.results_page(tables=tables, scores=scores, items=items, validity=validity,
                                  leaderboard=leaderboard, item_files=len(scripts)))
    for old in (folder / "report").glob("results-items*.js"):
        old.unlink()
    for k, script in enumerate(scripts):
        write_text(folder / "report" / pages.items_file(k), script)


def _items(folder: Path) -> dict[str, dict]:
    """Each item's query and answer text, by item id (in id order)."""
    out: dict[str, dict] = {}
    for path in sorted((folder / "annotations").glob("*.jsonl")):
        for it in read_published_jsonl(path):
            out[it["item_id"]] = {"query": it["query"], "answer": {"text": it["answer"]["text"]}}
    return dict(sorted(out.items()))
