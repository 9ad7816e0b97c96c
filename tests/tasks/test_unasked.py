"""Summary choices with wrong options made from records no life log holds
(`xlebench.tasks.choices.unasked`): every stand-in unused by the logs, of its record's kind,
printed once in the whole benchmark; every record asked once; the same allocation whichever
life log is built first; what could not be asked counted. Then the recipe through the real
CLI, compiled beside itself: settling has nothing to drop."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import FAST, run_inprocess
from xlebench.errors import ConfigError
from xlebench.library.annotations import AnnotationIndex
from xlebench.library.embed import HashingEmbedder
from xlebench.library.records import LibraryVideo
from xlebench.library.taxonomy import scenario_iou
from xlebench.tasks.choices import unasked as U
from xlebench.tasks.choices.mcq import NearDuplicate
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.neptune import summary_mcq as S
from xlebench.tasks.recipe.context import Context

KINDS = {"cook": ("Cooking",), "clean": ("Cleaning / laundry",), "desk": ("Working at desk",)}
WORDS = {"cook": ["chopped the onion", "stirred the pot", "boiled the rice", "fried an egg",
                  "washed the pan", "sliced the bread", "peeled a carrot", "tasted the soup"],
         "clean": ["mopped the floor", "swept the porch", "folded the towel", "wiped the shelf",
                   "scrubbed the sink", "dusted the lamp", "hung the shirt", "washed the cup"],
         "desk": ["typed the report", "read the document", "signed the form", "opened the file",
                  "sorted the mail", "printed the page", "checked the email", "filed a note"]}


def _video(uid: str, kind: str, k: int) -> LibraryVideo:
    acts = WORDS[kind]
    text = f"C {acts[k % 8]}, {acts[(k * 3 + 1) % 8]} and {acts[(k * 5 + 2) % 8]} ({uid})."
    return LibraryVideo(uid, 600.0, "Japan", None, KINDS[kind], "daytime", "indoor", text)


def _library(unused: dict[str, int]) -> tuple[dict[str, LibraryVideo], dict[str, dict]]:
    """Three logs of three records each (a cooking, a desk and a cleaning one), and
    ``unused[kind]`` library videos of each kind that no log holds."""
    videos: dict[str, LibraryVideo] = {}
    logs: dict[str, dict] = {}
    for n in range(3):
        segs = []
        for j, kind in enumerate(("cook", "desk", "clean")):
            uid = f"used-{n}-{kind}"
            videos[uid] = _video(uid, kind, 10 * n + j)
            segs.append({"index": j, "video_uid": uid, "start_s": 3600.0 * (8 + j),
                         "end_s": 3600.0 * (8 + j) + 600, "source_start_s": 0.0,
                         "source_end_s": 600.0,
                         "chunk": {"description": f"C is busy: {WORDS[kind][n]}."}})
        logs[f"log{n}"] = {"lifelog_id": f"log{n}", "segments": segs, "days": 1}
    for kind, count in unused.items():
        for k in range(count):
            uid = f"free-{kind}-{k:02d}"
            videos[uid] = _video(uid, kind, 100 + k)
    return videos, logs


def _sources(videos: dict, logs: dict) -> dict[str, list[dict]]:
    """Per log: a single-record item per record, and one item over the whole morning."""
    out = {}
    for lid, log in logs.items():
        items = [{"item_id": f"{lid}-single_summary-{s['index']:03d}", "lifelog_id": lid,
                  "subtask": "single_summary", "query": "What happened?",
                  "evidence": [{"video_uid": s["video_uid"]}],
                  "answer": {"text": videos[s["video_uid"]].summary}} for s in log["segments"]]
        items.append({"item_id": f"{lid}-multi_summary-000", "lifelog_id": lid,
                      "subtask": "multi_summary", "query": "Summarize the morning.",
                      "evidence": [{"video_uid": s["video_uid"]} for s in log["segments"]],
                      "answer": {"text": offline_aggregate(
                          [videos[s["video_uid"]].summary for s in log["segments"]], "")}})
        out[lid] = items
    return out


def _allocate(videos: dict, logs: dict, first: str, n: int = 2, per_log: int | None = None
              ) -> U.Allocation:
    embed = HashingEmbedder(64)
    ctx = Context("summary_mcq", "multiple_choice", logs[first], videos, AnnotationIndex(),
                  random.Random(0), offline_aggregate, encode=embed.encode, logs=logs)
    sources = _sources(videos, logs)
    spec = U.Spec(n=n, pool=6, per_log=per_log, length_ratio=(0.5, 2.0),
                  same=NearDuplicate(0.99, 0.95), same_kind=0.5)
    return U.allocate(ctx, spec, sources.__getitem__,
                      lambda item, texts: offline_aggregate(texts, ""))


def _made(alloc: U.Allocation) -> list[U.Made]:
    return [m for lid in sorted(alloc.by_log) for m in alloc.by_log[lid]]


def test_stand_ins_are_unused_of_their_records_kind_and_printed_once() -> None:
    videos, logs = _library({"cook": 12, "desk": 12, "clean": 12})
    made = _made(_allocate(videos, logs, "log0"))
    assert made
    used = {s["video_uid"] for log in logs.values() for s in log["segments"]}
    spent = Counter(uid for m in made for row in m.info["stand_ins"] for uid in row)
    assert spent and max(spent.values()) == 1, "a stand-in printed twice"
    assert not set(spent) & used
    texts = Counter(o for m in made for o in (m.source["answer"]["text"], *m.decoys))
    assert max(texts.values()) == 1, "an option printed in two questions"
    for m in made:
        records = [videos[e["video_uid"]] for e in m.source["evidence"]]
        assert len(m.decoys) == 2 and all(len(row) == len(records)
                                          for row in m.info["stand_ins"])
        for row in m.info["stand_ins"]:
            for record, uid in zip(records, row, strict=True):
                assert scenario_iou(record.scenarios, videos[uid].scenarios) >= 0.5
    asked = Counter(e["video_uid"] for m in made for e in m.source["evidence"])
    assert max(asked.values()) == 1, "a record asked by two questions"


def test_the_same_allocation_whichever_log_is_built_first() -> None:
    videos, logs = _library({"cook": 12, "desk": 5, "clean": 12})
    first = _allocate(videos, logs, "log0")
    last = _allocate(videos, logs, "log2")
    assert {lid: [(m.source["item_id"], m.decoys) for m in ms]
            for lid, ms in first.by_log.items()} == {
        lid: [(m.source["item_id"], m.decoys) for m in ms] for lid, ms in last.by_log.items()}


def test_what_could_not_be_asked_is_counted() -> None:
    """Desk records have too few unused desk videos (nearer videos of another kind are never
    drawn instead); questions over records already asked, and over the cap, are counted."""
    videos, logs = _library({"cook": 30, "desk": 3, "clean": 30})
    alloc = _allocate(videos, logs, "log0", per_log=2)
    made = _made(alloc)
    stats = sum(alloc.stats.values(), Counter())
    desk = [m for m in made if any("desk" in e["video_uid"] for e in m.source["evidence"])]
    assert not desk  # 3 unused desk videos: fewer than 2 nearer and 2 farther
    assert stats[U.TOO_FEW] >= 1 and stats[U.ASKED] >= 1
    assert all(len(ms) <= 2 for ms in alloc.by_log.values()) and stats[U.OVER_CAP] >= 1
    total = sum(len(v) for v in _sources(videos, logs).values())
    assert len(made) + stats[U.TOO_FEW] + stats[U.ASKED] + stats[U.OVER_CAP] == total


def _tag(k: int) -> str:
    """A word of its own for every text (letters: digits are not content words)."""
    return "".join("bcdfghjklm"[int(d)] for d in f"{k:03d}") + "ox"


def _matched(n_logs: int) -> tuple[dict[str, LibraryVideo], dict[str, dict], dict]:
    """Logs of one cooking record each, matched to its chunk as the matcher does: the record
    shares some of the chunk's words and is the nearest to its description by cosine; unused
    cooking videos either share more of the chunk's words (but are farther by cosine) or
    none (and are nearer by cosine, so the nearest stand-ins are all farther in words).
    Returns the videos, the logs and each text's vector."""
    rng = np.random.default_rng(0)
    query = "C cooks rice with beans."
    axis = np.eye(16)[0]

    def vec(main: float) -> np.ndarray:
        v = main * axis + rng.normal(size=16) * 0.25
        return v / np.linalg.norm(v)
    vectors = {query: axis}
    videos: dict[str, LibraryVideo] = {}
    logs: dict[str, dict] = {}
    for n in range(n_logs):
        uid, text = f"used-{n:02d}", f"C cooks rice and chops onions {_tag(n)}."
        videos[uid], vectors[text] = _summary(uid, text), vec(4.0)
        seg = {"index": 0, "video_uid": uid, "start_s": 28800.0, "end_s": 29400.0,
               "source_start_s": 0.0, "source_end_s": 600.0,
               "chunk": {"activity": "cook", "scenarios": ["Cooking"], "description": query}}
        logs[f"log{n:02d}"] = {"lifelog_id": f"log{n:02d}", "segments": [seg], "days": 1}
    for k in range(100, 100 + 6 * n_logs):
        nearer = k % 2 == 0
        text = (f"C cooks rice with beans {_tag(k)}." if nearer else
                f"C sweeps the kitchen floor {_tag(k)}.")
        videos[f"free-{k}"], vectors[text] = _summary(f"free-{k}", text), vec(
            1.0 if nearer else 3.0)
    return videos, logs, vectors


