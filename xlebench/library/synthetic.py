"""The embedded synthetic corpus, written in the real Ego4D (and X-LeBench) file formats.

`generate_corpus` writes ``ego4d.json``, ``v2/annotations/narration.json``,
``nlq_{train,val}.json``, ``moments_{train,val}.json`` and ``video_info.json`` under one root,
so the same loaders serve real and synthetic data. Each video is generated from its own
random stream (seed, index), so the corpus is byte-identical for a given (seed, n_videos,
rates) and a video does not change when ``n_videos`` grows.
"""

from __future__ import annotations

import math
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

from xlebench.config.schema import SyntheticLibraryConfig
from xlebench.library.ego4d_facts import COUNTRY_WEIGHTS, UNIVERSITY_COUNTRY
from xlebench.library.synthetic_queries import moment_labels, nlq_queries
from xlebench.library.synthetic_text import (
    clip_summary,
    consolidated_summary,
    make_events,
    second_pass,
    summary_windows,
)
from xlebench.library.taxonomy import Scenario, load_taxonomy
from xlebench.runner.atomic import write_text
from xlebench.runner.rng import derive_seed

CLIP_LEN = 480.0
MEDIAN_DURATION = 959.0


#: The corpus is configured by the ``library=synthetic`` schema (one declaration per knob).
SyntheticSpec = SyntheticLibraryConfig


@dataclass
class SyntheticVideo:
    uid: str
    university: str
    scenarios: list[Scenario]
    scenario_names: list[str]
    duration: float
    time_period: str
    scene: str
    events: list
    pass2: list | None
    windows: list[tuple[float, float]]
    summaries: list[str]
    consolidated: str
    nlq: list[dict]
    moments: list[dict]
    split: str
    redacted: bool
    drop_pass1: bool
    shuffled: bool


def _universities_by_country() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for uni, country in UNIVERSITY_COUNTRY.items():
        out.setdefault(country, []).append(uni)
    return out


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys], k=1)[0]


def _duration(rng: random.Random) -> float:
    """Log-normal around the real median (959 s) with a long tail to several hours."""
    sigma = 0.95 if rng.random() < 0.5 else 1.2
    d = MEDIAN_DURATION * math.exp(rng.gauss(0.0, sigma))
    return round(min(max(d, 10.1), 24189.0), 2)


def _scenarios(rng: random.Random) -> list[Scenario]:
    tax = [s for s in load_taxonomy().scenarios if s.slot != "sleep" or rng.random() < 0.3]
    k = rng.choices((1, 2, 3, 4), weights=(84, 9.5, 4, 2.5), k=1)[0]
    chosen: list[Scenario] = []
    while len(chosen) < k:
        s = rng.choices(tax, weights=[t.weight for t in tax], k=1)[0]
        if s not in chosen:
            chosen.append(s)
    return chosen


def _scenario_spelling(rng: random.Random, s: Scenario, quirk_rate: float) -> str:
    if s.aliases and rng.random() < 0.08:
        return s.aliases[0]  # e.g. "DEPRECATED : Playing board games"
    if "'" in s.name and rng.random() < quirk_rate * 10:
        return s.name.replace("'", "\u2019")
    return s.name


def make_video(spec: SyntheticSpec, index: int) -> SyntheticVideo:
    rng = random.Random(derive_seed(spec.seed, "synthetic-video", str(index)))
    uid = str(uuid.UUID(int=derive_seed(spec.seed, "uid", str(index)) << 64
                        | derive_seed(spec.seed, "uid2", str(index)), version=4))
    country = _pick(rng, {k: float(v) for k, v in COUNTRY_WEIGHTS.items()})
    university = rng.choice(_universities_by_country()[country])
    scenarios = _scenarios(rng)
    duration = _duration(rng)
    time_period = _pick(rng, scenarios[0].time) if rng.random() > 0.078 else "uncertain"
    scene = _pick(rng, scenarios[0].scene)
    events = make_events(rng, scenarios, duration, spec.narrations_per_min,
                         time_period if time_period != "uncertain" else "daytime", scene)
    pass2 = second_pass(rng, events) if rng.random() < spec.two_pass_fraction else None
    windows = summary_windows(rng, duration)
    by_name = {s.name: s for s in scenarios}
    summaries = [clip_summary([e for e in events if a <= e.t < b], by_name, rng)
                 for a, b in windows]
    split = "val" if rng.random() < 0.3 else "train"
    nlq, moments = _annotations(rng, spec, scenarios[0], events, duration, split)
    return SyntheticVideo(
        uid=uid, university=university, scenarios=scenarios,
        scenario_names=[_scenario_spelling(rng, s, spec.quirk_rate) for s in scenarios],
        duration=duration, time_period=time_period, scene=scene, events=events, pass2=pass2,
        windows=windows, summaries=summaries,
        consolidated=consolidated_summary(scenarios, events, rng), nlq=nlq, moments=moments,
        split=split, redacted=rng.random() < spec.quirk_rate,
        drop_pass1=pass2 is not None and rng.random() < spec.quirk_rate * 5,
        shuffled=rng.random() < spec.quirk_rate * 5,
    )


def _clips(rng: random.Random, duration: float, max_clips: int = 3) -> list[tuple[float, float]]:
    starts = [k * CLIP_LEN for k in range(int(duration // CLIP_LEN) + 1)]
    rng.shuffle(starts)
    clips = []
    for s in sorted(starts[:max_clips]):
        off = s + rng.choice((0.0, 0.0210286, 0.0334, 0.0667))
        end = min(duration, off + CLIP_LEN)
        if end - off > 30:
            clips.append((round(off, 7), round(end, 7)))
    return clips


def _annotations(rng, spec, primary, events, duration, split):
    nlq, moments = [], []
    if rng.random() < spec.nlq_fraction:
        for k, (a, b) in enumerate(_clips(rng, duration)):
            queries = nlq_queries(rng, events, (a, b), spec.quirk_rate, split == "val")
            if queries:
                nlq.append({"clip": (a, b), "k": k, "queries": queries})
    if rng.random() < spec.moments_fraction:
        for k, (a, b) in enumerate(_clips(rng, duration, 2)):
            first = moment_labels(rng, primary, events, (a, b))
            # a second annotator re-labels some of the same moments with jittered bounds
            again = [dict(lab, start_time=round(lab["start_time"] + 0.4, 5)) for lab in first
                     if rng.random() < 0.4]
            if first:
                moments.append({"clip": (a, b), "k": k, "annotators": [first, again]})
    return nlq, moments


def generate_videos(spec: SyntheticSpec) -> list[SyntheticVideo]:
    return [make_video(spec, i) for i in range(spec.n_videos)]


def generate_corpus(spec: SyntheticSpec, root: Path) -> dict[str, int]:
    """Write the corpus under `root`; returns counts of what was written."""
    from xlebench.library.synthetic_writers import write_all

    videos = generate_videos(spec)
    return write_all(videos, spec, Path(root), write_text)
