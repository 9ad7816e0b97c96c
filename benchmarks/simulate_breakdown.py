"""Where the simulate stage's time goes: the real CLI, in this process, with wall-clock timers
around the stage's parts.

Run it on an outputs folder whose library, persona and plan stages are cached and whose
simulate stage is not (``grid_compile.py`` prepares one), with the overrides that compiled
it. It prints the stage's seconds as the run summary records them, split into parts that add
up to it:

- ``setup``: loading the library view (videos, FAISS index) and building the rule filter;
- ``matching``: rule filter, relaxation ladder, FAISS ranking and the match's trace
  (``simulate.engine._match``): the work ``grid_compile.py``'s lower bound times alone;
- ``reflection_and_segments``: the rest of ``simulate_log`` (offline reflection, segments);
- ``published_encoding``: encoding each life log's published form (indented JSON);
- ``unit_other``: the rest of a unit's ``run`` (its plan and vectors, the record, the write);
- ``record_and_publish``: the runner's record link, rename into place and marker;
- ``runner_rest``: the remainder (the unit's private folder, its clean-up, the stage's sync).

The timers cost about a microsecond per call (some 6000 calls on the paper grid).

Usage: python benchmarks/simulate_breakdown.py paths.outputs=DIR experiment=paper ...
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

SECONDS: Counter[str] = Counter()
CALLS: Counter[str] = Counter()


def _timed(owner: Any, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper adding its wall time to SECONDS[label]."""
    inner: Callable = getattr(owner, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            SECONDS[label] += time.perf_counter() - start
            CALLS[label] += 1

    setattr(owner, name, wrapper)


def install_timers() -> None:
    """Time the parts where the simulate stage calls them (module-level names are looked up
    in the module that calls them, so each is replaced there)."""
    import xlebench.runner.execute as execute
    import xlebench.simulate.engine as engine
    import xlebench.stages.simulate as simulate

    _timed(simulate.SimulateStage, "setup", "setup")
    _timed(simulate.SimulateStage, "run", "run")
    _timed(simulate, "simulate_log", "simulate_log")
    _timed(simulate, "dumps", "published_encoding")
    _timed(engine, "_match", "matching")
    _timed(execute, "_keep_record", "record")
    _timed(execute, "_publish", "publish")


def parts(stage_seconds: float) -> dict[str, float]:
    """Exclusive seconds per part; they add up to the stage's seconds."""
    s = SECONDS
    out = {
        "setup": s["setup"],
        "matching": s["matching"],
        "reflection_and_segments": s["simulate_log"] - s["matching"],
        "published_encoding": s["published_encoding"],
        "unit_other": s["run"] - s["simulate_log"] - s["published_encoding"],
        "record_and_publish": s["record"] + s["publish"],
    }
    out["runner_rest"] = stage_seconds - sum(out.values())
    return {k: round(v, 3) for k, v in out.items()}


def main(overrides: list[str]) -> dict:
    outputs = next(Path(a.split("=", 1)[1]) for a in overrides
                   if a.startswith("paths.outputs="))
    install_timers()
    from xlebench.commands.cli import main as cli_main

    sys.argv = ["xlebench", *overrides]
    try:
        cli_main()
    except SystemExit as exc:
        if exc.code:
            raise
    summary = sorted(outputs.glob("runs/*/*/run_summary.json"))[-1]
    stages = {s["stage"]: s for s in json.loads(summary.read_text())["stages"]}
    ran = sorted(name for name, s in stages.items() if s["done"] and name != "simulate")
    if ran or not stages.get("simulate", {}).get("done"):
        # the runner's timers (record, publish) would count the other stages' units too
        raise SystemExit(f"{outputs}: stages {ran or 'none'} computed units, simulate "
                         f"{stages.get('simulate', {}).get('done', 0)}; run this where library, "
                         "persona and plan are cached and simulate is not")
    stage = stages["simulate"]
    return {"units": stage["done"], "stage_seconds": round(stage["seconds"], 3),
            "parts_seconds": parts(stage["seconds"]),
            "matching_calls": CALLS["matching"]}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=1))