def _summary(uid: str, text: str) -> LibraryVideo:
    return LibraryVideo(uid, 600.0, "Japan", None, ("Cooking",), "daytime", "indoor", text)


def test_the_plan_does_not_tell_the_reference() -> None:
    """The matcher chose each record because it fits its plan chunk, which the public
    configuration rebuilds: the reference's rank among its options by nearness to the chunk
    (the plan reader's content-word share) is drawn uniformly, so picking the option most
    like the chunk is right at chance — not on every question, as with the stand-ins
    nearest the chunk's description."""
    from xlebench.eval.panel.public import chunk_text, content_words, word_share

    videos, logs, vectors = _matched(30)
    ctx = Context("summary_mcq", "multiple_choice", logs["log00"], videos, AnnotationIndex(),
                  random.Random(0), offline_aggregate,
                  encode=lambda texts: np.array([vectors[t] for t in texts]), logs=logs)
    sources = _sources(videos, logs)
    spec = U.Spec(n=2, pool=6, per_log=None, length_ratio=(0.5, 2.0),
                  same=NearDuplicate(0.99, 0.95), same_kind=0.5)
    made = _made(U.allocate(ctx, spec, sources.__getitem__,
                            lambda item, texts: offline_aggregate(texts, "")))
    assert len(made) >= 25
    ranks, hits = Counter(), 0.0
    for m in made:
        chunk = logs[m.source["lifelog_id"]]["segments"][0]["chunk"]
        plan = frozenset(content_words(chunk_text(chunk)))
        answer = m.source["answer"]["text"]
        share = {o: word_share(plan, frozenset(content_words(o))) for o in (answer, *m.decoys)}
        ranks[sum(share[d] > share[answer] for d in m.decoys)] += 1
        top = [o for o, v in share.items() if v == max(share.values())]
        hits += (answer in top) / len(top)
    assert all(ranks[r] >= len(made) / 6 for r in range(3)), ranks
    assert abs(hits / len(made) - 1 / 3) < 0.2, hits / len(made)


