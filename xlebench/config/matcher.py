"""The matcher's schemas (``matcher`` group): the sentence embedder and the FAISS index, the
relaxation ladder, diversity-aware matching and Neptune's diversity sampling, and which library
scenes and times each plan chunk accepts."""

from __future__ import annotations

from dataclasses import dataclass, field

from omegaconf import MISSING

from xlebench.config.knobs import knob


@dataclass
class EmbedderConfig:
    kind: str = knob("minilm", choices=("minilm", "hashing"))
    model: str | None = None  # a local sentence-transformers folder; None = bundled MiniLM
    dim: int = knob(384, ge=8, le=8192)
    batch_size: int = knob(64, ge=1, le=4096)
    #: bf16: the encoder's matrix products in bfloat16 under autocast (norms and softmax stay
    #: float32; 1.4-1.7x faster on CPUs with bfloat16 instructions, AVX-512 BF16 or AMX;
    #: emulated and about 6x slower on others, which a warning names), cosine to fp32
    #: >= 0.9999, its vectors stored apart from fp32 ones. fp32 keeps the released numbers.
    precision: str = knob("fp32", choices=("fp32", "bf16"))
    #: cuda: encode on the GPU (a 100k-video library in seconds rather than minutes). GPU
    #: kernels give other bits than the CPU's (cosine >= 0.9999, benchmarks/bf16_embedding.py),
    #: so its vectors are stored apart and cpu stays the default: a benchmark compiled on a
    #: GPU machine with cpu is the one compiled anywhere else.
    device: str = knob("cpu", choices=("cpu", "cuda"))


@dataclass
class IndexConfig:
    kind: str = knob("flat_ip", choices=("flat_ip", "hnsw"))
    hnsw_m: int = knob(32, ge=4, le=256)
    faiss_threads: int = knob(1, ge=1, le=256)


@dataclass
class LadderStep:
    name: str = MISSING
    min_iou: float = knob(0.33, ge=0, le=1)
    same_country: bool = True
    scene_time: bool = True
    #: Which scenario set the Jaccard IoU reads: the chunk's own (``chunk``), or those of every
    #: activity its text names (``window``; the same as ``chunk`` under
    #: planner.chunk_scenarios=window).
    scenarios: str = knob("chunk", choices=("chunk", "window"))


@dataclass
class DiversitySampleConfig:
    """Neptune's diversity sampling of the library before matching
    (`xlebench.simulate.diversity_sample`): ``n`` videos drawn from the joint distribution of
    summary-embedding clusters and the library fields in ``by``, each combination's share
    raised to ``alpha`` (1: uniform over videos, 0: uniform over combinations). ``n: null``
    (the default) matches against the whole library."""

    n: int | None = knob(None, ge=1)
    clusters: int = knob(16, ge=1, le=1000)
    alpha: float = knob(0.5, ge=0, le=1)
    by: list[str] = knob(factory=lambda: ["country"],
                         choices=("country", "scene", "time_period", "university"), each=True)


@dataclass
class DiversityConfig:
    """Diversity-aware matching (RECIPES.md R5): ``popularity_penalty`` counts how often each
    video would be every plan chunk's best match (one pass over all plans, argmax only, no
    reflection) and ranks by cosine - weight * log(1 + expected picks). The prior is a function
    of the plans alone, so logs still match independently and byte-identically."""

    kind: str = knob("none", choices=("none", "popularity_penalty"))
    weight: float = knob(0.05, ge=0, le=10)
    sample: DiversitySampleConfig = field(default_factory=lambda: DiversitySampleConfig())


@dataclass
class CompatibilityConfig:
    """Which library scenes and time periods each chunk scene and time class accepts at a
    ladder level with ``scene_time`` (the chunk's value -> the video values allowed). The
    defaults are the authors' rule: the chunk's own or ``mixed``; the chunk's own class or
    ``uncertain``. ``xlebench.simulate.filter.Compatibility`` reads them."""

    scene: dict[str, list[str]] = field(default_factory=lambda: {
        "indoor": ["indoor", "mixed"], "outdoor": ["outdoor", "mixed"], "mixed": ["mixed"]})
    time: dict[str, list[str]] = field(default_factory=lambda: {
        c: [c, "uncertain"] for c in ("daytime", "twilight", "nighttime")})


@dataclass
class MatcherConfig:
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    ladder: list[LadderStep] = field(default_factory=list)
    top_k_sample: int = knob(1, ge=1, le=100)
    max_candidates_in_trace: int = knob(5, ge=0, le=1000)
    diversity: DiversityConfig = field(default_factory=DiversityConfig)
    compatible: CompatibilityConfig = field(default_factory=CompatibilityConfig)


# --- persona / planner / simulation ----------------------------------------------------------
