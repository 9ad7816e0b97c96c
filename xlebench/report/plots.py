"""The report's plots as SVG text: fixed fonts, no dates, a fixed hash salt, so the same
benchmark gives the same bytes."""

from __future__ import annotations

import functools
import io
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from xlebench.report.reference import PAPER_TABLE2, RELEASE

_ORDER = ("short", "medium", "long")


RC = {"svg.hashsalt": "xlebench", "svg.fonttype": "none", "font.family": "DejaVu Sans",
      "font.size": 9}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _styled(fn):
    """Run a plot under the report's settings without touching the process-wide ones (other
    stages draw their own plots in the same process)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _plt().rc_context(RC):
            return fn(*args, **kwargs)
    return wrapper


def _svg(fig) -> str:
    plt = _plt()
    buf = io.StringIO()
    fig.tight_layout()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "xlebench"})
    plt.close(fig)
    return buf.getvalue()


@_styled
def durations(logs: Sequence[dict]) -> str:
    """Mean minutes of video per category (whiskers: min-max), ours beside Table 2 and the
    release."""
    plt = _plt()
    mins: dict[str, list[float]] = {}
    for log in logs:
        mins.setdefault(log["category"], []).append(video_s(log) / 60)
    cats = [c for c in _ORDER if c in mins] + sorted(set(mins) - set(_ORDER))
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    width = 0.26
    for k, (label, src) in enumerate((("xlebench", None), ("paper Table 2", PAPER_TABLE2),
                                      ("release", RELEASE))):
        xs, means, lo, hi = [], [], [], []
        for i, c in enumerate(cats):
            if src is None:
                v = mins[c]
                mx, mean, mn = max(v), sum(v) / len(v), min(v)
            elif c in src:
                mx, mean, mn = src[c]
            else:
                continue
            xs.append(i + (k - 1) * width)
            means.append(mean)
            lo.append(mean - mn)
            hi.append(mx - mean)
        ax.bar(xs, means, width, yerr=[lo, hi], capsize=3, label=label)
    ax.set_xticks(range(len(cats)), [f"{c} (n={len(mins[c])})" for c in cats])
    ax.set_ylabel("minutes of video per life log")
    ax.set_title("Life-log durations: mean, whiskers min-max")
    ax.legend(frameon=False)
    return _svg(fig)


def video_s(log: dict) -> float:
    return sum(float(s["source_end_s"]) - float(s.get("source_start_s", 0.0))
               for s in log["segments"])


@_styled
def reuse(logs: Sequence[dict]) -> str:
    plt = _plt()
    uses = Counter(s["video_uid"] for log in logs for s in log["segments"])
    hist = Counter(uses.values())
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    xs = sorted(hist)
    ax.bar(xs, [hist[x] for x in xs], width=0.8)
    ax.set_xlabel("times a video is used across life logs")
    ax.set_ylabel("videos")
    ax.set_title(f"Video reuse: {len(uses)} distinct videos, most used "
                 f"{max(uses.values()) if uses else 0} times")
    return _svg(fig)


@_styled
def shares(title: str, library: Counter, matched: Counter, top: int = 15) -> str:
    """Share of each value in the library and among matched segments (top values)."""
    plt = _plt()
    keys = sorted(set(library) | set(matched), key=lambda k: (-matched[k], -library[k], k))[:top]
    lib_n, seg_n = sum(library.values()) or 1, sum(matched.values()) or 1
    fig, ax = plt.subplots(figsize=(6.4, 0.5 + 0.22 * len(keys) + 0.6))
    ys = range(len(keys))
    ax.barh([y + 0.2 for y in ys], [library[k] / lib_n for k in keys], 0.4, label="library")
    ax.barh([y - 0.2 for y in ys], [matched[k] / seg_n for k in keys], 0.4,
            label="matched segments")
    ax.set_yticks(list(ys), [k[:38] for k in keys])
    ax.invert_yaxis()
    ax.set_xlabel("share")
    ax.set_title(title)
    ax.legend(frameon=False, loc="lower right")
    return _svg(fig)


@_styled
def counts(title: str, counter: Mapping[str, int], xlabel: str,
           distinct: bool = False) -> str:
    """Horizontal bars; ``distinct``: one colour per bar (levels that must not look alike)."""
    plt = _plt()
    keys = list(counter)
    fig, ax = plt.subplots(figsize=(6.4, 0.5 + 0.25 * len(keys) + 0.6))
    colours = [plt.get_cmap("tab10")(k % 10) for k in range(len(keys))] if distinct else None
    ax.barh(range(len(keys)), [counter[k] for k in keys], color=colours)
    ax.set_yticks(range(len(keys)), keys)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return _svg(fig)


@_styled
def certificates(items: Mapping[str, Sequence[dict]]) -> str:
    """Certificate lengths per subtask on a log scale (EgoSchema's long-term gate: 30 s)."""
    plt = _plt()
    subs = [s for s, its in items.items() if any("certificate" in it for it in its)]
    data = [[math.log10(max(0.1, it["certificate"]["seconds"])) for it in items[s]
             if "certificate" in it] for s in subs]
    fig, ax = plt.subplots(figsize=(6.4, 0.6 + 0.3 * max(1, len(subs)) + 0.6))
    if subs:
        ax.boxplot(data, vert=False, showfliers=False)
        ax.set_yticks(range(1, len(subs) + 1), subs)
    ax.axvline(math.log10(30), color="gray", linestyle="--", linewidth=1)
    ax.set_xlabel("certificate length, log10 seconds (dashed: 30 s)")
    ax.set_title("How much video an answer needs (temporal certificate)")
    return _svg(fig)


@_styled
def frames_curve(base: str, subs: Mapping[str, Mapping]) -> str:
    """Neptune's Fig. 7: a system's headline (x100) against the frames it saw, per subtask."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    for sub, entry in sorted(subs.items()):
        points = sorted((int(n), c["mean"]) for n, c in entry["curve"].items()
                        if c.get("mean") is not None)
        if points:
            ax.plot([n for n, _ in points], [100 * v for _, v in points], marker="o",
                    label=sub)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("frames")
    ax.set_ylabel("headline x100")
    ax.set_title(f"{base}: accuracy vs frames")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return _svg(fig)
