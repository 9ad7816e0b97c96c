"""Typed schemas for every config group, registered in Hydra's ConfigStore.

Each option file under ``conf/<group>/`` starts its defaults list with
``/schema/<group>/<kind>@_here_``, so Hydra checks its keys and types at compose time: a typo
such as ``library.n_vidoes=5`` fails before anything runs, with Hydra's own message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from xlebench.eval.parse import DEFAULT_FAILURE_PATTERNS

PIPELINE = ("library", "persona", "plan", "simulate", "render", "annotate", "evaluate", "report")


@dataclass
class PathsConfig:
    outputs: str = "outputs"
    cache: str = "${paths.outputs}/cache"
    benchmarks: str = "${paths.outputs}/benchmarks"


# --- library -------------------------------------------------------------------------------


@dataclass
class Ego4DSelection:
    """The paper's selection rules plus optional annotation requirements."""

    require_nlq: bool = False
    require_moments: bool = False
    labeller: str = "heuristic"  # heuristic | llm | gemini_video
    consolidator: str = "extractive"  # extractive | llm
    #: Threads for network-bound labelling (llm: at most llm.max_concurrency requests anyway).
    label_workers: int = 8
    gemini_model: str = "gemini-1.5-pro"
    gemini_key_env: str = "GEMINI_API_KEY"


@dataclass
class SyntheticLibraryConfig(Ego4DSelection):
    kind: str = "synthetic"
    seed: int = 0
    n_videos: int = 400
    quirk_rate: float = 0.02
    two_pass_fraction: float = 0.3
    narrations_per_min: float = 12.0
    nlq_fraction: float = 0.5
    moments_fraction: float = 0.4
    media_width: int = 160
    media_height: int = 120
    media_fps: int = 2


@dataclass
class Ego4DLibraryConfig(Ego4DSelection):
    kind: str = "ego4d"
    root: str = MISSING


@dataclass
class ReleaseLibraryConfig:
    kind: str = "xlebench_release"
    path: str = MISSING


# --- matcher -------------------------------------------------------------------------------


@dataclass
class EmbedderConfig:
    kind: str = "minilm"  # minilm | hashing
    model: str | None = None  # a local sentence-transformers folder; None = bundled MiniLM
    dim: int = 384
    batch_size: int = 64


@dataclass
class IndexConfig:
    kind: str = "flat_ip"  # flat_ip | hnsw
    hnsw_m: int = 32
    faiss_threads: int = 1


@dataclass
class LadderStep:
    name: str = MISSING
    min_iou: float = 0.33
    same_country: bool = True
    scene_time: bool = True


@dataclass
class MatcherConfig:
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    ladder: list[LadderStep] = field(default_factory=list)
    top_k_sample: int = 1
    max_candidates_in_trace: int = 5


# --- llm -----------------------------------------------------------------------------------


@dataclass
class LLMConfig:
    backend: str = "offline"  # offline | litellm | replay
    model: str = "offline"
    api_base: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.7
    max_tokens: int = 2048
    max_retries: int = 3
    max_retries_on_rate_limit: int = 5
    backoff_s: float = 1.0
    max_concurrency: int = 8
    timeout_s: float = 60.0
    extra: dict[str, Any] = field(default_factory=dict)


# --- persona / planner / simulation ----------------------------------------------------------


@dataclass
class PersonaGridConfig:
    kind: str = "grid"
    locations: list[str] = field(default_factory=list)
    mbti: list[str] = field(default_factory=list)


@dataclass
class PersonaFilesConfig:
    kind: str = "files"
    dir: str = "personas"
    glob: str = "*.yaml"


@dataclass
class PlannerConfig:
    kind: str = "offline"  # offline | llm
    min_chunks: int = 16
    gap_min_s: int = 300
    gap_max_s: int = 1200
    min_gap_s: int = 150
    daytime: list[str] = field(default_factory=lambda: ["06:00", "17:00"])
    twilight: list[str] = field(default_factory=lambda: ["17:00", "19:00"])
    max_reflection_retries: int = 2
    reflection: bool = True
    #: LLM planner prompt ids (files xlebench/prompts/<id>.txt); a new wording is a new version.
    prompts: dict[str, str] = field(default_factory=lambda: {
        "persona": "planner/persona.v1", "daily_plan": "planner/daily_plan.v1",
        "chunking": "planner/chunking.v1", "chunk_info": "planner/chunk_info.v1",
        "reflection": "planner/reflection.v1",
    })


@dataclass
class SimulationConfig:
    lengths: dict[str, int] = field(default_factory=dict)
    n_chunks: int | None = None
    day_end: str = "overflow"  # overflow | truncate | drop


@dataclass
class FramesConfig:
    #: N frames uniformly over each whole life log (paper's end-to-end baseline: 1200; 0 = off).
    uniform_n: int = 0
    #: Frames per second inside each 30-second source segment (Socratic baselines: 1; 0 = off).
    segment_fps: float = 0.0
    segment_s: float = 30.0
    width: int = 560
    height: int = 420


