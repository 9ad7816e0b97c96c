"""Neptune's growing clip (``centred_clip``, RECIPES R8) with a scripted "oracle VLM" that
answers right exactly when the frames it is shown cover at least half of the answer's span:
the model-based certificate is the smallest grown clip covering that half, the effort score
comes from the two counts around it, and disagreeing samples leave a clip unconfirmed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FAST, run_inprocess
from xlebench.eval.frames_sweep import effort
from xlebench.llm.client import Completion
from xlebench.systems.baselines.centred_clip import UNCONFIRMED, CentredClip, centre_of
from xlebench.systems.frames import clip_times
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.registry import load_recipe
from xlebench.vlm.messages import Frame

#: Two recorded stretches of the day with a gap between them (08:00-08:10, 09:00-09:10).
LOG = {"lifelog_id": "l", "segments": [
    {"video_uid": "a", "start_s": 28800, "end_s": 29400, "source_start_s": 100.0,
     "source_end_s": 700.0},
    {"video_uid": "b", "start_s": 32400, "end_s": 33000, "source_start_s": 0.0,
     "source_end_s": 600.0}]}
RECIPES = {"neptune_qa": load_recipe("neptune_qa")}


def _item(k: int, period: tuple[float, float], span: tuple[float, float]) -> dict:
    return {"item_id": f"i{k}", "subtask": "neptune_qa", "query": f"Question {k}?",
            "period": {"start_s": period[0], "end_s": period[1]},
            "answer": {"text": f"answer {k}"}, "span": span}


class CoverageOracle:
    """Answers item k right iff its frames' time range (each frame standing for its share of
    the clip) covers at least half of the item's answer span; sample > 0 may be told to
    disagree."""

    class settings:  # noqa: N801 - the attribute a backend carries
        max_concurrency = 1

    max_images = 10_000

    def __init__(self, items: list[dict], disagree: set[str] = frozenset()) -> None:
        self.items = {it["query"]: it for it in items}
        self.disagree = disagree

    def answer_batch(self, batch: list[list[dict]], sample: int = 0) -> list[Completion]:
        out = []
        for messages in batch:
            text = "".join(p for m in messages for p in m["content"] if isinstance(p, str))
            item = next(it for q, it in self.items.items() if q in text)
            times = [p.virtual_s for m in messages for p in m["content"]
                     if isinstance(p, Frame)]
            covered = self._covered(times, item["span"])
            right = covered >= 0.5 * (item["span"][1] - item["span"][0])
            reply = item["answer"]["text"] if right else "something else"
            if sample and item["item_id"] in self.disagree:
                reply += " (another sample)"
            out.append(Completion(reply, 0, 0, 0.0, False))
        return out

    @staticmethod
    def _covered(times: list[float], span: tuple[float, float]) -> float:
        if not times:
            return 0.0
        step = (max(times) - min(times)) / max(1, len(times) - 1) if len(times) > 1 else 1.0
        lo, hi = min(times) - step / 2, max(times) + step / 2
        return max(0.0, min(hi, span[1]) - max(lo, span[0]))


def _frames(log: dict, centre: float, n: int, fps: float) -> list[Frame]:
    return [Frame(Path(f"{seg['video_uid']}-{s}.jpg"), "", to_day(seg, s))
            for seg, s in clip_times(log, centre, n / fps, n)]


def test_the_certificate_is_the_smallest_clip_covering_half_the_answer() -> None:
    sweep, fps = [4, 8, 16, 32, 64, 128], 1.0
    # answers 10 s, 40 s and 100 s long, centred on their question's period
    items = [_item(0, (28900, 28960), (28925, 28935)),
             _item(1, (29000, 29100), (29030, 29070)),
             _item(2, (32500, 32800), (32600, 32700))]
    vlm = CoverageOracle(items)
    right = {}
    for n in sweep:
        replies = CentredClip(vlm, lambda log, c, n=n: _frames(log, c, n, fps)).respond(
            items, RECIPES, LOG)
        right[n] = {it["item_id"]: replies[it["item_id"]] == it["answer"]["text"]
                    for it in items}
    # by hand: a clip of L s centred on the span covers min(L, span) of it -> half at
    # L >= span / 2: 5 s -> 8 frames, 20 s -> 32, 50 s -> 64
    firsts = {it: next(n for n in sweep if right[n][it]) for it in ("i0", "i1", "i2")}
    assert firsts == {"i0": 8, "i1": 32, "i2": 64}
    out = effort(right)
    assert out["certificate_frames"] == pytest.approx((8 + 32 + 64) / 3, abs=1e-3)
    assert out["effort"] == pytest.approx((4 / 8 + 16 / 32 + 32 / 64) / 3)
    assert "certificate_s" not in out, "frames only, unless the counts are clip lengths"
    timed = effort(right, {n: n / 0.5 for n in sweep})
    assert timed["certificate_s"] == pytest.approx(2 * 104 / 3, abs=1e-2)
    assert {k: v for k, v in timed.items() if k != "certificate_s"} == out


def test_the_clip_is_centred_on_the_question_and_cut_at_the_recording() -> None:
    """Frames fall on recorded time only: a clip over the gap between two stretches takes
    its frames from both sides, one past the day's start is cut there."""
    item = _item(0, (29300, 29500), (0, 1))  # its period spans the gap
    assert centre_of(item, LOG) == 29400
    where = [to_day(seg, s) for seg, s in clip_times(LOG, 29400, 7200, 8)]
    assert len(where) == 8 and where == sorted(where)
    assert all(28800 <= t <= 29400 or 32400 <= t <= 33000 for t in where)
    assert {seg["video_uid"] for seg, _ in clip_times(LOG, 29400, 7200, 8)} == {"a", "b"}
    early = [to_day(seg, s) for seg, s in clip_times(LOG, 28800, 60, 6)]
    assert min(early) >= 28800 and max(early) <= 28830
    assert clip_times(LOG, 31000, 60, 4) == [], "a clip inside the gap has no frames"
    day = {"segments": LOG["segments"]}
    assert centre_of({"query": "x"}, day) == (28800 + 33000) / 2


