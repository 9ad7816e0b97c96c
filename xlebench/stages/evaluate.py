"""Evaluate stage: one unit per system (a built-in baseline or a predictions file).

Writes per-item scores and the results table (Table 5 layout) as JSON and Markdown under
``results/<system>/`` in the benchmark folder.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError, DataError
from xlebench.eval.judges.check import check_judges, check_lines
from xlebench.eval.judges.human import human_agreement, human_lines, sheet_agreement
from xlebench.eval.judges.llm import PROMPTS as JUDGE_PROMPTS
from xlebench.eval.judges.llm import Judges, judged_subtasks
from xlebench.eval.leaderboard import (
    EVALUATION,
    LEADERBOARD_FILES,
    evaluation_config,
    evaluation_record,
    read_records,
)
from xlebench.eval.markdown import to_markdown
from xlebench.eval.metrics.bertscore import BERTScorer
from xlebench.eval.panel.blind import Panel, panel_rows, strongest
from xlebench.eval.panel.public import records_script
from xlebench.eval.panel.scoring import model_subtasks
from xlebench.eval.panel.validity import validity
from xlebench.eval.predictions import (
    MAX_REPLY_CHARS,
    capped,
    check_covers,
    check_known,
    check_name_free,
    cut_note,
    load_predictions,
    predictions_key,
)
from xlebench.eval.predictions import digest as predictions_digest
from xlebench.eval.score import ScoreSettings, corpus_metrics, score_spread
from xlebench.eval.scorers import position_histograms
from xlebench.eval.table import results_table
from xlebench.export.questions import resolve_ids
from xlebench.llm.client import Usage
from xlebench.llm.setup import save_usage
from xlebench.publish import claim_name
from xlebench.runner.atomic import write_json, write_jsonl, write_text
from xlebench.runner.progress import timed
from xlebench.runner.runner import StageSpec
from xlebench.runner.stage import BaseStage, StageContext, StageResult, Unit, UnitContext
from xlebench.stages.readers import configured_recipes
from xlebench.systems.registry import build_systems, selected_logs, split_key
from xlebench.tasks.multihop.human_eval import read_sheet, sample
from xlebench.tasks.recipe.registry import Recipe, groups
from xlebench.tasks.screening.panel_filter import filter_notes

log = logging.getLogger(__name__)


def answer_sources(recipes: list[Any]) -> str:
    """One line naming the annotations each recipe's answers come from."""
    by: dict[str, list[str]] = {}
    for r in recipes:
        by.setdefault(r.answer_source, []).append(r.name)
    return "Answers from: " + "; ".join(f"{src} ({', '.join(names)})"
                                        for src, names in by.items()) + "."


@dataclass(frozen=True)
class PredictionsFile:
    """A model's replies from a JSONL file, published as ``name`` (`predictions_key`)."""

    path: Path
    name: str
    reads: str | None = None
    #: The name as the user gave it (``eval.name``, the API's ``system``) where the results
    #: folder's safe name (`folder_slug`) had to change it: what the tables print.
    label: str | None = None


