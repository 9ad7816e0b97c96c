"""Typed schemas for every config group (Hydra's ConfigStore: `xlebench.commands.configstore`).

Each option file under ``conf/<group>/`` starts its defaults list with
``/schema/<group>/<kind>@_here_``, so Hydra checks its keys and types at compose time: a typo
such as ``library.n_vidoes=5`` fails before anything runs, with Hydra's own message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import MISSING

from xlebench.config.annotate import AnnotateConfig, CertificateConfig
from xlebench.config.endpoints import EndpointConfig, LLMConfig, TransformersVLMConfig, VLMConfig
from xlebench.config.evaluation import EvalConfig, JudgingConfig
from xlebench.config.exports import DEFAULT_EXPORTS, EXPORT_FORMATS
from xlebench.config.knobs import knob
from xlebench.config.matcher import (
    CompatibilityConfig,
    DiversityConfig,
    DiversitySampleConfig,
    EmbedderConfig,
    IndexConfig,
    LadderStep,
    MatcherConfig,
)

__all__ = ["AnnotateConfig", "CertificateConfig", "CompatibilityConfig", "DiversityConfig",
           "DiversitySampleConfig", "EmbedderConfig", "EndpointConfig", "EvalConfig",
           "IndexConfig", "JudgingConfig", "LLMConfig", "LadderStep", "MatcherConfig",
           "TransformersVLMConfig", "VLMConfig"]  # declared elsewhere

PIPELINE = ("library", "persona", "plan", "simulate", "render", "annotate", "respond", "evaluate",
            "export", "report")


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
    labeller: str = knob("heuristic", choices=("heuristic", "llm", "gemini_video"))
    consolidator: str = knob("extractive", choices=("extractive", "llm"))
    #: Threads for network-bound labelling (llm: at most llm.max_concurrency requests anyway).
    label_workers: int = knob(8, ge=1, le=256)
    gemini_model: str = "gemini-1.5-pro"
    gemini_key_env: str = "GEMINI_API_KEY"


@dataclass
class SyntheticLibraryConfig(Ego4DSelection):
    kind: str = "synthetic"
    seed: int = 0
    n_videos: int = knob(400, ge=1, le=200_000)
    quirk_rate: float = knob(0.02, ge=0, le=1)
    two_pass_fraction: float = knob(0.3, ge=0, le=1)
    narrations_per_min: float = knob(12.0, gt=0, le=120)
    #: Shares of videos with NLQ queries / moments labels. Ego4D's episodic-memory subsets
    #: cover a minority of its videos (about one in seven for NLQ, one in six for moments;
    #: a few 8-minute clips of each), not half.
    nlq_fraction: float = knob(0.15, ge=0, le=1)
    moments_fraction: float = knob(0.17, ge=0, le=1)
    media_width: int = knob(160, ge=16, le=3840)
    media_height: int = knob(120, ge=16, le=2160)
    media_fps: int = knob(2, ge=1, le=60)


@dataclass
class Ego4DLibraryConfig(Ego4DSelection):
    kind: str = "ego4d"
    root: str = MISSING


@dataclass
class ReleaseLibraryConfig:
    kind: str = "xlebench_release"
    path: str = MISSING
    #: A local Ego4D download (v2/annotations/ NLQ, moments, narrations) paired with the
    #: authors' library, so the paper path yields every subtask; null = summaries only.
    annotations_root: str | None = None


# --- matcher -------------------------------------------------------------------------------


@dataclass
class PersonaGridConfig:
    kind: str = "grid"
    locations: list[str] = field(default_factory=list)
    mbti: list[str] = field(default_factory=list)
    #: Personas per location x MBTI cell, each with its own seed and name (a household of
    #: its own): ``experiment=paper persona.per_cell=10`` is the paper's design at ten
    #: times its size; 1 is the paper's grid, byte for byte.
    per_cell: int = knob(1, ge=1, le=100)


@dataclass
class PersonaFilesConfig:
    kind: str = "files"
    dir: str = "personas"
    glob: str = "*.yaml"


@dataclass
class PlannerConfig:
    kind: str = knob("offline", choices=("offline", "llm"))
    min_chunks: int = knob(16, ge=1, le=200)
    gap_min_s: int = knob(300, ge=0, le=86_400)
    gap_max_s: int = knob(1200, ge=0, le=86_400)
    min_gap_s: int = knob(150, ge=0, le=86_400)
    daytime: list[str] = field(default_factory=lambda: ["06:00", "17:00"])
    twilight: list[str] = field(default_factory=lambda: ["17:00", "19:00"])
    max_reflection_retries: int = knob(2, ge=0, le=20)
    reflection: bool = True
    #: Offline chunk text, the sentence the matcher ranks videos with: ``plan`` = a short
    #: plan of ``activities_per_chunk`` activities (the chunk's own and the ones after it) in
    #: the caption style "C is ...ing in the <place>, then ..."; ``agenda`` = the same
    #: activities as plain agenda entries joined, as the authors' chunks read ("Get ready for
    #: the day, then make coffee, then have breakfast."); ``activity`` = one activity.
    chunk_text: str = knob("plan", choices=("plan", "agenda", "activity"))
    #: A chunk's scenario set (the rule filter's Jaccard): ``window`` = those of every
    #: activity its text names; ``own`` = its own activity's only.
    chunk_scenarios: str = knob("window", choices=("window", "own"))
    activities_per_chunk: int = knob(3, ge=1, le=8)
    #: Offline agendas and the persona's bedtime: ``fit`` = the activities between two
    #: anchors (and after dinner, before the persona's ``sleep`` time) are fitted into the
    #: time there is — optional ones (an errand, a chore, the wind-down) dropped first, the
    #: rest shortened to no less than 15 minutes; ``ignore`` = every activity at its drawn
    #: length, however late the day ends (the planner before 2026-11-24: median plan end
    #: 00:24 against bedtimes of 22:30-23:45).
    bedtime: str = knob("fit", choices=("fit", "ignore"))
    #: LLM planner prompt ids (files xlebench/prompts/<id>.txt); a new wording is a new version.
    prompts: dict[str, str] = field(default_factory=lambda: {
        "persona": "planner/persona.v1", "daily_plan": "planner/daily_plan.v1",
        "chunking": "planner/chunking.v1", "chunk_info": "planner/chunk_info.v1",
        "reflection": "planner/reflection.v1",
    })


    @property
    def daytime_s(self) -> tuple[int, int]:
        """The daytime class bounds in seconds of the day (from ``daytime``, HH:MM)."""
        return _seconds(self.daytime)

    @property
    def twilight_s(self) -> tuple[int, int]:
        return _seconds(self.twilight)


def _seconds(bounds: list[str]) -> tuple[int, int]:
    from xlebench.clock import parse_hhmm

    return parse_hhmm(bounds[0]), parse_hhmm(bounds[1])


@dataclass
class SimulationConfig:
    lengths: dict[str, int] = knob(factory=dict, ge=1, le=200, each=True)
    n_chunks: int | None = knob(None, ge=1, le=200)
    day_end: str = knob("overflow", choices=("overflow", "truncate", "drop"))
    #: Days per life log: one plan per day, the length's chunks sampled from each day, days on
    #: one clock (day 2 starts at 86400 s and is written "+1 HH:MM"). Offline planner only.
    days: int = knob(1, ge=1, le=14)
    #: Segments start on multiples of this many seconds (a chunk's start is rounded up when it
    #: is matched). 1 keeps second resolution; the paper's release starts whole minutes (60),
    #: which is what lets its readers recover video time from an ``HH:MM`` start.
    start_resolution_s: int = knob(1, ge=1, le=3600)
    #: A segment ends at start + ceil(video duration) (never overlaps the next) or, as the
    #: authors do, floor(start + duration).
    segment_end: str = knob("ceil", choices=("ceil", "floor"))
    #: With ``day_end=overflow``: no segment starts at or after this clock time of the next
    #: day ("03:00"); the chunk and the rest of its day are dropped and noted. The release's
    #: readers add 24 h to a plain ``HH:MM`` only up to such an hour, so a later segment would
    #: be read as the morning of the same day. None: no limit.
    latest_start: str | None = None


@dataclass
class FramesConfig:
    #: N frames uniformly over each whole life log (paper's end-to-end baseline: 1200; 0 = off).
    uniform_n: int = knob(0, ge=0, le=100_000)
    #: Frames per second inside each 30-second source segment (Socratic baselines: 1; 0 = off).
    segment_fps: float = knob(0.0, ge=0, le=30)
    segment_s: float = knob(30.0, gt=0, le=3600)
    width: int = knob(560, ge=16, le=3840)
    height: int = knob(420, ge=16, le=2160)


@dataclass
class RenderConfig:
    kind: str = knob("none", choices=("none", "concat", "reencode"))
    #: Render only the first N life logs (sorted by id); null = all.
    max_logs: int | None = knob(None, ge=0)
    #: Folder holding v2/full_scale/<video_uid>.mp4 (Ego4D / release libraries); null = the
    #: library's own root (ego4d) or generated media (synthetic).
    media_root: str | None = None
    width: int = knob(640, ge=16, le=3840)
    height: int = knob(480, ge=16, le=2160)
    fps: int = knob(10, ge=1, le=120)
    crf: int = knob(28, ge=0, le=51)
    preset: str = knob("ultrafast", choices=("ultrafast", "superfast", "veryfast", "faster",
                                             "fast", "medium", "slow", "slower", "veryslow"))
    burn_clock: bool = False
    frames: FramesConfig = field(default_factory=FramesConfig)


@dataclass
class ShardConfig:
    """Split the units of some stages across jobs: this job computes every ``count``-th unit of
    each sharded stage from the ``index``-th (even shares); the other stages run whole in every
    job (cheap, and shared through the cache). A shard job publishes nothing and stops after
    the last sharded stage; a last run with count=1 merges (every unit cached) and
    publishes."""

    index: int = knob(0, ge=0)
    count: int = knob(1, ge=1, le=100_000)
    #: annotate and evaluate: their units, and the tasks of the validity check's and the
    #: evaluate stage's panels (`xlebench.runner.tasks`), which every job would otherwise
    #: compute whole.
    stages: list[str] = field(default_factory=lambda: ["plan", "annotate", "respond",
                                                       "evaluate"])
    #: After its share of a stage, a job waits for the other shards' units while they keep
    #: arriving (at most this many seconds without a new one), then does its share of the
    #: next sharded stage; jobs that do not run at the same time: 0.
    wait_s: float = knob(120.0, ge=0, le=86_400)


@dataclass
class ExportConfig:
    """Formats written under ``export/`` by the export stage, as `xlebench.config.exports`
    declares them (what each is, which are written by default, which read another)."""

    formats: list[str] = knob(factory=lambda: list(DEFAULT_EXPORTS), choices=EXPORT_FORMATS,
                              each=True)
    #: lmms-eval generation budget per reply.
    max_new_tokens: int = knob(256, ge=1, le=32_768)


@dataclass
class XLeBenchConfig:
    name: str = "demo"
    #: Evaluate a published benchmark by name (under paths.benchmarks) or folder: its
    #: configuration is read from its manifest (xlebench/commands/adopt.py).
    benchmark: str | None = None
    seed: int = knob(0, ge=0)
    stages: list[str] = field(default_factory=lambda: [
        "library", "persona", "plan", "simulate", "render", "annotate", "evaluate", "export",
        "report"])
    force: list[str] = field(default_factory=list)
    #: Processes running a stage's units; 0 = the run's cores, where a pool pays for itself.
    workers: int = knob(0, ge=0, le=256)
    #: Cores the benchmark-wide steps spread over (`xlebench.runner.cores`); 0 = every CPU.
    cores: int = knob(0, ge=0, le=1024)
    fail_fast: bool = False
    retries: int = knob(0, ge=0, le=10)
    progress: bool = True
    overwrite: bool = False
    shard: ShardConfig = field(default_factory=ShardConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    library: Any = MISSING
    matcher: Any = MISSING
    #: The LLM that compiles: planner, aggregator, generators, filters (benchmark identity).
    llm: Any = MISSING
    #: The models that answer and judge (each evaluation's own, never the benchmark's).
    vlm: Any = MISSING
    answerer: Any = MISSING
    judge: Any = MISSING
    persona: Any = MISSING
    planner: Any = MISSING
    simulation: Any = MISSING
    render: Any = MISSING
    #: Task recipes (multi-select group conf/tasks/); each key is one recipe's parameters,
    #: typed by the schema its declaration carries (xlebench/tasks/<name>.py).
    tasks: dict[str, Any] = field(default_factory=dict)
    #: How multi-video and holistic summaries are aggregated: offline | llm.
    aggregator: str = knob("offline", choices=("offline", "llm"))
    certificate: CertificateConfig = field(default_factory=CertificateConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    export: ExportConfig = field(default_factory=ExportConfig)
    annotate: AnnotateConfig = field(default_factory=AnnotateConfig)


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
    "vlm": {"vlm": VLMConfig, "transformers": TransformersVLMConfig},
    "persona": {"grid": PersonaGridConfig, "files": PersonaFilesConfig},
    "planner": {"planner": PlannerConfig},
    "simulation": {"simulation": SimulationConfig},
    "render": {"render": RenderConfig},
}


_ABSENT = object()


def is_schema_default(path: str, value: Any) -> bool:
    """Whether the knob at dotted ``path`` has ``value`` as its schema default (for a group,
    in every schema of the group that has the knob). A benchmark published before the knob
    existed was made as with its default, so `xlebench.publish` does not count it as changed."""
    parts = path.split(".")
    for n in range(len(parts) - 1, 0, -1):
        schemas = SCHEMAS.get("/".join(parts[:n]))
        if schemas is not None:
            found = [_default(node, ".".join(parts[n:])) for node in schemas.values()]
            found = [f for f in found if f is not _ABSENT]
            return bool(found) and all(f == value for f in found)
    return _default(XLeBenchConfig, path) == value


def _default(node: type, path: str) -> Any:
    parts = path.split(".")
    index = next((k for k, part in enumerate(parts) if part.isdigit()), None)
    if index is not None:  # a knob of a list's items (matcher.ladder.0.scenarios)
        item = _item_type(node, parts[:index])
        return _ABSENT if item is None else _default(item, ".".join(parts[index + 1:]))
    from omegaconf import OmegaConf

    found = OmegaConf.select(OmegaConf.structured(node), path, default=_ABSENT,
                             throw_on_missing=False)
    return OmegaConf.to_object(found) if OmegaConf.is_config(found) else found


def _item_type(node: type, parts: list[str]) -> type | None:
    """The item schema of the list field at ``parts`` (``list[LadderStep]`` -> LadderStep)."""
    import dataclasses
    import typing

    for k, part in enumerate(parts):
        if not dataclasses.is_dataclass(node):
            return None
        hint = typing.get_type_hints(node).get(part)
        if hint is None:
            return None
        if k == len(parts) - 1:
            args = typing.get_args(hint)
            return args[0] if typing.get_origin(hint) is list and args and \
                dataclasses.is_dataclass(args[0]) else None
        node = hint
    return None