@dataclass
class RenderConfig:
    kind: str = "none"  # none | concat | reencode
    #: Render only the first N life logs (sorted by id); null = all.
    max_logs: int | None = None
    #: Folder holding v2/full_scale/<video_uid>.mp4 (Ego4D / release libraries); null = the
    #: library's own root (ego4d) or generated media (synthetic).
    media_root: str | None = None
    width: int = 640
    height: int = 480
    fps: int = 10
    crf: int = 28
    preset: str = "ultrafast"
    burn_clock: bool = False
    frames: FramesConfig = field(default_factory=FramesConfig)


@dataclass
class RetrievalTaskConfig:
    #: NLQ template categories (text before the colon) that make this subtask.
    templates: list[str] = field(default_factory=list)
    max_per_segment: int | None = 2
    max_items_per_log: int | None = 8


@dataclass
class MomentTaskConfig:
    max_per_segment: int | None = 2
    max_items_per_log: int | None = 8


@dataclass
class SingleSummaryTaskConfig:
    max_items_per_log: int | None = None


@dataclass
class MultiSummaryTaskConfig:
    boundaries: list[str] = field(default_factory=lambda: ["12:00", "17:00"])
    min_segments: int = 1


@dataclass
class HolisticSummaryTaskConfig:
    boundaries: list[str] = field(default_factory=lambda: ["12:00", "17:00"])


@dataclass
class CountingTaskConfig:
    window_lengths_s: list[int] = field(default_factory=lambda: [60, 120, 180])
    min_window_s: int = 60
    min_actions: int = 2
    max_actions: int = 5
    max_items_per_log: int | None = 4


@dataclass
class OrderingTaskConfig:
    min_summaries: int = 3


@dataclass
class EvalConfig:
    #: Built-in systems: text_retrieval (offline), socratic, retrieve_socratic (need an llm).
    systems: list[str] = field(default_factory=lambda: ["text_retrieval"])
    #: A predictions file (JSONL of {"item_id", "response"}) scored as system predictions-<stem>.
    predictions: str | None = None
    ks: list[int] = field(default_factory=lambda: [1, 5])
    tious: list[float] = field(default_factory=lambda: [0.3, 0.5])
    bertscore: bool = True
    #: null = the bundled all-MiniLM-L6-v2; or a local model folder (e.g. roberta-large).
    bertscore_model: str | None = None
    bertscore_layer: int | None = None
    bootstrap: int = 1000
    record_s: float = 30.0
    failure_patterns: list[str] = field(default_factory=lambda: list(DEFAULT_FAILURE_PATTERNS))


@dataclass
class XLeBenchConfig:
    name: str = "demo"
    seed: int = 0
    stages: list[str] = field(default_factory=lambda: [
        "library", "persona", "plan", "simulate", "render", "annotate", "evaluate"])
    force: list[str] = field(default_factory=list)
    workers: int = 1
    fail_fast: bool = False
    retries: int = 0
    progress: bool = True
    paths: PathsConfig = field(default_factory=PathsConfig)
    library: Any = MISSING
    matcher: Any = MISSING
    llm: Any = MISSING
    persona: Any = MISSING
    planner: Any = MISSING
    simulation: Any = MISSING
    render: Any = MISSING
    #: Task recipes (multi-select group conf/tasks/); each key is one subtask's parameters.
    tasks: dict[str, Any] = field(default_factory=dict)
    #: How multi-video and holistic summaries are aggregated: offline | llm.
    aggregator: str = "offline"
    eval: EvalConfig = field(default_factory=EvalConfig)


SCHEMAS: dict[str, dict[str, type]] = {
    "library": {
        "synthetic": SyntheticLibraryConfig,
        "ego4d": Ego4DLibraryConfig,
        "xlebench_release": ReleaseLibraryConfig,
    },
    "matcher": {"matcher": MatcherConfig},
    "matcher/embedder": {"embedder": EmbedderConfig},
    "matcher/index": {"index": IndexConfig},
    "llm": {"llm": LLMConfig},
    "persona": {"grid": PersonaGridConfig, "files": PersonaFilesConfig},
    "planner": {"planner": PlannerConfig},
    "simulation": {"simulation": SimulationConfig},
    "render": {"render": RenderConfig},
    "tasks": {
        "object_retrieval": RetrievalTaskConfig, "people_retrieval": RetrievalTaskConfig,
        "moment_retrieval": MomentTaskConfig, "single_summary": SingleSummaryTaskConfig,
        "multi_summary": MultiSummaryTaskConfig, "holistic_summary": HolisticSummaryTaskConfig,
        "action_counting": CountingTaskConfig, "summary_ordering": OrderingTaskConfig,
    },
}


def register() -> None:
    """Register the primary schema and every group schema (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="xlebench_schema", node=XLeBenchConfig)
    for group, options in SCHEMAS.items():
        for name, node in options.items():
            cs.store(group=f"schema/{group}", name=name, node=node)