class EvaluateStage(BaseStage):
    """Scores every system: its replies from the respond stage (or a predictions file) over
    the benchmark's items — or the declared subset of life logs — against chance floors."""

    name: ClassVar[str] = "evaluate"
    # 8: VidSitu/MultiHop metrics as their evaluators; 9: learned members read clock, wearer
    version: ClassVar[str] = "13"  # 13: BERTScore as bert-score computes it; 12: the panel reads the script (the plan); 11: the inverse, a stacked reader, the routine
    upstream: ClassVar[tuple[str, ...]] = ("respond", "annotate", "simulate", "library")
    uses_seed: ClassVar[bool] = True
    spreads: ClassVar[bool] = True  # the panel: every core, and the check's answers kept here

    def __init__(self, *, systems: dict[str, Any], recipes: dict[str, Recipe],
                 settings: ScoreSettings, bertscorer: BERTScorer | None, n_boot: int,
                 floor_draws: int = 32, allow_partial: bool = False,
                 max_logs: int | None = None, lifelogs: list[str] | None = None,
                 split: tuple[int, float, str] = (0, 0.0, "all"),
                 judges: Judges | None = None, judged: set[str] | None = None,
                 min_dev_f1: float = 0.7,
                 models: dict[str, Any] | None = None,
                 records: dict[str, dict] | None = None,
                 human_sheet: Path | None = None, layout: str = "validity") -> None:
        self.judges, self.judged = judges, set(judged or ())
        #: A filled human-evaluation sheet (``eval.human_sheet``): people's replies.
        self.human_sheet = human_sheet
        self.min_dev_f1 = min_dev_f1
        #: Results key -> the model answering (None: no model), and what each evaluation
        #: records about itself (config, fingerprint) in results/<key>/evaluation.json.
        self.models, self.records = dict(models or {}), dict(records or {})
        self._published: dict[str, dict] = {}
        if judges is not None:
            self.waits_on_network(judges.llm.settings.max_concurrency)
        self.systems, self.recipes, self.settings = systems, recipes, settings
        self.bertscorer, self.n_boot = bertscorer, n_boot
        self.floor_draws, self.allow_partial = floor_draws, allow_partial
        self.max_logs, self.lifelogs = max_logs, list(lifelogs or [])
        self.split = split
        #: ``eval.layout``: which metrics the printed table leads with
        self.layout = layout

    def units(self, ctx: StageContext) -> list[Unit]:
        return [Unit(name) for name in self.systems]

    def _responses(self, name: str, system: Any, items: list[dict], ctx: StageContext
                   ) -> dict[str, str]:
        if isinstance(system, PredictionsFile):
            every = [it for r in ctx["annotate"].records.values() for it in r["items"]]
            responses = resolve_ids(system.path, load_predictions(system.path), every)
            check_known(system.path, responses, {it["item_id"] for it in every})
            responses = {k: v for k, v in responses.items()
                         if k in {it["item_id"] for it in items}}
            if not self.allow_partial:
                check_covers(system.path, responses, items)
            return responses
        return {k: v for rec in ctx["respond"].records.values() if rec["system"] == name
                for k, v in rec["responses"].items()}

    def _items(self, ctx: StageContext) -> tuple[list[dict], list[str], int]:
        """The items evaluated (recipe order, then id), the logs they come from, all logs."""
        all_logs = sorted(ctx["simulate"].records)
        logs = selected_logs(all_logs, self.max_logs, self.lifelogs, self.split)
        keep, order = set(logs), {name: k for k, name in enumerate(self.recipes)}
        items = sorted((it for r in ctx["annotate"].records.values() for it in r["items"]
                        if it["subtask"] in order and it["lifelog_id"] in keep),
                       key=lambda it: (order[it["subtask"]], it["item_id"]))
        return items, logs, len(all_logs)

    def _human_replies(self, items: list[dict], upstream: StageContext) -> dict[str, str]:
        """The sheet's replies, each row of an item the benchmark's sample draws (another
        benchmark's sheet is refused), and at least one of an item this evaluation scores."""
        every = [it for r in upstream["annotate"].records.values() for it in r["items"]]
        replies = read_sheet(self.human_sheet, {it["item_id"] for it in sample(every)})
        drawn = {it["item_id"] for it in sample(items)}
        if drawn and not set(replies) & drawn:
            raise DataError(str(self.human_sheet), "answer", f"none of its {len(replies)} "
                            f"answered rows is of the {len(drawn)} sampled items this "
                            "evaluation scores", "fill in the answer column of the rows of "
                            "the life logs evaluated (eval.lifelogs, eval.split)")
        return replies

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        items, logs, n_logs = self._items(ctx.upstream)
        system = self.systems[unit.id]
        responses, cut = capped(self._responses(unit.id, system, items, ctx.upstream))
        rows = score_spread(items, responses, self.recipes, self.settings, self.bertscorer)
        rows, not_applicable = _without_source(rows, system)
        with timed(log, f"evaluate {unit.id}: the blind panel"):
            panel = self._panel(items, ctx.upstream, ctx.seed, model_subtasks(rows, self.recipes))
        check = None
        if self.judges is not None:
            usage = Usage()
            check = check_judges(self.judges, self.min_dev_f1, usage)
            passed = [n for n in self.judges.names if check["judges"][n]["passed"]]
            if passed:
                judges = replace(self.judges, names=passed, thresholds={
                    n: check["judges"][n]["threshold"] for n in passed})
                judges.apply(rows, items, self.judged, usage)
                judge_panel(judges, panel, items, self.judged, usage)
            if self.judges.read:
                check["read"] = dict(sorted(self.judges.read.items()))
            save_usage(ctx.workdir, usage)
        table = results_table(rows, panel, groups=groups(list(self.recipes.values())),
                              corpus=corpus_metrics(self.recipes), n_boot=self.n_boot,
                              seed=ctx.seed, paper={n: r.paper_layout
                                                    for n, r in self.recipes.items()})
        oracle = {k: v for rec in ctx.upstream["annotate"].records.values()
                  for k, v in rec.get("oracle", {}).items()}
        table["validity"] = validity(items, oracle, self.recipes, self.settings, seed=ctx.seed,
                                     draws=self.floor_draws, panel=panel)
        primary = {n: r.primary for n, r in self.recipes.items()}
        table["human"] = human_agreement(items, self.recipes, self.settings, primary,
                                         corpus_metrics(self.recipes), self.n_boot, ctx.seed)
        if self.human_sheet is not None:
            table["human"].update(sheet_agreement(
                items, sample(items), self._human_replies(items, ctx.upstream), self.recipes,
                self.settings, primary, self.n_boot, ctx.seed))
        table["filter_notes"] = filter_notes(items, ctx.upstream["annotate"].records,
                                             self.recipes)
        present = [r for n, r in self.recipes.items() if any(it["subtask"] == n for it in items)]
        model = self.models.get(unit.id)
        label = getattr(system, "label", None)
        table.update(system=unit.id, **({"label": label} if label else {}),
                     oracle=system.reads, answers=answer_sources(present),
                     not_applicable=not_applicable,
                     model=model.describe() if model is not None else None,
                     positions=position_histograms(rows),
                     coverage={"items": len(items), "answered": len(
                         set(responses) & {it["item_id"] for it in items}),
                         "truncated": cut, "max_reply_chars": MAX_REPLY_CHARS},
                     lifelogs={"evaluated": len(logs), "of": n_logs,
                               "ids": logs if len(logs) < n_logs else "all"},
                     bertscore=self.bertscorer.describe() if self.bertscorer else None,
                     judge_check=check, layout=self.layout,
                     paper_metrics={n: list(r.paper_layout) for n, r in self.recipes.items()})
        write_jsonl(ctx.workdir / "scores.jsonl", rows)
        write_text(ctx.workdir / "table.md",
                   to_markdown(table, _title(label or unit.id, system, model),
                               _notes(table, system, model)))
        return table

    def _panel(self, items: list[dict], upstream: Mapping[str, StageResult], seed: int,
               models: Collection[str] = ()) -> Panel:
        """The blind panel over the items: every system's answers, model metrics on ``models``."""
        annotated = upstream["annotate"].records
        return panel_rows(items, self.recipes, self.settings, seed=seed, draws=self.floor_draws,
                          bertscorer=self.bertscorer, script=records_script(annotated),
                          public=[i for r in annotated.values() for i in r["items"]], models=models)

    def share(self, ctx: StageContext, result: StageResult | None) -> None:
        """A shard job's share of the blind panel's tasks before any system is scored
        (`xlebench.runner.tasks`): the panel is every system's, read by the job scoring one."""
        if result is None:
            self._panel(self._items(ctx.upstream)[0], ctx.upstream, ctx.seed)

    def owned_paths(self) -> list[str]:
        """Results are owned per (system, model): scoring one keeps every other's results;
        the leaderboard is remade from all of them at publication (`xlebench.report.results`)."""
        return [f"results/{name}" for name in self.systems] + list(LEADERBOARD_FILES)

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        out = {}
        for name, table in result.records.items():
            folder = dest / "results" / name
            record = evaluation_record(self.records.get(name, {"system": name}),
                                       result.fingerprint, self._published.get(name), table)
            write_json(folder / EVALUATION, record)
            write_json(folder / "table.json", table)
            src = result.unit_dir(name)
            write_text(folder / "table.md", (src / "table.md").read_text("utf-8"))
            write_text(folder / "scores.jsonl", (src / "scores.jsonl").read_text("utf-8"))
            out[name] = {sub: cells["all"].get("mean") for sub, cells in table["rows"].items()}
        return {"systems": out}

    def remember(self, published: Path) -> None:
        """Before its folders are cleared: the published records (their dates carry over
        when a rerun reproduces a table)."""
        self._published = read_records(published, list(self.systems))


