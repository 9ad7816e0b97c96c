"""Properties of compiled life logs over many seeds and lengths."""

from __future__ import annotations

import random
from functools import partial

import numpy as np
import pytest

from xlebench.clock import fmt_hhmm, time_class
from xlebench.library.embed import HashingEmbedder
from xlebench.library.index import build_index
from xlebench.library.sources import Selection, load_ego4d
from xlebench.library.synthetic import SyntheticSpec, generate_corpus
from xlebench.library.taxonomy import scenario_iou
from xlebench.persona.offline import generate_persona
from xlebench.plan.offline import PlannerParams, plan_day
from xlebench.plan.reflect import reflect_offline
from xlebench.simulate.engine import Library, MatchParams, simulate_log
from xlebench.simulate.filter import CandidateFilter, Level, scene_ok, time_ok
from xlebench.simulate.sampling import groups, sample_chunk_indices

LEVELS = (Level("strict", 0.33, True, True), Level("iou_0.2", 0.2, True, True),
          Level("any_country", 0.2, False, True), Level("any", 0.0, False, False))
TC = partial(time_class, daytime=(21600, 61200), twilight=(61200, 68400))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    root = tmp_path_factory.mktemp("c")
    generate_corpus(SyntheticSpec(seed=1, n_videos=250), root)
    videos = load_ego4d(root, Selection()).videos
    emb = HashingEmbedder(128)
    return Library(videos, build_index(emb.encode([v.summary for v in videos])),
                   CandidateFilter(videos)), emb


def _log(library, seed: int, n: int, location: str, mbti: str, notes: list | None = None,
         **clock):
    lib, emb = library
    persona = generate_persona(location, mbti, seed)
    vocab = sorted({s for v in lib.videos for s in v.scenarios})
    plan = plan_day(persona, vocab, PlannerParams(), random.Random(seed))
    vecs = {c.chunk_id: emb.encode([c.description])[0] for c in plan.chunks}
    rng = random.Random(seed * 100 + n)
    picked = sample_chunk_indices(len(plan.chunks), n, rng)

    def reflect(index, remaining, video, segment):
        return reflect_offline(index=index, remaining=remaining, video=video,
                               segment_end=segment["end_s"], alternatives=lambda c: [],
                               min_gap_s=150, tclass=TC)

    segs, revs, said = simulate_log(
        lib=lib, chunks=plan.chunks, embed=lambda c: vecs[c.chunk_id], country=location,
        picked=picked, reflect=reflect, rng=rng,
        params=MatchParams(levels=LEVELS, top_k_sample=2, **clock))
    if notes is not None:
        notes += said
    return plan, segs, revs


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [4, 9, 15])
def test_life_log_invariants(library, seed: int, n: int) -> None:
    loc, mbti = [("Japan", "INTJ"), ("Rwanda", "ESFP"), ("USA", "ENTP")][seed % 3]
    plan, segs, revs = _log(library, seed, n, loc, mbti)
    starts = [c.start_s for c in plan.chunks]
    assert len(plan.chunks) >= 16 and starts == sorted(starts)
    for a, b in zip(plan.chunks, plan.chunks[1:], strict=False):
        assert 300 <= b.start_s - a.end_s <= 1200, "plan gaps must be 5-20 minutes"
    assert len(segs) == n
    uids = [s["video_uid"] for s in segs]
    assert len(set(uids)) == n, "a video was reused within a log"
    for a, b in zip(segs, segs[1:], strict=False):
        assert b["start_s"] >= a["end_s"] + 150, "segments overlap or break the gap rule"
    lib = library[0]
    by_uid = {v.video_uid: v for v in lib.videos}
    for s in segs:
        v, c, level = by_uid[s["video_uid"]], s["chunk"], LEVELS[s["match"]["level"]]
        assert s["end_s"] - s["start_s"] >= v.duration_s
        assert scenario_iou(v.scenarios, c["scenarios"]) >= level.min_iou - 1e-9
        if level.same_country:
            assert v.country == loc and s["match"]["same_country"]
        if level.scene_time:
            assert scene_ok(v.scene, c["scene"]) and time_ok(v.time_period, c["time_class"])
    assert all(not r.violations for r in revs)


