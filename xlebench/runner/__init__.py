"""The stage runner: fingerprints, on-disk cache, atomic writes, resume, parallelism, counters."""

from xlebench.runner.runner import Runner, RunSummary, StageResult
from xlebench.runner.stage import Stage, StageContext, Unit

__all__ = ["Runner", "RunSummary", "Stage", "StageContext", "StageResult", "Unit"]