def _without_source(rows: list[dict], system: Any) -> tuple[list[dict], dict[str, str]]:
    """An oracle that had nothing to read for a subtask (its ``no_source`` reply to every item:
    the library lacks its source) is not applicable there: leaving it in would print 0.0 under
    a heading that calls it an upper bound. An oracle that read its source and found nothing
    scores 0 as usual."""
    marker = getattr(system, "no_source", None)
    if not getattr(system, "reads", None) or not marker:
        return rows, {}
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["subtask"], []).append(r)
    out = {sub: (f"not applicable: {system.reads} hold nothing for its {len(rs)} items "
                 "in this library")
           for sub, rs in by.items() if all(r["response"] == marker for r in rs)}
    return [r for r in rows if r["subtask"] not in out], out


def judge_panel(judges: Judges, panel: Panel, items: list[dict], judged: set[str],
                usage: Usage) -> None:
    """Judge the blind panel's strongest written answers per judged subtask (judging every
    member would multiply the judge's calls for values no table shows)."""
    by_id = {it["item_id"]: it for it in items}
    for sub in sorted(judged & set(panel.rows)):
        written = {m: rows for m, rows in panel.rows[sub].items()
                   if all(r["response"] is not None for r in rows)}
        primary = next(iter(panel.rows[sub].values()))[0]["primary"]
        best, _ = strongest(written, primary, lambda rows, m: sum(
            r["scores"].get(m) or 0.0 for r in rows) / max(1, len(rows)))
        if best is not None:
            rows = written[best]
            judges.apply(rows, [by_id[r["item_id"]] for r in rows], judged, usage)


