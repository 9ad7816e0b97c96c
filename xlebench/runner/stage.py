"""The stage interface: a plain class that turns one unit's input into one output record.

A stage declares its units and computes each one; it never touches the cache, markers,
parallelism or progress. The runner owns all of that, so every stage gets resume, atomic
writes and determinism for free.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from xlebench.runner.rng import unit_rng

_UNIT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=@-]{0,199}$")


def check_unit_id(unit_id: str) -> str:
    """Unit ids become file names: reject anything that could escape the cache folder."""
    if not _UNIT_ID.match(unit_id) or ".." in unit_id:
        raise ValueError(
            f"unit id {unit_id!r} is not a safe file name "
            "(letters, digits, '_', '.', '=', '@', '-' only; at most 200 characters)"
        )
    return unit_id


@dataclass(frozen=True)
class Unit:
    """One unit of work: a stable id (also its file name) and a picklable payload."""

    id: str
    payload: Any = None


@dataclass(frozen=True)
class StageResult:
    """What a finished stage hands downstream: its fingerprint, folder and unit records."""

    name: str
    fingerprint: str
    dir: Path
    records: Mapping[str, dict] = field(default_factory=dict)

    def unit_dir(self, unit_id: str) -> Path:
        """Folder holding the unit's record and any extra files it wrote."""
        return self.dir / "units" / unit_id

    def only(self) -> tuple[str, dict]:
        """The single record of a one-unit stage (such as the library)."""
        if len(self.records) != 1:
            raise ValueError(f"stage {self.name} has {len(self.records)} records, expected 1")
        return next(iter(self.records.items()))


@dataclass(frozen=True)
class StageContext:
    """Everything a stage may read besides its own configuration."""

    seed: int
    upstream: Mapping[str, StageResult]
    #: ``report(counter, n)``: live counts for the progress display (frames, captions...);
    #: a no-op where units run in other processes.
    report: Callable[[str, int], None] | None = field(default=None, compare=False, repr=False)

    def __getitem__(self, stage: str) -> StageResult:
        try:
            return self.upstream[stage]
        except KeyError:
            raise KeyError(
                f"stage {stage!r} has no results in this run; add it to stages=[...]"
            ) from None


@dataclass(frozen=True)
class UnitContext:
    """Per-unit view: where to write extra files and a generator seeded for this unit alone."""

    stage: str
    unit_id: str
    seed: int
    workdir: Path
    upstream: StageContext

    def rng(self, *salt: str) -> np.random.Generator:
        """A generator derived from (seed, stage, unit id, salt): independent of run order."""
        return unit_rng(self.seed, self.stage, self.unit_id, *salt)

    def count(self, counter: str, n: int = 1) -> None:
        """Add n to a live counter shown beside the stage's progress bar (with its rate)."""
        if self.upstream.report is not None:
            self.upstream.report(counter, n)


