"""xlebench from Python: compile, open, answer and score a benchmark in a notebook.

The command line and this module share one path: `compile` composes the packaged config
with Hydra's compose API from the same overrides the CLI takes, checks it with the same rules
and runs the same pipeline, so it reads and writes the same cache and publishes the same bytes.
`Benchmark` opens what was published (by name or folder) and reads it as records, a pandas
DataFrame or a `datasets.Dataset`; `Benchmark.score` scores replies held in memory with the
recipes' own scorers and returns the table `xlebench-score` prints (n, interval, floor),
writing nothing unless asked to publish; `Benchmark.evaluate` answers the questions-only view
with any Python callable. Errors are exceptions carrying the CLI's one-line message
(`xlebench.errors.UserError` for the user's input).

    import xlebench as xb
    bench = xb.compile(["persona.locations=[Japan]", "persona.mbti=[INTJ]", "name=mini"])
    scores = bench.evaluate(lambda q: "I do not know")
    print(scores.markdown)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xlebench.errors import UserError

if TYPE_CHECKING:
    import datasets
    import pandas as pd

__all__ = ["Benchmark", "CompileFailed", "Scores", "compile", "open_benchmark"]


class CompileFailed(RuntimeError):
    """Some units of a stage failed (not the user's input): nothing was published. Completed
    units are cached, so the same call resumes where this one stopped."""


def compile(overrides: Sequence[str] = (), *, values: Mapping[str, Any] | None = None,
            outputs: str | Path | None = None) -> Benchmark:  # noqa: A001 - the verb users look for
    """Compile (or re-publish from the cache) the benchmark the CLI would compile with
    ``overrides`` (e.g. ``["tasks=[neptune_qa]", "name=neptune"]``), and open it.

    ``values`` sets settings as data (``{"eval.name": "模型 v2", "seed": 3}``): a string
    there is the value itself, never override grammar (no ``${...}``, quoting or sweep
    commas), so a name or a path from a variable is safe; choose config groups' options with
    ``overrides``. ``outputs`` is ``paths.outputs`` (default: ``outputs`` under the working
    directory, as for the CLI). Raises `UserError` with the CLI's one-line message for a bad
    override, value or input, `CompileFailed` when units failed."""
    from xlebench.commands.compose import composed

    given = dict(values or {}) if isinstance(values, Mapping) or values is None else values
    if outputs is not None and isinstance(given, dict):
        given["paths.outputs"] = str(outputs)
    with composed(_overrides(overrides), given) as cfg:
        from xlebench.commands.validate import validate_config
        from xlebench.pipeline import run_pipeline

        validate_config(cfg)
        result = run_pipeline(cfg)
    if result.summary.waiting:
        raise CompileFailed("a shard job cached its units; run again without shard.* to "
                            "merge and publish")
    if result.benchmark_dir is None:
        raise CompileFailed("some units failed; the benchmark folder was not updated. "
                            "Completed units are cached: fix the cause and call again to "
                            "resume")
    return Benchmark(Path(result.benchmark_dir))


def _overrides(overrides: Any) -> list[str]:
    """The CLI's overrides as a list of strings: a lone string (``"name=x"``, which Python
    would read as the letters n, a, m, e, ...) or a non-string element is one line."""
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Sequence):
        raise UserError(f"compile(overrides={overrides!r}): expected a list of overrides as "
                        "the command line takes them, e.g. compile([\"name=x\", "
                        "\"tasks=[neptune_qa]\"])")
    bad = [o for o in overrides if not isinstance(o, str)]
    if bad:
        raise UserError(f"compile(overrides=...): {bad[0]!r} ({type(bad[0]).__name__}) is not "
                        "text; give each override as the command line spells it, e.g. \"seed=3\"")
    return list(overrides)


def _kept_predictions(folder: Path, predictions: Mapping[str, str]) -> Path:
    """Replies held in memory as a predictions file named by its content's digest."""
    from xlebench.eval.predictions import write_predictions
    from xlebench.runner.atomic import dumps

    digest = hashlib.sha256(dumps(dict(sorted(predictions.items()))).encode()).hexdigest()
    path = folder / f"{digest[:16]}.jsonl"
    return path if path.is_file() else write_predictions(path, predictions)


def open_benchmark(ref: str | Path, *, outputs: str | Path = "outputs") -> Benchmark:
    """A published benchmark: a folder holding ``manifest.json``, or a name under
    ``<outputs>/benchmarks`` (as ``benchmark=<ref>`` on the command line)."""
    from xlebench.commands.adopt import resolve

    return Benchmark(resolve(str(ref), [f"paths.outputs={outputs}"]))