def test_samples_that_disagree_leave_the_clip_unconfirmed() -> None:
    items = [_item(0, (28900, 28960), (28925, 28935)), _item(1, (29000, 29100),
                                                              (29030, 29070))]
    vlm = CoverageOracle(items, disagree={"i1"})
    replies = CentredClip(vlm, lambda log, c: _frames(log, c, 128, 1.0), seeds=3).respond(
        items, RECIPES, LOG)
    assert replies == {"i0": "answer 0", "i1": UNCONFIRMED}
    one = CentredClip(vlm, lambda log, c: _frames(log, c, 128, 1.0), seeds=1).respond(
        items, RECIPES, LOG)
    assert one["i1"] == "answer 1", "one sample: nothing to confirm against"


@pytest.mark.slow  # the pipeline through the CLI (about 15 s): the slow tier CI runs
def test_a_growing_clip_runs_through_the_cli_with_its_seconds(tmp_path: Path) -> None:
    args = [*FAST, "stages=[library,persona,plan,simulate,annotate,evaluate]", "render=none",
            "tasks=[neptune_qa]", "eval.bertscore=false", "eval.bootstrap=10",
            "eval.frames_sweep=[2,8]", "eval.clip_fps=0.5", "eval.clip_seeds=2",
            "eval.systems=[centred_clip]", "eval.max_logs=1"]
    ran = run_inprocess(tmp_path, *args)
    assert ran.rc == 0, ran.text[-3000:]
    results = tmp_path / "benchmarks" / "demo" / "results"
    assert sorted(p.name for p in results.iterdir() if p.is_dir()) == [
        "centred_clip@scripted@frames=2", "centred_clip@scripted@frames=8"]
    board = json.loads((results / "leaderboard.json").read_text())
    entry = board["frames_sweep"]["centred_clip@scripted"]["neptune_qa"]
    assert entry["clip_s"] == {"2": 4.0, "8": 16.0}
    assert "2 frames = 4 s, 8 frames = 16 s" in (results / "leaderboard.md").read_text()
    ran = run_inprocess(tmp_path, *args, "eval.clip_seconds=[10,20]")
    assert ran.rc == 0, ran.text[-3000:]
    board = json.loads((results / "leaderboard.json").read_text())
    assert board["frames_sweep"]["centred_clip@scripted"]["neptune_qa"]["clip_s"] == {
        "2": 10.0, "8": 20.0}
    ran = run_inprocess(tmp_path, *args[:-3], "eval.clip_fps=0")
    assert ran.rc == 2 and "clip_fps" in ran.text
    ran = run_inprocess(tmp_path, *args, "eval.clip_seconds=[10]")
    assert ran.rc == 2 and "eval.clip_seconds=[10.0]: give one clip length per" in ran.text
    assert len(ran.text.strip().splitlines()) <= 3