@runtime_checkable
class Stage(Protocol):
    """One pipeline stage. Implementations are plain classes with keyword-only constructors."""

    name: ClassVar[str]
    version: ClassVar[str]
    upstream: ClassVar[Sequence[str]]
    #: True when outputs depend on the root seed (then the seed is part of the fingerprint).
    uses_seed: ClassVar[bool]
    #: True for stages that wait on the network: they run in threads, not processes.
    io_bound: ClassVar[bool]
    #: Threads an io-bound stage can keep busy (the runner uses max(workers, threads)).
    threads: ClassVar[int]
    #: One unit at a time whatever ``workers`` says (an in-process model on one device).
    serial: ClassVar[bool]
    #: Units that spread over the run's cores themselves (`xlebench.runner.cores`) and read
    #: what this process computed before them: ``workers=0`` never moves them to a pool.
    spreads: ClassVar[bool]
    #: Whether ``workers=0`` may fork this process for the rest of the units.
    forks: ClassVar[bool]
    #: A file ``run`` writes holding exactly its record as JSON (linked as record.json).
    record_file: ClassVar[str | None]

    def prompt_files(self) -> Sequence[Path]:
        """Prompt templates whose content is part of the fingerprint."""
        ...

    def setup(self, ctx: StageContext) -> None:
        """Load shared state once per worker process (indexes, models)."""
        ...

    def units(self, ctx: StageContext) -> list[Unit]:
        """The units of work, in output order."""
        ...

    def run(self, unit: Unit, ctx: UnitContext) -> dict:
        """Compute one unit. Return a JSON-serialisable record; extra files go to ctx.workdir."""
        ...

    def finish(self, records: dict[str, dict]) -> dict[str, dict]:
        """The stage's records as downstream stages see them, from every unit's record
        (cached or computed): a decision that needs all units at once (an item that prints
        another recipe's answer). Pure and cheap: it runs on every run, never cached."""
        ...

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        """Write the user-facing files of this stage into the benchmark folder.

        Returns counts for the manifest. Must be deterministic given the records, and write
        only paths listed by `owned_paths`.
        """
        ...

    def owned_paths(self) -> Sequence[str]:
        """Paths (globs relative to the benchmark folder) that this stage's export writes and
        that no other stage writes: they are removed before the stage exports anew."""
        ...

    def prepare(self, pending: Sequence[Unit], ctx: StageContext) -> None:
        """Once, before ``pending`` run, work better done for all of them at once."""
        ...

    def remember(self, published: Path) -> None:
        """Before the stage's published paths are cleared for its export: read what must
        carry over from the published benchmark (an evaluation's earlier records)."""
        ...

    def share(self, ctx: StageContext, result: StageResult | None) -> None:
        """In a shard job, the benchmark-wide work the stage's units or export ask of its task
        store (`xlebench.runner.tasks`), done for this job's share, so that the jobs split it
        and the merge run reads it. Called twice: before the stage's units, with ``result``
        None (work that reads only upstream: the evaluate stage's panel, which a job whose
        share holds no system must do before it waits for the others' units), and once every
        unit is there, with the stage's result (work over its records: the validity check)."""
        ...


class BaseStage:
    """Defaults for the optional parts of the protocol, so stages state only what they need."""

    upstream: ClassVar[Sequence[str]] = ()
    uses_seed: ClassVar[bool] = True
    io_bound: ClassVar[bool] = False
    threads: ClassVar[int] = 1
    #: What `owned_paths` returns unless a stage decides per result.
    outputs: ClassVar[tuple[str, ...]] = ()
    #: One unit at a time whatever ``workers`` says (an in-process model on one device).
    serial: ClassVar[bool] = False
    #: Units that spread over the run's cores themselves: ``workers=0`` keeps them here.
    spreads: ClassVar[bool] = False
    #: ``workers=0`` may hand the rest of the units to processes forked from this one
    #: (`xlebench.runner.forked`); False keeps them here, where that was measured not to pay.
    forks: ClassVar[bool] = True
    #: A file ``run`` writes in its workdir holding exactly the returned record as JSON (its
    #: published form): the runner links ``record.json`` to it instead of encoding the record
    #: a second time. None: the runner encodes the record.
    record_file: ClassVar[str | None] = None

    def waits_on_network(self, concurrency: int) -> None:
        """Mark this instance network-bound (an LLM behind it): its units run in threads, as
        many as the client lets run at once."""
        self.io_bound = True  # type: ignore[misc] - per instance, set by configuration
        self.threads = max(1, concurrency)  # type: ignore[misc]

    def prompt_files(self) -> Sequence[Path]:
        return ()

    def setup(self, ctx: StageContext) -> None:
        return None

    def prepare(self, pending: Sequence[Unit], ctx: StageContext) -> None:
        """Once, in the runner's process, before ``pending`` run: work done better for all of
        them at once than unit by unit (one large embedding call instead of many small ones).
        It must not change what any unit computes, and must leave nothing on ``self`` (the
        stage is sent to worker processes afterwards)."""
        return None

    def finish(self, records: dict[str, dict]) -> dict[str, dict]:
        return records

    def export(self, result: StageResult, dest: Path) -> dict[str, Any]:
        return {"records": len(result.records)}

    def remember(self, published: Path) -> None:
        return None

    def share(self, ctx: StageContext, result: StageResult | None) -> None:
        return None

    def owned_paths(self) -> Sequence[str]:
        return self.outputs