@dataclass
class Scores:
    """One system's scores: ``table`` is what ``table.json`` holds (per subtask and
    category: mean, 95% interval, n, floor), ``rows`` the per-item scores."""

    system: str
    table: dict[str, Any]
    rows: list[dict[str, Any]] = field(repr=False)

    @property
    def markdown(self) -> str:
        """The table as ``xlebench-score`` prints it."""
        from xlebench.eval.markdown import to_markdown

        return to_markdown(self.table, self.system)

    def summary(self) -> pd.DataFrame:
        """One row per subtask and category: metric, mean, interval, n, and the floor with
        the blind member that reached it."""
        import pandas as pd

        out = []
        for sub, cells in self.table["rows"].items():
            for category, c in cells.items():
                floor = c.get("floor") or {}
                lo, hi = c.get("ci95") or (None, None)
                out.append({"subtask": sub, "category": category, "metric": c.get("metric"),
                            "mean": c.get("mean"), "ci_low": lo, "ci_high": hi, "n": c.get("n"),
                            "floor": floor.get("mean"), "floor_member": floor.get("member")})
        return pd.DataFrame(out)

    def to_pandas(self) -> pd.DataFrame:
        """The per-item scores."""
        import pandas as pd

        return pd.DataFrame(self.rows)


class Benchmark:
    """A published benchmark folder, read-only (publishing goes through the pipeline)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).resolve()
        if not (self.path / "manifest.json").is_file():
            raise UserError(f"{self.path}: no manifest.json; not a published benchmark")

    def __repr__(self) -> str:
        return f"Benchmark({str(self.path)!r}, subtasks={self.subtasks})"

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``manifest.json``: what was compiled, from what, with which fingerprints."""
        from xlebench.errors import DataError

        path = self.path / "manifest.json"
        try:
            data = json.loads(path.read_text("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise DataError(str(path), "$", f"expected the JSON manifest xlebench wrote "
                            f"({exc})", "compile the benchmark again (overwrite=true)") from None
        if not isinstance(data, dict):
            raise DataError(str(path), "$", "expected a JSON object",
                            "compile the benchmark again (overwrite=true)")
        return data

    @property
    def name(self) -> str:
        return self.path.name

    @cached_property
    def _items(self) -> dict[str, list[dict]]:
        from xlebench.commands.score import in_compile_order, read_items

        return in_compile_order(self.path, read_items(self.path))

    @property
    def subtasks(self) -> list[str]:
        """The subtasks with items, in the compile's recipe order."""
        return list(self._items)

    def items(self, subtask: str | None = None) -> list[dict[str, Any]]:
        """The items (with answers) of one subtask, or of all in subtask order."""
        return [dict(it) for it in self._select(subtask)]

    def to_pandas(self, subtask: str | None = None) -> pd.DataFrame:
        """The items as the Hugging Face export's rows (its column names and types)."""
        from xlebench.export.hf import items_table

        return items_table(self._select(subtask)).to_pandas()

    def to_dataset(self, subtask: str | None = None) -> datasets.Dataset:
        """The items as a `datasets.Dataset` with the export's Arrow schema (``pip install
        'xlebench[hf]'``)."""
        try:
            import datasets
        except ImportError:
            raise UserError("to_dataset needs the datasets package: pip install "
                            "'xlebench[hf]'") from None
        from xlebench.export.hf import items_table

        return datasets.Dataset(items_table(self._select(subtask)))

    def questions(self, subtask: str | None = None) -> list[dict[str, Any]]:
        """The questions-only view (``export/questions/``): what a system may read — query,
        options, period and video under opaque ids, no answer."""
        from xlebench.export.questions import answer_key, question_files

        every = [it for its in self._items.values() for it in its]
        subs = [subtask] if subtask else self.subtasks
        files = question_files({s: self._select(s) for s in subs}, set(self.videos()),
                               answer_key(every))
        return [row for s in subs for row in files[f"{s}.jsonl"]]

    def lifelogs(self) -> dict[str, dict[str, Any]]:
        """Each life log's record (``lifelogs/<id>.json``): persona, plan and segments."""
        return {p.stem: json.loads(p.read_text("utf-8"))
                for p in sorted((self.path / "lifelogs").glob("*.json"))}

    def videos(self) -> dict[str, Path]:
        """Each rendered life log's video (none where the compile did not render)."""
        return {p.stem: p for p in sorted((self.path / "videos").glob("*.mp4"))}

    def leaderboard(self) -> pd.DataFrame:
        """Every published system's headline per subtask, with n, interval and floor."""
        import pandas as pd

        path = self.path / "results" / "leaderboard.json"
        board = json.loads(path.read_text("utf-8")) if path.is_file() else {"rows": []}
        out = []
        for row in board["rows"]:
            floor = row.get("floor") or {}
            for system, cell in row["cells"].items():
                lo, hi = cell.get("ci95") or (None, None)
                out.append({"subtask": row["subtask"], "metric": row["metric"],
                            "system": system, "mean": cell.get("mean"), "ci_low": lo,
                            "ci_high": hi, "n": cell.get("n"), "floor": floor.get("mean"),
                            "floor_member": floor.get("member")})
        return pd.DataFrame(out, columns=["subtask", "metric", "system", "mean", "ci_low",
                                          "ci_high", "n", "floor", "floor_member"])

    def score(self, predictions: Mapping[str, str | None] | str | Path, *,
              system: str = "predictions", bertscore: bool = False, n_boot: int | None = None,
              seed: int = 0, allow_partial: bool = False, publish: bool = False,
              replace: bool = False) -> Scores:
        """Score replies (item id or question id -> reply, None for no reply; or the path of
        a predictions JSONL file) as ``xlebench-score`` does: the same scorers, floors,
        intervals and reply cut. Nothing is written unless ``publish``, which runs the
        evaluate stage on them as ``eval.predictions`` under ``eval.name=system``
        (``results/predictions-<system>/``; ``replace`` replaces scores published there
        from other replies) and returns the published table."""
        from xlebench.commands.score import in_memory_replies, score_folder
        from xlebench.config.declared import check_system_name
        from xlebench.eval.predictions import load_predictions

        check_system_name("system", system)
        if isinstance(predictions, (str, Path)):
            predictions = load_predictions(Path(predictions))
        elif not isinstance(predictions, Mapping):
            raise UserError(f"score(predictions=<{type(predictions).__name__}>): expected a "
                            "dict of question_id (or item_id) -> reply, or the path of a "
                            "predictions .jsonl file")
        replies = in_memory_replies(predictions)
        if publish:
            return self._publish(replies, system, allow_partial=allow_partial, replace=replace)
        res = score_folder(self.path, replies, bertscore=bertscore, n_boot=n_boot,
                           seed=seed, allow_partial=allow_partial)
        # as the JSON files hold them (intervals as lists), to compare with a published table
        return Scores(system, json.loads(json.dumps(res["table"])), res["rows"])

    def evaluate(self, answer: Callable[[Any], Any], *, batch: bool = False,
                 system: str = "callable", **score_kw: Any) -> Scores:
        """Answer every question of the questions-only view with ``answer`` (one question
        row -> a reply; with ``batch``, the list of rows -> the list of replies) and score
        the replies (`score`'s keywords)."""
        rows = self.questions()
        replies = list(answer(rows)) if batch else [answer(row) for row in rows]
        if len(replies) != len(rows):
            raise UserError(f"answer returned {len(replies)} replies for {len(rows)} "
                            "questions; return one reply per question, in order")
        # a None reply is no reply; anything but text is refused by `score` in one line
        preds = {row["question_id"]: reply for row, reply in zip(rows, replies, strict=True)}
        return self.score(preds, system=system, **score_kw)

    def _select(self, subtask: str | None) -> list[dict]:
        if subtask is None:
            return [it for its in self._items.values() for it in its]
        if subtask not in self._items:
            raise UserError(f"{self.path}: no subtask {subtask!r}; it has {self.subtasks}")
        return self._items[subtask]

    def _publish(self, predictions: Mapping[str, str], system: str, *, allow_partial: bool,
                 replace: bool) -> Scores:
        """The evaluate stage over ``predictions``, as ``benchmark=<this> stages=[evaluate]
        eval.systems=[] eval.predictions=<file> eval.name=<system>`` would run it. The file is
        kept in the cache under its content's digest (``<cache>/predictions/<sha256>.jsonl``):
        the manifest records a file that exists, the same replies published again record the
        same one, and ``system`` names the results, never a path."""
        from xlebench.eval.predictions import folder_slug

        # the cache of the outputs folder it was compiled in (<outputs>/benchmarks/<name>)
        outputs = self.path.parent.parent if self.path.parent.name == "benchmarks" else None
        path = _kept_predictions(Path(outputs or "outputs") / "cache" / "predictions",
                                 predictions)
        try:  # every value as data: a system's name is never override grammar
            compile(["stages=[evaluate]", "eval.systems=[]"], values={
                "benchmark": str(self.path), "eval.predictions": str(path),
                "eval.name": system, "eval.allow_partial": allow_partial,
                "eval.replace": replace}, outputs=outputs)
        except UserError as exc:  # the CLI's settings, as this call spells them
            exc.args = (str(exc).replace("eval.replace=true", "replace=True")
                        .replace("eval.allow_partial=true", "allow_partial=True")
                        .replace("eval.name", "system")
                        .replace(f"{path}:", f"score(predictions=<{len(predictions)} replies>) "
                                 f"(kept as {path}):"),)
            raise
        key = "predictions-" + folder_slug(system)  # the results folder eval.name names
        folder = self.path / "results" / key
        table = json.loads((folder / "table.json").read_text("utf-8"))
        rows = [json.loads(x) for x in (folder / "scores.jsonl").read_text("utf-8")
                .splitlines() if x.strip()]
        return Scores(key, table, rows)
