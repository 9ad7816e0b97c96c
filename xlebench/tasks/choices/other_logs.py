"""What other life logs offer a multiple-choice recipe: the summaries of their segments, nearest
in kind (country, length) and clock time first, and wrong options drawn from their answers."""

from __future__ import annotations

from xlebench.clock import DAY
from xlebench.tasks.choices.mcq import NearDuplicate, affinity, anchored_decoys, sampled_decoys
from xlebench.tasks.recipe.context import Context


def nearest_summaries(ctx: Context, seg: dict, pool: int | None) -> list[str]:
    """Summaries of the ``pool`` segments other logs recorded of a video from the same
    country and of a similar length first (`affinity`), then nearest in clock time (other
    videos; one entry per segment, so a video used often appears often), or of the library's
    videos when the benchmark has no other log; every one of them for ``pool=None``."""
    at = float(seg["start_s"]) % DAY
    mine = ctx.videos.get(seg["video_uid"])

    def rank(s: dict) -> int:
        other = ctx.videos.get(s["video_uid"])
        if mine is None or other is None:
            return 3
        return affinity(mine.country, other.country, mine.duration_s, other.duration_s)
    found = sorted((rank(s), _clock_gap(float(s["start_s"]) % DAY, at), lid, s["index"],
                    s["video_uid"])
                   for lid, log in ctx.logs.items() if lid != ctx.log["lifelog_id"]
                   for s in log["segments"] if s["video_uid"] != seg["video_uid"])
    uids = [uid for *_, uid in found] or sorted(u for u in ctx.videos if u != seg["video_uid"])
    return [ctx.videos[u].summary for u in uids if u in ctx.videos][:pool]


def _clock_gap(a: float, b: float) -> float:
    d = abs(a - b) % DAY
    return min(d, DAY - d)


def pick_decoys(answer: str, occurrences: list[str], n: int, selection: str, ctx: Context,
                same: NearDuplicate) -> tuple[list[str], dict]:
    """Wrong options drawn from other logs' answers: ``sampled`` or ``anchored``."""
    if selection == "anchored":
        texts = list(dict.fromkeys(occurrences))
        return anchored_decoys(answer, texts, n, ctx.encode, ctx.rng, same)
    return sampled_decoys(answer, occurrences, n, ctx.encode, ctx.rng, same)
