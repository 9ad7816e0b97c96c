"""The `xlebench` command: one Hydra entry point over conf/config.yaml.

Everything Hydra users expect works: overrides (`library.n_videos=50`), group selection
(`library=xlebench_release`), `--cfg job`, `--info defaults`, `-m` sweeps with any launcher.
User errors print one clear line and exit with status 2; failed units exit with status 1.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig
from rich.console import Console
from rich.table import Table

from xlebench.commands.compose import CONF_DIR
from xlebench.commands.configstore import register
from xlebench.errors import UserError, storage_error

log = logging.getLogger("xlebench")

register()


class RunFailed(RuntimeError):
    """Raised in multirun jobs so the launcher reports the failed sweep point."""


def _bench_subdir() -> str | None:
    """Sweep jobs each get their own benchmark folder, named by their overrides."""
    try:
        hc = HydraConfig.get()
    except ValueError:
        return None
    if hc.mode != RunMode.MULTIRUN:
        return None
    name = hc.job.override_dirname or str(hc.job.num)
    # readable folder names: persona.locations=[Japan,UK] -> persona.locations=Japan+UK
    name = re.sub(r"[\[\]\s'\"{}]", "", name).replace(",", "+")
    return name.replace("/", "_")


def _is_multirun() -> bool:
    try:
        return HydraConfig.get().mode == RunMode.MULTIRUN
    except ValueError:
        return False


def _fail(message: str) -> int:
    """Print a user error as one line (no markup parsing of the message) and return 2."""
    Console(stderr=True).print(f"[bold red]error:[/bold red] {_escape(message)}", soft_wrap=True)
    return 2


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


class SweepSummary(Callback):
    """After a sweep: ``benchmarks/<name>/summary.md`` compares its jobs side by side."""

    def on_multirun_end(self, config: DictConfig, **kwargs: object) -> None:
        from xlebench.report.sweep import write_sweep_summary

        try:
            path = write_sweep_summary(Path(str(config.paths.benchmarks)) / str(config.name))
        except OSError as exc:  # a summary must never fail a finished sweep
            log.warning("sweep summary not written: %s", exc)
            return
        if path is not None:
            Console(stderr=True).print(f"sweep summary: {path}")


class OutputsCheck(Callback):
    """Hydra creates its run folder under ``paths.outputs`` before xlebench runs: check that
    the folder can be written first, so a read-only or impossible path is one clear line."""

    def on_run_start(self, config: DictConfig, **kwargs: object) -> None:
        self._check(config)

    def on_multirun_start(self, config: DictConfig, **kwargs: object) -> None:
        self._check(config)

    @staticmethod
    def _check(config: DictConfig) -> None:
        outputs = Path(str(config.paths.outputs))
        probe = outputs / f".xlebench-write-check-{os.getpid()}"
        try:
            outputs.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            err = storage_error(exc, {"paths.outputs": outputs})
            message = str(err) if err else f"cannot use paths.outputs={outputs}: {exc}"
            sys.exit(_fail(message))


def _print_summary(result, console: Console) -> None:
    table = Table(title="xlebench run", show_lines=False)
    for col in ("stage", "fingerprint", "units", "done", "cached", "failed", "retried", "s"):
        table.add_column(col, justify="right" if col not in ("stage", "fingerprint") else "left")
    for c in result.summary.counters:
        table.add_row(
            c.stage, c.fingerprint, str(c.total), str(c.done), str(c.cached),
            str(c.failed + c.not_run), str(c.retried), f"{c.seconds:.1f}",
        )
    console.print(table)
    for c in result.summary.counters:
        if c.activity:
            console.print(f"{c.stage}: " + ", ".join(f"{n} {k}" for k, n in sorted(
                c.activity.items())))
    for c in result.summary.counters:
        for unit, err in sorted(c.errors.items())[:10]:
            console.print(f"[red]failed[/red] {c.stage}/{unit}: {_escape(err)}")
        if len(c.errors) > 10:
            console.print(f"... and {len(c.errors) - 10} more failures in {c.stage}")
    if result.summary.skipped:
        console.print(f"not run, because a stage before them failed: "
                      f"{', '.join(result.summary.skipped)}")
    for stage, counts in result.counts.items():
        skipped = counts.get("skipped") if isinstance(counts, dict) else None
        if skipped:
            reasons = ", ".join(f"{n} {why}" for why, n in sorted(
                skipped.items(), key=lambda kv: (-kv[1], kv[0])))
            console.print(f"skipped input records ({stage}, counted in stats/): "
                          f"{_escape(reasons)}", soft_wrap=True)


#: What a user looks at first in a compiled benchmark, when it is there.
CONTENTS = (
    ("library.parquet", "the video selection library"),
    ("personas.jsonl", "personas"),
    ("plans.jsonl", "day plans and their chunks"),
    ("lifelogs/", "life-log timelines (with match and reflection traces)"),
    ("videos/", "rendered life logs (.mp4), virtual-clock subtitles (.vtt), sidecars (.json)"),
    ("annotations/", "task items per subtask (JSONL)"),
    ("export/hf/", "Hugging Face dataset: parquet per subtask + dataset card (README.md)"),
    ("export/lmms_eval/", "lmms-eval tasks: --include_path <this folder> --tasks xlebench"),
    ("export/xlebench/", "the same items in the X-LeBench release layout"),
    ("export/egoschema/", "multiple-choice items in EgoSchema's layout"),
    ("stats/", "library, simulation and task statistics (JSON + PNG)"),
    ("report/index.html", "the report: plots, life-log pages, results (open in a browser)"),
    ("manifest.json", "config, fingerprints, checksums, package versions"),
)


def _print_contents(bench: Path, console: Console) -> None:
    for rel, what in CONTENTS:
        if (bench / rel).exists():
            console.print(f"  {rel:<17} {what}")
    for table in sorted(bench.glob("results/*/table.md")):
        console.print(f"  {str(table.relative_to(bench)):<17} results table "
                      f"({table.parent.name})")
        console.print(table.read_text(encoding="utf-8"), markup=False, soft_wrap=True)


def _write_run_summary(result) -> None:
    """Counters and timings of this run, in the Hydra run folder (not in the benchmark)."""
    from dataclasses import asdict

    from xlebench.runner.atomic import write_json

    try:
        out = Path(HydraConfig.get().runtime.output_dir)
    except ValueError:
        return
    write_json(out / "run_summary.json", {
        "benchmark": str(result.benchmark_dir) if result.benchmark_dir else None,
        "stages": [asdict(c) for c in result.summary.counters],
        "skipped": result.summary.skipped,
    })


def run(cfg: DictConfig) -> int:
    """Run the pipeline for one composed config; returns the process exit status."""
    from xlebench.commands.adopt import adopt_config
    from xlebench.commands.validate import validate_config
    from xlebench.pipeline import run_pipeline

    console = Console(stderr=True)
    try:
        adopt_config(cfg)
        validate_config(cfg)
        result = run_pipeline(cfg, _bench_subdir())
    except UserError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        console.print("interrupted: the published benchmark is as it was; completed units are "
                      "cached, so the same command resumes where this one stopped.")
        return 130
    except Exception as exc:  # a full disk is not a bug: OSError, or SQLite's own error
        if (err := storage_error(exc)) is None:
            raise
        return _fail(str(err))
    _print_summary(result, console)
    _write_run_summary(result)
    if result.summary.waiting:
        stage, left = result.summary.waiting
        others = (f"{left} are other shards' (not done after waiting shard.wait_s)" if left
                  else "the other shards' are cached too")
        console.print(f"shard {cfg.shard.index}/{cfg.shard.count}: this job's units of {stage} "
                      f"are done and cached; {others}. When every shard is done, rerun "
                      "without shard.* to merge, score and publish.", soft_wrap=True)
        return 0
    if result.benchmark_dir is None:
        console.print(
            "[red]Some units failed; the benchmark folder was not updated. Completed units are "
            "cached: fix the cause and rerun the same command to resume.[/red]"
        )
        return 1
    console.print(f"benchmark: [bold]{result.benchmark_dir}[/bold]")
    _print_contents(Path(result.benchmark_dir), console)
    console.print(f"cache:     {cfg.paths.cache}")
    try:
        console.print(f"run log:   {HydraConfig.get().runtime.output_dir}")
    except ValueError:
        pass
    return 0


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def _hydra_main(cfg: DictConfig) -> None:
    status = run(cfg)
    if status == 0:
        return
    if _is_multirun():
        raise RunFailed(f"xlebench job failed with status {status}")
    sys.exit(status)


def _share_repository_copies() -> None:
    """For ``--help`` only: Hydra lists each config group through a fresh deep copy of the
    whole config repository (every structured schema node), about 175 copies for our groups —
    seconds of work for a read-only listing. One copy per search path serves them all."""
    from hydra._internal.config_repository import CachingConfigRepository

    original = CachingConfigRepository.__init__
    copies: dict[int, object] = {}

    def init(self, delegate) -> None:  # type: ignore[no-untyped-def]
        if id(delegate) in copies:
            self.delegate, self.cache = copies[id(delegate)], {}
        else:
            original(self, delegate)
            copies[id(delegate)] = self.delegate

    CachingConfigRepository.__init__ = init


def _hide_schema_groups() -> None:
    """``--help`` lists the groups a user composes; ``schema/*`` are the typed schemas each
    option file extends (registered for Hydra's checks), not choices."""
    from hydra._internal.hydra import Hydra

    listed = Hydra.list_all_config_groups

    def visible(self, parent: str = "") -> list:  # type: ignore[no-untyped-def]
        return [g for g in listed(self, parent) if not g.startswith("schema")]

    Hydra.list_all_config_groups = visible


#: Arguments after which Hydra's mode probe must run: they may set ``hydra.mode`` themselves
#: or bring configs that could (another config folder or primary config, Hydra's own groups).
PROBE_NEEDED = ("hydra", "+hydra", "++hydra", "~hydra", "--config-dir", "-cd",
                "--config-path", "-cp", "--config-name", "-cn", "--experimental-rerun",
                "--multirun", "-m")


def mode_probe_needed(args: list[str]) -> bool:
    """Whether Hydra must compose the config once just to learn ``hydra.mode``."""
    return any(a.split("=", 1)[0].split("/", 1)[0].split(".", 1)[0] in PROBE_NEEDED
               for a in args)


def _skip_mode_probe() -> None:
    """Before a single run, Hydra composes the whole config once only to read ``hydra.mode``
    (about a fifth of a cache-hit rerun), then composes it again. None of xlebench's configs
    sets ``hydra.mode`` (tested for every experiment), so when the command line neither sets
    it nor adds configs, the answer is a single run. Answering RUN rather than "unset" keeps a
    config that does set MULTIRUN an error (Hydra asserts the mode) instead of a silent run."""
    from hydra._internal.hydra import Hydra

    Hydra.get_mode = lambda self, config_name, overrides: RunMode.RUN


def main() -> None:
    """Console-script entry point."""
    from xlebench.commands.compose import offline_defaults

    offline_defaults()
    from xlebench.commands.adopt import adopt_args
    from xlebench.commands.hydra_errors import check_group_options, install

    install(CONF_DIR, _fail)
    try:
        check_group_options(sys.argv[1:], CONF_DIR)
        sys.argv[1:] = adopt_args(sys.argv[1:], CONF_DIR)
    except UserError as exc:
        sys.exit(_fail(str(exc)))
    if any(a in ("--help", "-h") for a in sys.argv[1:]):
        _share_repository_copies()
    elif not mode_probe_needed(sys.argv[1:]):
        _skip_mode_probe()
    _hydra_main()


_hide_schema_groups()

if __name__ == "__main__":
    main()