def _title(name: str, system: Any, model: Any = None) -> str:
    title = name if model is None else f"{name} — answered by {model.name} ({model.backend})"
    if model is not None and model.stand_in:
        title += " — STAND-IN"
    return f"{title} — ORACLE" if system.reads else title


def _notes(table: dict[str, Any], system: Any, model: Any = None) -> list[str]:
    """One line on where answers come from, one on what the system read."""
    notes = [table["answers"]]
    if model is not None and model.stand_in:
        notes.append(f"{model.stand_in}; its numbers show the pipeline runs, not how a model "
                     "does.")
    if system.reads:
        notes.append(f"ORACLE: this system reads {system.reads}, the annotations the answers "
                     "were built from (or close kin of them); its numbers are upper bounds, "
                     "not a baseline.")
    notes += table.get("filter_notes", [])
    notes += human_lines(table.get("human") or {})
    cov, logs = table["coverage"], table["lifelogs"]
    if logs["evaluated"] < logs["of"]:
        notes.append(f"Evaluated on {logs['evaluated']} of {logs['of']} life logs "
                     f"(eval.split / eval.max_logs / eval.lifelogs): "
                     f"{', '.join(logs['ids'][:5])}"
                     + (" ..." if logs["evaluated"] > 5 else "") + ".")
    notes += check_lines(table.get("judge_check"))
    for sub, v in table.get("validity", {}).items():
        if v["consistent"] is False or v["headroom"] is False:
            notes.append(f"{sub}: {v['verdict']}.")
    for sub, h in table.get("positions", {}).items():
        notes.append(f"{sub}: options picked by position {'/'.join(map(str, h['picked']))}; "
                     f"right options by position {'/'.join(map(str, h['label']))} (a spike in "
                     "the first is a position bias).")
    if isinstance(system, PredictionsFile):
        notes.append(f"Replies: {system.path.name}, answering {cov['answered']} of "
                     f"{cov['items']} items.")
    if cut_note(cov):
        notes.append(cut_note(cov))
    return notes