@pytest.mark.parametrize("seed", range(4))
def test_minute_starts_and_floored_ends(library, seed: int) -> None:
    """The release's clock: every segment starts on a whole minute (so HH:MM is exact) and
    ends at floor(start + duration); the default keeps second starts and ceiled ends."""
    by_uid = {v.video_uid: v for v in library[0].videos}
    _, segs, _ = _log(library, seed, 9, "Japan", "INTJ", start_resolution_s=60,
                      segment_end="floor")
    _, default, _ = _log(library, seed, 9, "Japan", "INTJ")
    for s in segs:
        dur = by_uid[s["video_uid"]].duration_s
        assert s["start_s"] % 60 == 0 and s["chunk"]["start_s"] <= s["start_s"]
        assert s["start_s"] - s["chunk"]["start_s"] < 60
        assert s["end_s"] == int(s["start_s"] + dur)
    for a, b in zip(segs, segs[1:], strict=False):
        assert b["start_s"] >= a["end_s"] + 150
    assert any(s["start_s"] % 60 for s in default), "default starts are at second resolution"
    for s in default:
        assert s["start_s"] == s["chunk"]["start_s"]
        assert s["end_s"] == s["start_s"] + -(-by_uid[s["video_uid"]].duration_s // 1)


def test_no_segment_starts_after_the_latest_start(library) -> None:
    """``latest_start``: the chunk that would start at or after it, and the rest of its day,
    are dropped and noted (the release's readers read a late ``HH:MM`` as the morning)."""
    _, full, _ = _log(library, 3, 15, "USA", "ENTP")
    cut = sorted(s["start_s"] for s in full)[10]
    notes: list[str] = []
    _, segs, _ = _log(library, 3, 15, "USA", "ENTP", notes=notes, latest_start_s=cut)
    assert segs == full[:10] and all(s["start_s"] < cut for s in segs)
    assert notes == [f"simulation.latest_start: dropped 5 chunk(s) starting at or after "
                     f"{fmt_hhmm(cut)}"]


def test_groups_are_contiguous_and_near_equal() -> None:
    for total in range(16, 25):
        for n in (1, 4, 9, 15, 16):
            gs = groups(total, n)
            sizes = [len(g) for g in gs]
            assert sum(sizes) == total and max(sizes) - min(sizes) <= 1
            assert [i for g in gs for i in g] == list(range(total))


def test_filtered_faiss_search_only_returns_allowed(library) -> None:
    from xlebench.library.index import search

    lib, emb = library
    allowed = [3, 17, 42]
    scores, ids = search(lib.index, emb.encode(["C is cooking dinner"])[0], 10, allowed)
    assert set(ids.tolist()) <= set(allowed) and len(ids) == 3
    assert list(scores) == sorted(scores, reverse=True)
    brute = np.array([float(emb.encode([lib.videos[i].summary])[0] @
                            emb.encode(["C is cooking dinner"])[0]) for i in allowed])
    assert max(scores) == pytest.approx(brute.max(), abs=1e-5)


def test_penalised_search_is_exact(library) -> None:
    """Widening until nothing left out can outrank the best: equal to ranking every allowed
    video by cosine - penalty."""
    from xlebench.simulate.engine import ranked_search

    lib, emb = library
    rng = np.random.default_rng(0)
    penalty = rng.random(len(lib.videos)) * 0.3
    vecs = emb.encode([v.summary for v in lib.videos])
    for q in ("C is cooking dinner", "C walks the dog in the park", "C repairs a bike"):
        qv = emb.encode([q])[0]
        ids = np.arange(0, len(lib.videos), 2)
        _, found, ranked = ranked_search(lib.index, qv, 5, ids, penalty)
        brute = vecs[ids] @ qv - penalty[ids]
        assert int(found[0]) == int(ids[np.argmax(brute)])
        assert ranked[0] == pytest.approx(brute.max(), abs=1e-5)


def test_popularity_prior_spreads_matches(library) -> None:
    """The penalty lowers the most reused video's count, logs stay valid, and each pick's
    cosine stays close to the unpenalised best."""
    from collections import Counter

    from xlebench.simulate.engine import popularity_prior

    lib, emb = library
    queries = []
    for seed in range(6):
        persona = generate_persona(["Japan", "UK", "USA"][seed % 3], "INTJ", seed)
        vocab = sorted({s for v in lib.videos for s in v.scenarios})
        plan = plan_day(persona, vocab, PlannerParams(), random.Random(seed))
        queries += [(c, emb.encode([c.description])[0], persona.location) for c in plan.chunks]
    penalty = popularity_prior(lib, queries, LEVELS, 0.05)
    assert penalty.max() > 0 and (penalty >= 0).all()
    plain = Counter(s["video_uid"] for seed in range(6)
                    for s in _log(library, seed, 9, "Japan", "INTJ")[1])
    spread = [s for seed in range(6)
              for s in _log(library, seed, 9, "Japan", "INTJ", penalty=penalty)[1]]
    assert max(Counter(s["video_uid"] for s in spread).values()) <= max(plain.values())
    for s in spread:
        assert s["match"]["score"] - s["match"]["penalised"] == pytest.approx(
            penalty[[v.video_uid for v in lib.videos].index(s["video_uid"])], abs=2e-6)


def test_multi_day_logs_through_the_cli(tmp_path) -> None:
    """simulation.days=2: one plan per day on one clock, the length's chunks from each day,
    day-2 times written "+1 HH:MM", summaries per part of each day, the holistic summary per
    day and overall."""
    import json

    from tests.conftest import FAST, run_inprocess

    ran = run_inprocess(tmp_path, *[a for a in FAST if not a.startswith("stages=")],
                        "stages=[library,persona,plan,simulate,annotate]", "render=none",
                        "simulation.days=2", "simulation.n_chunks=4",
                        "tasks=[single_summary,multi_summary,holistic_summary]")
    assert ran.rc == 0, ran.text[-2000:]
    bench = tmp_path / "benchmarks" / "demo"
    logs = [json.loads(p.read_text()) for p in (bench / "lifelogs").glob("*.json")]
    assert logs and all(lg["days"] == 2 and len(lg["segments"]) == 8 for lg in logs)
    for lg in logs:
        days = [s["chunk"].get("day", 0) for s in lg["segments"]]
        assert days == [0] * 4 + [1] * 4
        assert all(s["start_s"] >= 86_400 for s in lg["segments"][4:])
    hol = [json.loads(x) for x in (bench / "annotations" / "holistic_summary.jsonl")
           .read_text().splitlines()]
    assert len(hol) == 3 * len(logs)
    assert any("for day 2." in it["query"] for it in hol)
    multi = [json.loads(x) for x in (bench / "annotations" / "multi_summary.jsonl")
             .read_text().splitlines()]
    assert any("on day 2 in the" in it["query"] for it in multi)
    single = [json.loads(x) for x in (bench / "annotations" / "single_summary.jsonl")
              .read_text().splitlines()]
    assert any("+1 " in it["query"] for it in single)
    plans = [json.loads(x) for x in (bench / "plans.jsonl").read_text().splitlines()]
    assert all(p["notes"]["days"] == 2 and {a.get("day") for a in p["agenda"]} == {1, 2}
               for p in plans)


def test_filter_iou_equals_the_definition(library) -> None:
    """Summing only the chunk's scenario columns gives exactly the Jaccard IoU per video."""
    lib, _ = library
    for scenarios in (("Cooking",), ("Cooking", "Eating", "Bus"), ("no such scenario",), ()):
        got = lib.filter.iou(scenarios)
        want = np.array([scenario_iou(v.scenarios, scenarios) for v in lib.videos],
                        dtype=np.float32)
        assert np.allclose(got, want, atol=1e-7)


def test_a_window_level_reads_the_scenarios_of_every_activity_the_chunk_names() -> None:
    """Issue 46's same-country-first ladder: a level with ``scenarios: window`` takes a
    same-country video that shares the window's scenarios but not the chunk's own, before any
    other country is tried; without window scenarios it reads the chunk's own."""
    from xlebench.library.records import LibraryVideo

    def video(uid: str, country: str, scenarios: tuple[str, ...]) -> LibraryVideo:
        return LibraryVideo(uid, 600.0, country, None, scenarios, "daytime", "indoor", "C.")
    videos = [video("it", "Italy", ("Eating",)), video("uk", "UK", ("Cooking",))]
    f = CandidateFilter(videos)
    ladder = (Level("strict", 0.33, True, True), Level("window", 0.33, True, True, "window"),
              Level("any_country", 0.2, False, True))
    used = np.zeros(2, dtype=bool)
    ask = {"scene": "indoor", "time_class": "daytime", "country": "Italy", "used": used,
           "levels": ladder}
    level, ids = f.ladder(scenarios=("Cooking",), window=("Cooking", "Eating"), **ask)
    assert (ladder[level].name, ids.tolist()) == ("window", [0])
    level, ids = f.ladder(scenarios=("Cooking",), **ask)
    assert (ladder[level].name, ids.tolist()) == ("any_country", [1])


def test_own_scenario_plans_keep_the_window_scenarios_for_the_ladder() -> None:
    persona = generate_persona("Italy", "INTJ", 0)
    vocab = ["Cooking", "Eating", "Cleaning / laundry", "Walking on street", "Reading books"]
    own = plan_day(persona, vocab, PlannerParams(chunk_text="agenda", chunk_scenarios="own"),
                   random.Random(0))
    window = plan_day(persona, vocab, PlannerParams(chunk_text="agenda"), random.Random(0))
    assert any(c.window_scenarios for c in own.chunks)
    for a, b in zip(own.chunks, window.chunks, strict=True):
        assert a.window_scenarios in ((), b.scenarios) and not b.window_scenarios
        assert set(a.scenarios) <= set(b.scenarios)
        assert type(a).from_dict(a.to_dict()) == a
