"""Neptune's diversity sampling, applied to the library the matcher draws from
(``matcher.diversity.sample``).

Neptune sub-samples its source videos "to boost both semantic and demographic diversity":
videos are clustered on video-level semantic embeddings, tagged with demographic metadata, and
sampled from the joint distribution of (cluster, metadata) after a diversity boost that raises
rare combinations; a uniform sub-sample then reaches the wanted size. Here the embeddings are
the library's summary vectors (the matcher's own), the metadata the library fields named in
``by`` (default: the recording's country — Ego4D carries no perceived age or gender), and the
boost a power of each combination's share: a video's sampling weight is ``share ** alpha /
count``, so ``alpha = 1`` samples videos uniformly and ``alpha = 0`` samples combinations
uniformly. The draw is weighted sampling without replacement (Efraimidis–Spirakis keys),
seeded, so a grid compiled twice samples the same library.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xlebench.library.records import LibraryVideo


@dataclass(frozen=True)
class SampleSpec:
    n: int
    clusters: int = 16
    alpha: float = 0.5
    by: tuple[str, ...] = ("country",)


def clusters_of(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    """k-means cluster ids of the (unit) vectors: k-means++ seeding, Lloyd steps to a fixed
    point or 50 rounds, in float64 so that every machine assigns alike."""
    x = np.asarray(vectors, dtype=np.float64)
    k = max(1, min(k, len(x)))
    rng = np.random.default_rng(seed)
    centres = [x[rng.integers(len(x))]]
    d = ((x - centres[0]) ** 2).sum(axis=1)
    for _ in range(1, k):
        centres.append(x[rng.choice(len(x), p=d / d.sum())] if d.sum() > 0 else x[0])
        d = np.minimum(d, ((x - centres[-1]) ** 2).sum(axis=1))
    c = np.array(centres)
    labels = np.full(len(x), -1)
    for _ in range(50):
        new = np.argmin((c ** 2).sum(axis=1)[None, :] - 2 * x @ c.T, axis=1)
        if (new == labels).all():
            break
        labels = new
        c = np.array([x[labels == j].mean(axis=0) if (labels == j).any() else c[j]
                      for j in range(k)])
    return labels


def diversity_sample(videos: Sequence[LibraryVideo], vectors: np.ndarray, spec: SampleSpec,
                     seed: int) -> tuple[np.ndarray, dict[str, Any]]:
    """(mask of the sampled videos, statistics: the combinations covered and the largest
    cluster's share before and after, Neptune's Fig. 8)."""
    if spec.n >= len(videos):
        return np.ones(len(videos), dtype=bool), {"sampled": len(videos), "of": len(videos)}
    labels = clusters_of(vectors, spec.clusters, seed)
    cells = [(int(c), *(str(getattr(v, f)) for f in spec.by))
             for c, v in zip(labels, videos, strict=True)]
    count = Counter(cells)
    share = {cell: n / len(cells) for cell, n in count.items()}
    weight = np.array([share[c] ** spec.alpha / count[c] for c in cells])
    u = np.random.default_rng(seed).random(len(cells))
    keys = np.log(np.maximum(u, 1e-300)) / weight
    mask = np.zeros(len(videos), dtype=bool)
    mask[np.argsort(-keys, kind="stable")[: spec.n]] = True

    def largest(m: np.ndarray) -> float:
        return round(max(Counter(labels[m].tolist()).values()) / int(m.sum()), 4)
    return mask, {"sampled": int(mask.sum()), "of": len(videos), "clusters": spec.clusters,
                  "alpha": spec.alpha, "by": list(spec.by),
                  "combinations": {"library": len(count),
                                   "sampled": len({c for c, m in zip(cells, mask, strict=True) if m})},
                  "largest_cluster_share": {"library": largest(np.ones(len(cells), bool)),
                                            "sampled": largest(mask)}}