def build_evaluate_stage(cfg: DictConfig) -> StageSpec:
    ec = OmegaConf.to_container(cfg.eval, resolve=True)
    built = build_systems(cfg)
    systems: dict[str, Any] = dict(built.by_name)
    digest = None
    if ec.get("predictions"):
        path = Path(ec["predictions"])
        load_predictions(path)  # a malformed file stops the run here, before any work
        final = Path(cfg.paths.benchmarks) / str(cfg.name)
        published, digest = final / "results", predictions_digest(path)
        with claim_name(final) as (claimed, claim):  # as runs one after another would
            key = predictions_key(path, ec.get("name"), published, digest, claimed)
            if ec.get("name"):
                check_name_free(key, digest, published, bool(ec.get("replace")), claimed)
            claim(key, digest)
        if not ec.get("name") and key in built.by_name:
            raise ConfigError(f"eval.predictions={path}: its name {key!r} is a built-in "
                              "system's; set eval.name=<model name>")
        name = split_key(key, str(ec["split"]))
        label = "predictions-" + str(ec["name"]) + name[len(key):] if ec.get("name") else None
        system = PredictionsFile(path, name, label=label if label != name else None)
        systems[system.name] = system
    if not systems:
        raise ConfigError("nothing to evaluate: set eval.systems or eval.predictions")
    settings = ScoreSettings.from_eval(ec)
    scorer = BERTScorer(ec.get("bertscore_model"), ec.get("bertscore_layer"),
                        store=Path(cfg.paths.cache) / "embeddings") if ec["bertscore"] else None
    recipes = {name: recipe for name, (recipe, _) in configured_recipes(cfg).items()}
    judges, judged, judge_fp = None, set(), None
    if ec["judges"]:
        from xlebench.llm.setup import llm_client, llm_fingerprint

        judged = judged_subtasks(recipes, ec["judging"]["subtasks"])
        judges = Judges(list(ec["judges"]), llm_client(cfg, "eval.judges", section="judge"),
                        int(ec["judging"]["truncate_words"]), bool(ec["judging"]["p_true"]))
        judge_fp = llm_fingerprint(cfg, [JUDGE_PROMPTS[n] for n in ec["judges"]],
                                   section="judge")
    fp = {"eval": {k: v for k, v in ec.items()
                   if k not in ("predictions", "name", "replace", "human_sheet")
                   and (k, v) not in (("split", "all"), ("transcripts", None))},
          "predictions_sha256": digest}
    human_sheet = None
    if ec.get("human_sheet"):  # its form read here: a malformed sheet stops the run before work
        human_sheet = Path(ec["human_sheet"])
        read_sheet(human_sheet, None)
        fp["human_sheet_sha256"] = predictions_digest(human_sheet)
    if judge_fp is not None:
        fp["judge_llm"] = judge_fp
    own = {**fp, "predictions_sha256": None}  # a built-in system read no predictions file
    records = {key: evaluation_config(cfg, key, built.models.get(key),
                                      built.fingerprints.get(key),
                                      fp if isinstance(systems[key], PredictionsFile) else own)
               for key in systems}
    stage = EvaluateStage(systems=systems, recipes=recipes, settings=settings, bertscorer=scorer,
                          n_boot=int(ec["bootstrap"]), floor_draws=int(ec["floor_draws"]),
                          allow_partial=bool(ec["allow_partial"]), max_logs=ec["max_logs"],
                          lifelogs=ec["lifelogs"], judges=judges, judged=judged,
                          split=(int(cfg.seed), float(cfg.annotate.heldout), str(ec["split"])),
                          min_dev_f1=float(ec["judging"]["min_dev_f1"]),
                          models=built.models, records=records,
                          human_sheet=human_sheet, layout=str(ec["layout"]))
    return StageSpec(stage, fp)
