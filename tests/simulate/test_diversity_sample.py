"""Neptune's diversity sampling of the library the matcher draws from."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from tests.conftest import FAST, run_inprocess
from xlebench.library.records import LibraryVideo
from xlebench.simulate.diversity_sample import SampleSpec, diversity_sample


def _library(n_big: int = 900, n_small: int = 100) -> tuple[list[LibraryVideo], np.ndarray]:
    """A library where one kind of video (one topic, one country) is nine times the other."""
    rng = np.random.default_rng(0)
    videos, vectors = [], []
    for k in range(n_big + n_small):
        big = k < n_big
        videos.append(LibraryVideo(f"v{k:04d}", 600.0, "USA" if big else "Rwanda", None,
                                   ("Cooking",), "daytime", "indoor", "C."))
        centre = np.eye(8)[0 if big else 1]
        vec = centre + 0.05 * rng.standard_normal(8)
        vectors.append(vec / np.linalg.norm(vec))
    return videos, np.array(vectors, dtype=np.float32)


def _shares(videos: list[LibraryVideo], mask: np.ndarray) -> dict[str, float]:
    picked = Counter(v.country for v, m in zip(videos, mask, strict=True) if m)
    return {c: n / int(mask.sum()) for c, n in picked.items()}


def test_the_boost_raises_rare_combinations_and_alpha_one_is_uniform() -> None:
    videos, vectors = _library()
    flat, stats = diversity_sample(videos, vectors, SampleSpec(200, clusters=2, alpha=0.0), 1)
    assert int(flat.sum()) == 200 and stats["sampled"] == 200 and stats["of"] == 1000
    assert _shares(videos, flat)["Rwanda"] > 0.3, "the rare combination raised from 10%"
    uniform, _ = diversity_sample(videos, vectors, SampleSpec(200, clusters=2, alpha=1.0), 1)
    assert 0.04 < _shares(videos, uniform)["Rwanda"] < 0.17, "videos drawn alike"
    assert stats["largest_cluster_share"] == {"library": 0.9,
                                              "sampled": max(_shares(videos, flat).values())}
    again, _ = diversity_sample(videos, vectors, SampleSpec(200, clusters=2, alpha=0.0), 1)
    assert (again == flat).all(), "seeded"
    whole, _ = diversity_sample(videos, vectors, SampleSpec(5000), 1)
    assert whole.all()


def test_the_matcher_draws_only_from_the_sample(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *FAST, "matcher.diversity.sample.n=40",
                        "matcher.diversity.sample.clusters=4")
    assert ran.rc == 0, ran.text[-3000:]
    bench = tmp_path / "benchmarks" / "demo"
    stats = json.loads((bench / "stats" / "simulation.json").read_text())["library_sample"]
    assert stats["sampled"] == 40 and 40 < stats["of"] <= 60 and stats["by"] == ["country"]
    used = {s["video_uid"] for p in (bench / "lifelogs").glob("*.json")
            for s in json.loads(p.read_text())["segments"]}
    assert 0 < len(used) <= 40
    ran = run_inprocess(tmp_path / "b", *FAST, "matcher.diversity.sample.n=40",
                        "matcher.diversity.sample.clusters=4", "name=again")
    again = {s["video_uid"] for p in (tmp_path / "b" / "benchmarks" / "again" / "lifelogs"
                                      ).glob("*.json")
             for s in json.loads(p.read_text())["segments"]}
    assert again == used, "the same sample on every run"
