"""Library statistics (JSON) and plots (PNG) a user looks at before trusting a library."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from xlebench.library.records import LibraryVideo

QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


def library_stats(videos: list[LibraryVideo]) -> dict:
    durations = np.array([v.duration_s for v in videos], dtype=float)
    scen = Counter(s.replace("\n", " ") for v in videos for s in v.scenarios)
    return {
        "videos": len(videos),
        "hours": round(float(durations.sum()) / 3600, 2) if len(videos) else 0.0,
        "scenarios_top30": dict(scen.most_common(30)),
        "distinct_scenarios": len(scen),
        "scenarios_per_video": dict(sorted(Counter(len(v.scenarios) for v in videos).items())),
        "country": dict(Counter(v.country for v in videos).most_common()),
        "time_period": dict(Counter(v.time_period for v in videos).most_common()),
        "scene": dict(Counter(v.scene for v in videos).most_common()),
        "duration_s_quantiles": {
            f"q{int(q * 100):02d}": round(float(np.quantile(durations, q)), 2) for q in QUANTILES
        } if len(videos) else {},
        "with_nlq": sum(v.has_nlq for v in videos),
        "with_moments": sum(v.has_moments for v in videos),
    }


def plot_stats(stats: dict, videos: list[LibraryVideo], path: Path) -> None:
    """One PNG with the five distributions (scenarios, country, time, scene, duration)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(14, 10), dpi=90)
    grid = fig.add_gridspec(3, 3)
    ax = fig.add_subplot(grid[:, 0])
    top = list(stats["scenarios_top30"].items())[::-1]
    ax.barh([k[:38] for k, _ in top], [v for _, v in top], color="#4c72b0")
    ax.set_title("scenarios (top 30)")
    ax.tick_params(axis="y", labelsize=7)
    for (key, title), cell in zip(
        [("country", "country"), ("time_period", "time of day"), ("scene", "main scene")],
        [grid[0, 1], grid[0, 2], grid[1, 1]], strict=True,
    ):
        a = fig.add_subplot(cell)
        a.bar(list(stats[key]), list(stats[key].values()), color="#55a868")
        a.set_title(title)
        a.tick_params(axis="x", labelrotation=45, labelsize=8)
    a = fig.add_subplot(grid[2, 1:])
    d = np.array([v.duration_s for v in videos]) / 60
    if len(d):
        a.hist(d, bins=np.logspace(np.log10(max(d.min(), 0.1)), np.log10(d.max() + 1), 40),
               color="#c44e52")
        a.set_xscale("log")
        a.axvline(float(np.median(d)), color="k", linestyle="--",
                  label=f"median {np.median(d):.1f} min")
        a.legend()
    a.set_title("duration (minutes, log scale)")
    fig.suptitle(f"library: {stats['videos']} videos, {stats['hours']} hours")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
