"""The annotate stage's schema (``annotate``, ``certificate``): which items ship —
repeated sources, items that print other items' answers, the held-out split — and how the
temporal certificate is measured; checked at compose time (`xlebench.config.schema`)."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob


@dataclass
class CertificateConfig:
    """How long a stretch of video an item's answer needs (EgoSchema's temporal certificate):
    evidence spans of at least ``min_span_s``, merged where closer than ``merge_gap_s``."""

    min_span_s: float = knob(0.1, gt=0, le=3600)
    merge_gap_s: float = knob(5.0, ge=0, le=3600)
    #: Histogram bucket edges (seconds) for stats/tasks.json.
    buckets_s: list[float] = knob(factory=lambda: [30, 75, 133, 180, 600, 3600], gt=0,
                                  each=True)


@dataclass
class AnnotateConfig:
    #: NLQ and moments windows shorter than this (seconds) are skipped and counted.
    min_duration_s: float = knob(0.0, ge=0, le=3600)
    #: Keep every life log's item about a source annotation (the paper's repetition, for
    #: fidelity runs). Off: each source is asked once across the benchmark, the repeats
    #: dropped and counted per subtask in stats/tasks.json.
    repeat_sources: bool = False
    #: ``drop``: of an item whose query prints another item's answer (same life log or source
    #: video) and that item, one is dropped and counted; ``keep``: both ship (the paper's
    #: forms), counted in stats/tasks.json (printed_answers).
    printed_answers: str = knob("drop", choices=("drop", "keep"))
    #: Share of life logs held out as the test split: their answers stay out of every export
    #: but the questions view (xlebench/split.py); 0 = no split.
    heldout: float = knob(0.0, ge=0, le=0.9)
