"""The rule filter M_v of paper Eq. 1 and the authors' relaxation ladder, vectorised.

A candidate must be unused in this life log; from the persona's country (while the level
asks for it); have a scene and a time period that the compatibility tables allow for the
chunk's (while the level asks for it: the authors' tables, the default, allow scene in
{chunk scene, mixed} and time_period in {chunk class, uncertain}; ``matcher.compatible``
replaces them); and share scenarios with the chunk at Jaccard IoU >= the level's threshold.
Levels are tried in order until one leaves a candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from xlebench.errors import ConfigError
from xlebench.library.ego4d_facts import SCENES, TIME_PERIODS
from xlebench.library.records import LibraryVideo
from xlebench.library.taxonomy import normalize_scenario


@dataclass(frozen=True)
class Level:
    name: str
    min_iou: float
    same_country: bool
    scene_time: bool
    scenarios: str = "chunk"  # or "window": the scenarios of every activity the text names


@dataclass(frozen=True)
class Compatibility:
    """Which library scenes and time periods a chunk's scene and time class accept (the
    chunk's value -> the video values allowed). The defaults are the authors' rule."""

    scene: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(SCENE_TABLE))
    time: Mapping[str, Sequence[str]] = field(default_factory=lambda: dict(TIME_TABLE))

    def allowed(self, kind: str, chunk_value: str) -> Sequence[str]:
        table = self.scene if kind == "scene" else self.time
        if chunk_value not in table:
            raise ValueError(f"matcher.compatible.{kind} has no row for a chunk's "
                             f"{chunk_value!r}: add one ({sorted(table)} are given)")
        return table[chunk_value]


#: The authors' rule: a video's scene is the chunk's or mixed; its time period the chunk's
#: class or uncertain (their "not know").
SCENE_TABLE = {"indoor": ("indoor", "mixed"), "outdoor": ("outdoor", "mixed"),
               "mixed": ("mixed",)}
TIME_TABLE = {c: (c, "uncertain") for c in ("daytime", "twilight", "nighttime")}
AUTHORS = Compatibility()


def compatibility(tables: Mapping[str, Mapping[str, Sequence[str]]]) -> Compatibility:
    """``matcher.compatible`` as tables, checked: every chunk value has a row, and a row names
    only values a library video can hold (a misspelt one would silently match nothing)."""
    vocab = {"scene": (SCENES, SCENES), "time": (TIME_PERIODS[:-1], TIME_PERIODS)}
    out = {}
    for kind, (rows, values) in vocab.items():
        table = {str(k): tuple(str(x) for x in v) for k, v in tables.get(kind, {}).items()}
        for key in (*table, *(x for row in table.values() for x in row)):
            if key not in values:
                raise ConfigError(f"matcher.compatible.{kind}: {key!r} is not a library "
                                  f"{kind} value; use {', '.join(values)}")
        if missing := [r for r in rows if r not in table]:
            raise ConfigError(f"matcher.compatible.{kind} has no row for {', '.join(missing)}: "
                              f"add one per chunk {kind} ({', '.join(rows)})")
        out[kind] = table
    return Compatibility(**out)


def scene_ok(video_scene: str, chunk_scene: str, table: Compatibility = AUTHORS) -> bool:
    return video_scene in table.allowed("scene", chunk_scene)


def time_ok(video_time: str, chunk_time: str, table: Compatibility = AUTHORS) -> bool:
    return video_time in table.allowed("time", chunk_time)


class CandidateFilter:
    """Precomputed per-video arrays so one filter pass is a few vector operations."""

    def __init__(self, videos: Sequence[LibraryVideo],
                 compatible: Compatibility = AUTHORS, allowed: np.ndarray | None = None) -> None:
        self.n = len(videos)
        self.compatible = compatible
        #: The candidate pool (a diversity sample of the library); None: every video.
        self.allowed = allowed
        vocab = sorted({normalize_scenario(s) for v in videos for s in v.scenarios})
        self.col = {k: i for i, k in enumerate(vocab)}
        # video x scenario indicators, column-major: a chunk's few columns are contiguous to sum
        self.columns = np.zeros((self.n, len(vocab)), dtype=np.float32, order="F")
        for i, v in enumerate(videos):
            for s in v.scenarios:
                self.columns[i, self.col[normalize_scenario(s)]] = 1.0
        self.sizes = self.columns.sum(axis=1)
        self.country = np.array([v.country for v in videos])
        self.scene = np.array([v.scene for v in videos])
        self.time = np.array([v.time_period for v in videos])
        self._masks: dict[tuple[str, str], np.ndarray] = {}

    def iou(self, scenarios: Sequence[str]) -> np.ndarray:
        """Jaccard IoU with every video: only the chunk's scenario columns are summed (the
        same integer counts a product with the whole matrix gives, without the product)."""
        keys = {normalize_scenario(s) for s in scenarios}
        known = sorted(self.col[k] for k in keys if k in self.col)
        inter = (self.columns[:, known].sum(axis=1, dtype=np.float32) if known
                 else np.zeros(self.n, dtype=np.float32))
        union = self.sizes + len(keys) - inter
        return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)

    def _cached(self, kind: str, value: str) -> np.ndarray:
        """Boolean masks per country / scene / time class, built once per value."""
        key = (kind, value)
        if key not in self._masks:
            if kind == "country":
                self._masks[key] = self.country == value
            else:
                values = self.scene if kind == "scene" else self.time
                self._masks[key] = np.isin(values, list(self.compatible.allowed(kind, value)))
        return self._masks[key]

    def mask(self, *, scenarios: Sequence[str], scene: str, time_class: str, country: str,
             used: np.ndarray, level: Level, iou: np.ndarray | None = None) -> np.ndarray:
        iou = self.iou(scenarios) if iou is None else iou
        m = ~used & (iou >= level.min_iou - 1e-9)
        if self.allowed is not None:
            m &= self.allowed
        if level.same_country:
            m &= self._cached("country", country)
        if level.scene_time:
            m &= self._cached("scene", scene)
            m &= self._cached("time", time_class)
        return m

    def ladder(self, *, scenarios: Sequence[str], scene: str, time_class: str, country: str,
               used: np.ndarray, levels: Sequence[Level],
               window: Sequence[str] = ()) -> tuple[int, np.ndarray]:
        """(index of the first level with candidates, their ids); (-1, []) if none at all.
        ``window``: the scenarios of every activity the chunk's text names, read by levels
        with ``scenarios: window`` (the chunk's own when empty)."""
        ious = {"chunk": self.iou(scenarios)}
        for k, level in enumerate(levels):
            if level.scenarios not in ious:
                ious[level.scenarios] = self.iou(window or scenarios)
            ids = np.flatnonzero(self.mask(scenarios=scenarios, scene=scene,
                                           time_class=time_class, country=country, used=used,
                                           level=level, iou=ious[level.scenarios]))
            if len(ids):
                return k, ids
        return -1, np.zeros(0, dtype=np.int64)
