"""A stage's folder on disk, as the runner reads and settles it: which units are done, the
leftovers of killed processes, and the other shards' units it waits for."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from xlebench.runner.atomic import pid_alive, write_json
from xlebench.runner.execute import load_record, marker_path
from xlebench.runner.stage import Stage, StageContext, Unit, check_unit_id


def cached_records(stage_dir: Path, units: list[Unit]) -> tuple[dict[str, dict], list[Unit]]:
    """(records of the completed units, the units still to run)."""
    records: dict[str, dict] = {}
    pending = []
    for u in units:
        record = load_record(stage_dir, u.id)
        if record is None:
            pending.append(u)
        else:
            records[u.id] = record
    return records, pending


def checked_units(stage: Stage, ctx: StageContext) -> list[Unit]:
    units = stage.units(ctx)
    seen: set[str] = set()
    for unit in units:
        check_unit_id(unit.id)
        if unit.id in seen:
            raise ValueError(f"stage {stage.name} declares unit id {unit.id!r} twice")
        seen.add(unit.id)
    return units


def await_peers(stage_dir: Path, others: Sequence[Unit], idle_s: float,
                 poll_s: float = 0.2) -> int:
    """Wait for the other shards' units of a stage while they keep arriving (at most
    ``idle_s`` without a new one); the number still missing."""
    left = [u for u in others if not marker_path(stage_dir, u.id).exists()]
    last = time.monotonic()
    while left and time.monotonic() - last < idle_s:
        time.sleep(poll_s)
        still = [u for u in left if not marker_path(stage_dir, u.id).exists()]
        if len(still) < len(left):
            last = time.monotonic()
        left = still
    return len(left)


def prepare_stage_dir(stage_dir: Path, inputs: dict) -> None:
    """Create the stage folder, record what it was built from, and settle leftovers.

    A folder in ``units/`` without a marker can only come from a process killed between the
    rename and the marker write; renames publish complete folders only, so it is marked done.
    Temporary folders of processes that no longer exist are removed.
    """
    (stage_dir / "units").mkdir(parents=True, exist_ok=True)
    (stage_dir / "done").mkdir(exist_ok=True)
    if not (stage_dir / "stage.json").exists():
        write_json(stage_dir / "stage.json", inputs)
    for unit_dir in (stage_dir / "units").iterdir():
        marker = marker_path(stage_dir, unit_dir.name)
        if unit_dir.is_dir() and not marker.exists() and (unit_dir / "record.json").exists():
            write_json(marker, {"unit": unit_dir.name, "attempts": 0, "recovered": True})
    tmp_root = stage_dir / ".tmp"
    if tmp_root.is_dir():
        for tmp in tmp_root.iterdir():
            if not pid_alive(_tmp_pid(tmp.name)):
                shutil.rmtree(tmp, ignore_errors=True)


def _tmp_pid(name: str) -> int:
    parts = name.rsplit(".", 2)
    try:
        return int(parts[-2])
    except (IndexError, ValueError):
        return -1
