"""Running one unit: the part of the runner that executes inside a worker.

Lifecycle of a unit: build its output in a private temporary folder, publish it with one
atomic rename to ``units/<id>``, then write the completion marker ``done/<id>.json``. Only
complete folders are ever renamed into place, so a folder under ``units/`` is always whole;
the marker is what resume trusts, once its record reads back (`load_record`): units are not
fsynced one by one, so after a power cut in the middle of a stage a marked unit may have lost
its record, and is then computed again.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from xlebench.errors import UserError, storage_error
from xlebench.runner.atomic import (
    deferred_durability,
    dumps_compact,
    read_json,
    write_json,
    write_text,
)
from xlebench.runner.cores import set_cores
from xlebench.runner.crash import crash_point
from xlebench.runner.stage import Stage, StageContext, Unit, UnitContext
from xlebench.runner.tasks import TaskStore, set_store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What happened to one unit in this run."""

    unit_id: str
    ok: bool
    attempts: int
    seconds: float
    error: str = ""
    #: The failure is the user's input or configuration (exit status 2), not a bug.
    user_error: bool = False


def marker_path(stage_dir: Path, unit_id: str) -> Path:
    return stage_dir / "done" / f"{unit_id}.json"


def load_record(stage_dir: Path, unit_id: str) -> dict | None:
    """A completed unit's record; None when it has none, or when what a power cut left of it
    does not read back (then its marker and folder are removed, so it runs again)."""
    if not marker_path(stage_dir, unit_id).exists():
        return None
    path = stage_dir / "units" / unit_id / "record.json"
    try:
        record = read_json(path)
        if isinstance(record, dict):
            return record
    except (OSError, ValueError):
        pass
    log.warning("unit %s: its record %s does not read back (a crash before the stage's "
                "sync?); computing it again", unit_id, path)
    marker_path(stage_dir, unit_id).unlink(missing_ok=True)
    shutil.rmtree(path.parent, ignore_errors=True)
    return None


def failure_path(stage_dir: Path, unit_id: str) -> Path:
    return stage_dir / "failed" / f"{unit_id}.json"


def _keep_record(stage: Stage, record: dict, tmp: Path) -> None:
    """``record.json`` in the unit's private folder: a hard link to the stage's own
    ``record_file`` where it wrote one (the life log's published form: on the paper grid,
    encoding and writing every record a second time cost about 1 ms per unit), else the record
    encoded compactly. Written in place: the folder is private until its rename publishes it
    whole, so no temporary sibling is needed; not fsynced: the runner syncs the stage once
    when it ends, and a record a power cut loses before that is recomputed (see
    `load_record`)."""
    name = stage.record_file
    if name:
        try:
            os.link(tmp / name, tmp / "record.json")
            return
        except OSError:  # the unit did not write it, or no hard links here: encode the record
            pass
    (tmp / "record.json").write_text(dumps_compact(record), encoding="utf-8")


def _publish(tmp: Path, stage_dir: Path, unit_id: str, meta: dict) -> None:
    final = stage_dir / "units" / unit_id
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, final)
    except OSError:
        # Another process (a concurrent sweep job) published the same unit first. Same
        # fingerprint means same content, so keep theirs.
        if not final.is_dir():
            raise
    crash_point(stage_dir.parent.name, "unit")
    # Written in place: resume trusts a marker by its existence and then checks the record
    # (`load_record`), so a marker torn by a crash is as good as a whole one.
    marker_path(stage_dir, unit_id).write_text(dumps_compact(meta), encoding="utf-8")
    failure_path(stage_dir, unit_id).unlink(missing_ok=True)
    shutil.rmtree(failure_path(stage_dir, unit_id).with_suffix(""), ignore_errors=True)


def _record_failure(stage_dir: Path, unit: Unit, exc: BaseException, attempts: int) -> str:
    """Write failed/<unit>.json, plus any raw material the error carries (an LLM's rejected
    answers) as failed/<unit>/<name>, named in the record so a user can open them."""
    # A user error is a message for the user; anything else keeps its type for the developer.
    message = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__}: {exc}"
    saved = []
    for name, text in sorted(getattr(exc, "artifacts", {}).items()):
        path = failure_path(stage_dir, unit.id).with_suffix("") / name
        write_text(path, text)
        saved.append(str(path))
    if saved:
        message += f" (raw answers saved in {Path(saved[0]).parent})"
    write_json(
        failure_path(stage_dir, unit.id),
        {
            "unit": unit.id,
            "error": message,
            "attempts": attempts,
            "user_error": isinstance(exc, UserError),
            "artifacts": saved,
            "traceback": "".join(traceback.format_exception(exc)),
        },
    )
    return message


def execute_unit(
    stage: Stage, unit: Unit, ctx: StageContext, stage_dir: Path, retries: int
) -> Outcome:
    """Compute, publish and mark one unit, retrying unexpected errors up to `retries` times.

    A `UserError` (bad input or config) is not retried: the same input fails the same way.
    A storage error (disk full, read-only folder) is raised at once as `StorageError`: there
    is nowhere to record it, and every other unit would fail the same way.
    """
    start = time.perf_counter()
    tmp_root = stage_dir / ".tmp"
    tmp_root.mkdir(parents=True, exist_ok=True)
    for attempt in range(1, retries + 2):
        tmp = tmp_root / f"{unit.id}.{os.getpid()}.{secrets.token_hex(4)}"
        tmp.mkdir()
        try:
            uctx = UnitContext(stage.name, unit.id, ctx.seed, tmp, ctx)
            with deferred_durability():  # the stage's one barrier covers the unit's writes
                record = stage.run(unit, uctx)
            if not isinstance(record, dict):
                raise TypeError(f"stage {stage.name} returned {type(record).__name__}, not dict")
            _keep_record(stage, record, tmp)
            seconds = time.perf_counter() - start
            _publish(tmp, stage_dir, unit.id, {"unit": unit.id, "attempts": attempt})
            return Outcome(unit.id, True, attempt, seconds)
        except Exception as exc:  # noqa: BLE001 - the runner records every unit failure
            if (storage := storage_error(exc)) is not None:
                raise storage from None
            user = isinstance(exc, UserError)
            if user or attempt > retries:
                error = _record_failure(stage_dir, unit, exc, attempt)
                return Outcome(unit.id, False, attempt, time.perf_counter() - start, error,
                               user)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    raise AssertionError("unreachable")


# --- process-pool plumbing: the stage and its context are sent once per worker -----------------

_WORKER: dict = {}


def init_worker(stage: Stage, ctx: StageContext, stage_dir: Path, retries: int,
                threads: int = 0, store: TaskStore | None = None) -> None:
    """Pool initializer: load the stage's shared state once per process. ``threads``: the
    forward passes' share of the CPUs (`xlebench.library.threads.pass_threads` reads
    ``OMP_NUM_THREADS``), so that workers do not each take every core; a setting of the
    user's is kept. ``store``: the stage's task store (`xlebench.runner.tasks`)."""
    set_store(store)
    if threads:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))
        set_cores(threads)  # a benchmark-wide step inside a unit spreads over this share
    stage.setup(ctx)
    _WORKER.update(stage=stage, ctx=ctx, stage_dir=stage_dir, retries=retries)


def run_in_worker(unit: Unit) -> Outcome:
    return execute_unit(
        _WORKER["stage"], unit, _WORKER["ctx"], _WORKER["stage_dir"], _WORKER["retries"]
    )
