"""One life log: sample chunks, then match-and-reflect chunk by chunk on a virtual clock.

A segment occupies [chunk start, chunk start + ceil(video duration)] at second resolution
(``start_resolution_s`` rounds starts up, e.g. to whole minutes; ``segment_end=floor`` is the
authors' end); reflection then moves later chunks so segments never overlap. Days that run past midnight
are handled by `day_end`: ``overflow`` keeps going on the same clock (times >= 86400 s are
the next day, shown as ``+1 HH:MM``); ``truncate`` stops before a chunk that would start
after midnight and records the chunks it dropped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from xlebench.clock import DAY, fmt_hhmm
from xlebench.library.index import search
from xlebench.library.records import LibraryVideo
from xlebench.plan.chunks import PlanChunk
from xlebench.plan.reflect import Revision
from xlebench.simulate.filter import CandidateFilter, Level


@dataclass(frozen=True)
class MatchParams:
    levels: tuple[Level, ...]
    top_k_sample: int = 1
    max_candidates_in_trace: int = 5
    day_end: str = "overflow"
    start_resolution_s: int = 1
    segment_end: str = "ceil"
    #: Per library video, subtracted from its cosine before ranking (diversity prior).
    penalty: np.ndarray | None = None
    #: No segment starts at or after this many seconds from its day's midnight (e.g. 27 h:
    #: 03:00 of the next day); None: no limit.
    latest_start_s: int | None = None


def segment_bounds(chunk_start_s: int, duration_s: float, p: MatchParams) -> tuple[int, int]:
    """Where a matched video sits on the day: the chunk start rounded up to the start
    resolution, and the end by ``segment_end`` (integer seconds either way)."""
    res = p.start_resolution_s
    start = -(-int(chunk_start_s) // res) * res
    end = math.ceil(start + duration_s) if p.segment_end == "ceil" else math.floor(
        start + duration_s)
    return start, end


class PoolExhausted(Exception):
    """Every candidate video is already used by this life log (a log uses a video once): the
    candidate pool is smaller than the log. The stage names the setting that made it so."""

    def __init__(self, chunk_id: str) -> None:
        super().__init__(f"no unused library video is left for chunk {chunk_id}")
        self.chunk_id = chunk_id


@dataclass
class Library:
    videos: Sequence[LibraryVideo]
    index: object
    filter: CandidateFilter


#: (index of the segment just matched, chunks still to come, its video, the segment) -> revision
Reflector = Callable[[int, list[PlanChunk], LibraryVideo, dict], Revision]


def _match(lib: Library, chunk: PlanChunk, qvec: np.ndarray, country: str, used: np.ndarray,
           p: MatchParams, rng: random.Random) -> dict:
    level, ids = lib.filter.ladder(scenarios=chunk.scenarios, scene=chunk.scene,
                                   time_class=chunk.time_class, country=country, used=used,
                                   levels=p.levels, window=chunk.window_scenarios)
    if level < 0:
        raise PoolExhausted(chunk.chunk_id)
    k = max(p.top_k_sample, p.max_candidates_in_trace)
    scores, found, ranked = ranked_search(lib.index, qvec, k, ids, p.penalty)
    pick = rng.randrange(min(p.top_k_sample, len(found)))
    vid = int(found[pick])
    extra = {} if p.penalty is None else {"penalised": round(float(ranked[pick]), 6)}
    return {
        "vid": vid,
        "score": round(float(scores[pick]), 6), **extra,
        "relaxation": p.levels[level].name,
        "level": level,
        "n_candidates": int(len(ids)),
        "same_country": lib.videos[vid].country == country,
        "candidates": [{"video_uid": lib.videos[int(i)].video_uid, "score": round(float(s), 6)}
                       for s, i in zip(scores[:p.max_candidates_in_trace],
                                       found[:p.max_candidates_in_trace], strict=True)],
    }


def ranked_search(index: object, qvec: np.ndarray, k: int, ids: np.ndarray,
                  penalty: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cosines, ids, ranking scores) best first. With a penalty the search widens until no
    candidate left out could outrank the best penalised one (penalties only lower scores), so
    the result is exact, not a re-ranking of a fixed top-k."""
    if penalty is None:
        scores, found = search(index, qvec, k, allowed=ids)
        return scores, found, scores
    want = max(k, 32)
    while True:
        scores, found = search(index, qvec, want, allowed=ids)
        ranked = scores - penalty[found]
        order = np.argsort(-ranked, kind="stable")
        if len(found) >= len(ids) or ranked[order[0]] >= scores[-1]:
            return scores[order], found[order], ranked[order]
        want *= 4


