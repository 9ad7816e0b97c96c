"""What an export format's writer reads besides the items and the life logs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ExportJob:
    """The benchmark's name and configuration, its recipes (and where each came from), the
    exporting run's evaluation settings, and the upstream stages' results (``upstream[stage]``:
    fingerprints, records)."""

    bench_name: str
    config_yaml: str
    recipes: dict[str, Any]
    targets: dict[str, str | None]
    eval_settings: dict[str, Any]
    max_new_tokens: int
    library_kind: str
    upstream: Any
