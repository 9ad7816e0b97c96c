"""The recipe registry is open: a recipe declared here, outside xlebench, is compiled and scored
through the real CLI, reuses the cached units of the other recipes, and a typo in its keys
fails before any work — by `_target_`, and by an entry point of an installed package."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import FAST, cli_env, last_summary, run_cli
from xlebench.config.knobs import knob
from xlebench.errors import ConfigError
from xlebench.eval.scorers import SpanRecall
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.registry import Recipe, load_recipe, recipes_from_config


@dataclass
class LongRecordParams:
    min_minutes: float = knob(20.0, gt=0)


def long_records(ctx: Context, p: LongRecordParams) -> Built:
    """One item per log: when was C recorded for longer than ``min_minutes`` at a stretch?"""
    out = Built()
    long = [s for s in ctx.log["segments"] if s["end_s"] - s["start_s"] > 60 * p.min_minutes]
    if not long:
        out.stats["logs without a long record"] += 1
        return out
    segs = ctx.log["segments"]
    spans = [(s["start_s"], s["end_s"]) for s in long]
    out.items.append(ctx.item(
        k=0, query=W.retrieval_query(f"When was I recorded for more than {p.min_minutes:g} "
                                     "minutes at a stretch", segs[0]["start_s"],
                                     segs[-1]["end_s"]),
        period=(segs[0]["start_s"], segs[-1]["end_s"]), spans=spans, text=W.span_text(spans)))
    return out


LONG_RECORDS = Recipe(
    name="long_records", task="temporal_localisation", schema=LongRecordParams,
    build=long_records, scorer=SpanRecall(), primary="R@5,0.3",
    answer_format="Answer with time spans formatted as [HH:MM:SS - HH:MM:SS].",
    answer_source="the life log's own timeline", group="temporal localisation")

ARGS = [*FAST[1:], "stages=[library,persona,plan,simulate,annotate,evaluate]", "render=none",
        "eval.bertscore=false", "eval.bootstrap=20"]


def _conf(tmp: Path, body: str) -> str:
    folder = tmp / "myconf" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "long_records.yaml").write_text(textwrap.dedent(body))
    return f"hydra.searchpath=[file://{tmp / 'myconf'}]"


@pytest.mark.slow  # a minute or more of CLI compiles: kept out of the default suite
def test_a_recipe_from_outside_xlebench_compiles_scores_and_reuses_the_cache(tmp_path):
    out = tmp_path / "out"
    run_cli(out, *ARGS, "tasks=[object_retrieval,single_summary]")
    before = last_summary(out)["annotate"]
    search = _conf(tmp_path, """\
        # @package tasks.long_records
        # A recipe of this test module, selected by _target_.
        _target_: tests.tasks.test_registry.LONG_RECORDS
        min_minutes: 10
        """)
    run_cli(out, *ARGS, search, "tasks=[object_retrieval,single_summary,long_records]",
            "name=with_mine")
    after = last_summary(out)["annotate"]
    assert after["cached"] == before["total"], "the other recipes' units came from the cache"
    assert after["done"] == after["total"] - before["total"] > 0
    bench = out / "benchmarks" / "with_mine"
    items = [json.loads(x) for x in (bench / "annotations" / "long_records.jsonl")
             .read_text().splitlines()]
    assert items and all(it["task"] == "temporal_localisation" for it in items)
    table = json.loads((bench / "results" / "oracle_text_retrieval" / "table.json").read_text())
    cell = table["rows"]["long_records"]["all"]
    assert cell["n"] == len(items) and cell["floor"]["mean"] is not None
    assert "the life log's own timeline (long_records)" in table["answers"]
    if "object_retrieval" in table["rows"]:
        avg = table["rows"]["temporal localisation AVG"]["all"]
        assert "long_records" in avg["members"], "its declared group pools it"


def test_a_typo_in_an_outside_recipe_fails_before_any_work(tmp_path):
    search = _conf(tmp_path, """\
        # @package tasks.long_records
        _target_: tests.tasks.test_registry.LONG_RECORDS
        """)
    proc = run_cli(tmp_path / "out", *ARGS, search, "tasks=[long_records]",
                   "+tasks.long_records.min_minuts=3", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "['min_minuts'] are not parameters of recipe long_records" in proc.stderr
    assert not (tmp_path / "out" / "cache" / "library").exists(), "nothing ran"


def test_an_entry_point_recipe_is_typed_at_compose_time(tmp_path):
    """An installed package declares its recipe as an entry point: its config file is typed
    by the recipe's schema, so Hydra itself rejects a typo."""
    site = tmp_path / "site"
    (site / "myrecipes-0.1.dist-info").mkdir(parents=True)
    (site / "myrecipes-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: myrecipes\nVersion: 0.1\n")
    (site / "myrecipes-0.1.dist-info" / "entry_points.txt").write_text(
        "[xlebench.recipes]\nlong_records = tests.tasks.test_registry:LONG_RECORDS\n")
    search = _conf(tmp_path, """\
        # @package tasks.long_records
        defaults:
          - /schema/tasks/long_records@_here_
          - _self_
        min_minutes: 10
        """)
    env = cli_env(PYTHONPATH=str(site))
    proc = run_cli(tmp_path / "out", *ARGS, search, "tasks=[long_records]",
                   "tasks.long_records.min_minuts=3", check=False, env=env)
    assert proc.returncode != 0 and "min_minuts" in proc.stderr
    # compiled, not scored: the slow tier scores an outside recipe through the CLI
    compile_only = [a for a in ARGS if not a.startswith("stages=")]
    run_cli(tmp_path / "out", *compile_only, "stages=[library,persona,plan,simulate,annotate]",
            search, "tasks=[long_records]", env=env)
    bench = tmp_path / "out" / "benchmarks" / "demo"
    assert (bench / "annotations" / "long_records.jsonl").read_text().strip()


def test_resolution_errors_name_what_to_do() -> None:
    with pytest.raises(ConfigError, match="no such recipe; choose from"):
        load_recipe("no_such_recipe")
    with pytest.raises(ConfigError, match="cannot import"):
        load_recipe("x", "tests.tasks.nowhere.RECIPE")
    with pytest.raises(ConfigError, match="declares recipe 'long_records'"):
        load_recipe("other", "tests.tasks.test_registry.LONG_RECORDS")
    (recipe, params), = recipes_from_config(
        {"long_records": {"_target_": "tests.tasks.test_registry.LONG_RECORDS",
                          "min_minutes": 5}}).values()
    assert recipe is LONG_RECORDS and params == LongRecordParams(5)