def popularity_prior(lib: Library, queries: Sequence[tuple[PlanChunk, np.ndarray, str]],
                     levels: Sequence[Level], weight: float) -> np.ndarray:
    """weight * log(1 + how often each video is some chunk's unpenalised best match)."""
    picks = np.zeros(len(lib.videos))
    used = np.zeros(len(lib.videos), dtype=bool)
    for chunk, qvec, country in queries:
        level, ids = lib.filter.ladder(scenarios=chunk.scenarios, scene=chunk.scene,
                                       time_class=chunk.time_class, country=country,
                                       used=used, levels=levels,
                                       window=chunk.window_scenarios)
        if level >= 0:
            _, found = search(lib.index, qvec, 1, allowed=ids)
            picks[int(found[0])] += 1
    return weight * np.log1p(picks)


def simulate_log(
    *, lib: Library, chunks: Sequence[PlanChunk], embed: Callable[[PlanChunk], np.ndarray],
    country: str, picked: list[int], reflect: Reflector, params: MatchParams,
    rng: random.Random,
) -> tuple[list[dict], list[Revision], list[str]]:
    """(segments, revisions, notes) for the chosen chunk indices.

    `reflect(index, remaining, video, segment)` revises the chunks still to come after each
    match (offline rules or an LLM); the engine only checks that the day goes on.
    """
    remaining = [chunks[i] for i in picked]
    used = np.zeros(len(lib.videos), dtype=bool)
    segments, revisions, notes = [], [], []
    while remaining:
        chunk = remaining.pop(0)
        if params.day_end == "truncate" and chunk.start_s >= DAY * (chunk.day + 1):
            same_day = [c for c in remaining if c.day == chunk.day]
            notes.append(f"day_end=truncate: dropped {1 + len(same_day)} chunk(s) after "
                         "midnight" + (f" of day {chunk.day + 1}" if chunk.day else ""))
            remaining = [c for c in remaining if c.day != chunk.day]
            continue
        late = params.latest_start_s
        if late is not None and segment_bounds(chunk.start_s, 0.0, params)[0] >= \
                DAY * chunk.day + late:
            same_day = [c for c in remaining if c.day == chunk.day]
            notes.append(f"simulation.latest_start: dropped {1 + len(same_day)} chunk(s) "
                         f"starting at or after {fmt_hhmm(DAY * chunk.day + late)}")
            remaining = [c for c in remaining if c.day != chunk.day]
            continue
        m = _match(lib, chunk, embed(chunk), country, used, params, rng)
        vid = m.pop("vid")
        video = lib.videos[vid]
        used[vid] = True
        start, end = segment_bounds(chunk.start_s, video.duration_s, params)
        segments.append({
            "index": len(segments), "video_uid": video.video_uid, "start_s": start,
            "end_s": end, "source_start_s": 0.0, "source_end_s": video.duration_s,
            "chunk": chunk.to_dict(), "match": m,
        })
        if remaining:
            rev = reflect(len(segments) - 1, remaining, video, segments[-1])
            revisions.append(rev)
            remaining = list(rev.after)  # a copy: popping must not edit the stored revision
    return segments, revisions, notes