def test_summary_choices_compiled_beside_themselves(tmp_path: Path) -> None:
    """The recipe alone through the real CLI: every wrong option's stand-ins are videos no
    life log holds, of the record's kind, printed once; settling drops nothing."""
    args = [*(a for a in FAST if not a.startswith(("library.n_videos=", "stages="))),
            "library.n_videos=400", "tasks=[summary_mcq]", "tasks.summary_mcq.filters=[]",
            "stages=[library,persona,plan,simulate,annotate]", "render=none"]
    ran = run_inprocess(tmp_path, *args)
    assert ran.rc == 0, ran.text[-3000:]
    bench = tmp_path / "benchmarks" / "demo"
    items = [json.loads(x) for x in (bench / "annotations" / "summary_mcq.jsonl")
             .read_text().splitlines()]
    stats = json.loads((bench / "stats" / "tasks.json").read_text())
    assert len(items) >= 10 and stats["settled"]["summary_mcq"]["kept_share"] == 1.0
    library = pd.read_parquet(bench / "library.parquet").set_index("video_uid")
    used = {s["video_uid"] for f in (bench / "lifelogs").glob("*.json")
            for s in json.loads(f.read_text())["segments"]}
    spent = Counter(uid for it in items for row in it["provenance"]["decoys"]["stand_ins"]
                    for uid in row)
    assert max(spent.values()) == 1 and not set(spent) & used
    options = Counter(o for it in items for o in it["answer"]["options"])
    assert max(options.values()) == 1
    for it in items:
        records = [e["video_uid"] for e in it["evidence"]]
        for row in it["provenance"]["decoys"]["stand_ins"]:
            assert all(scenario_iou(library.loc[r, "scenarios"], library.loc[u, "scenarios"])
                       >= S.Decoys().same_kind for r, u in zip(records, row, strict=True))


def test_unasked_stands_alone() -> None:
    """Its records are spent across the benchmark: mixed with another technique it refuses,
    naming the setting."""

    videos, logs = _library({"cook": 4})
    ctx = Context("summary_mcq", "multiple_choice", logs["log0"], videos, AnnotationIndex(),
                  random.Random(0), offline_aggregate, logs=logs)
    params = S.SummaryMCQParams(decoys=S.Decoys(techniques=["unasked", "other_logs"]))
    with pytest.raises(ConfigError, match="decoys.techniques: unasked stands alone"):
        S.build(ctx, params)


def test_built_on_its_own_only_its_log_is_counted() -> None:
    """A recipe built without the annotate stage knows its own log's source items only:
    each is asked or counted with its reason, once, in its own log (the last by id here)."""
    videos, logs = _library({"cook": 12, "desk": 12, "clean": 12})
    ctx = Context("summary_mcq", "multiple_choice", logs["log2"], videos, AnnotationIndex(),
                  random.Random(0), offline_aggregate, encode=HashingEmbedder(64).encode,
                  logs=logs)
    params = S.SummaryMCQParams(decoys=S.Decoys(n=2, near_duplicate_cos=0.99,
                                                near_duplicate_words=0.95))
    sources = S.source_items(ctx, list(params.source))
    built = S.build(ctx, params)
    counted = sum(n for why, n in built.stats.items() if why.startswith("source items"))
    assert built.items and len(built.items) + counted == len(sources)
