"""Reflection: after each match, revise the remaining chunks given what was recorded.

Rules every revision must satisfy (checked for offline and LLM revisions alike): the same
number of chunks in the same order; the first starts at least `min_gap_s` after the matched
segment ends; each later one starts at least `min_gap_s` after the previous chunk ends. A
revision that breaks them is retried (LLM) and finally repaired deterministically by
shifting chunks later; the repair is recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xlebench.clock import fmt_hhmmss
from xlebench.library.records import LibraryVideo
from xlebench.library.taxonomy import normalize_scenario
from xlebench.plan.chunks import PlanChunk

TimeClass = Callable[[int], str]


@dataclass
class Revision:
    after_segment: int
    segment_end_s: int
    before: list[PlanChunk]
    after: list[PlanChunk]
    changes: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    repaired: bool = False

    def to_dict(self, chunk_dict: Callable[[PlanChunk], dict] = PlanChunk.to_dict) -> dict:
        """What the revision changed, not full copies (those made a log's record quadratic in
        its chunks): ``remaining`` chunks were to come; ``shifted`` runs of consecutive
        positions moved later by the same seconds (``[first, last, seconds]``); ``changed``
        the chunks replaced or otherwise edited, by position: the one before (id, activity,
        times: the plan has the rest) and the one after, whole.
        ``chunk_dict``: how chunks become dicts (`shared_chunk_dicts`: once per chunk)."""
        changed: list[dict] = []
        shifted: list[list[int]] = []
        for k in range(max(len(self.before), len(self.after))):
            b = chunk_dict(self.before[k]) if k < len(self.before) else None
            a = chunk_dict(self.after[k]) if k < len(self.after) else None
            if b == a:
                continue
            delta = _shift(b, a)
            if delta is None:  # the chunk it replaced is in the plan: named, not copied
                changed.append({"position": k, "before": _brief(b), "after": a})
            elif shifted and shifted[-1][1] == k - 1 and shifted[-1][2] == delta:
                shifted[-1][1] = k
            else:
                shifted.append([k, k, delta])
        return {
            "after_segment": self.after_segment, "segment_end_s": self.segment_end_s,
            "remaining": len(self.before), "shifted": shifted, "changed": changed,
            "changes": self.changes, "violations": self.violations, "repaired": self.repaired,
        }


def _brief(chunk: dict | None) -> dict | None:
    return None if chunk is None else {k: chunk[k] for k in ("chunk_id", "activity", "start_s",
                                                            "end_s")}


def _shift(before: dict | None, after: dict | None) -> int | None:
    """Seconds a chunk moved when moving is all that changed (start and end alike)."""
    if before is None or after is None:
        return None
    delta = after["start_s"] - before["start_s"]
    same = before.keys() == after.keys() and all(
        after[k] == before[k] for k in before if k not in ("start_s", "end_s"))
    return int(delta) if same and after["end_s"] - before["end_s"] == delta else None


def shared_chunk_dicts() -> Callable[[PlanChunk], dict]:
    """`PlanChunk.to_dict`, computed once per chunk object: a log of n chunks lists each chunk
    in up to 2n revisions, so its record holds O(n^2) chunk entries but only O(n) distinct
    dicts, which `xlebench.runner.pretty` then encodes once each."""
    made: dict[int, tuple[PlanChunk, dict]] = {}

    def chunk_dict(c: PlanChunk) -> dict:
        hit = made.get(id(c))
        if hit is None or hit[0] is not c:
            hit = made[id(c)] = (c, c.to_dict())  # the chunk is kept: its id stays unique
        return hit[1]
    return chunk_dict


def violations(before: Sequence[PlanChunk], after: Sequence[PlanChunk], segment_end: int,
               min_gap_s: int) -> list[str]:
    """Every broken rule, in words (empty when the revision is valid)."""
    out = []
    if len(after) != len(before):
        out.append(f"expected {len(before)} chunks, got {len(after)}")
    prev_end, prev_name = segment_end, "the matched segment"
    for c in after:
        if c.end_s <= c.start_s:
            out.append(f"{c.chunk_id} ends before it starts")
        if c.start_s < prev_end + min_gap_s:
            out.append(f"{c.chunk_id} starts at {fmt_hhmmss(c.start_s)}, less than {min_gap_s}s "
                       f"after {prev_name} ends ({fmt_hhmmss(prev_end)})")
        prev_end, prev_name = c.end_s, c.chunk_id
    return out


def repair(chunks: Sequence[PlanChunk], segment_end: int, min_gap_s: int,
           tclass: TimeClass) -> list[PlanChunk]:
    """Shift chunks later (never earlier) until every gap rule holds; order is kept."""
    out, prev_end = [], segment_end
    for c in chunks:
        start = max(c.start_s, prev_end + min_gap_s)
        c = c.shifted(start, tclass(start)) if start != c.start_s else c
        out.append(c)
        prev_end = c.end_s
    return out


def _covered(chunk: PlanChunk, video: LibraryVideo) -> bool:
    """The matched video already recorded this activity (meals may recur: never covered)."""
    if chunk.slot == "meal" or not chunk.scenarios:
        return False
    mine = {normalize_scenario(s) for s in chunk.scenarios}
    return mine <= {normalize_scenario(s) for s in video.scenarios}


def reflect_offline(
    *, index: int, remaining: Sequence[PlanChunk], video: LibraryVideo, segment_end: int,
    alternatives: Callable[[PlanChunk], list[PlanChunk]], min_gap_s: int, tclass: TimeClass,
) -> Revision:
    """Replace activities the video already covered, then shift chunks past the segment."""
    rev = Revision(index, segment_end, list(remaining), [])
    revised = []
    taken: set[str] = set()
    for c in remaining:
        if _covered(c, video):
            alt = next((a for a in alternatives(c)
                        if not _covered(a, video) and a.chunk_id not in taken), None)
            if alt is not None:
                rev.changes.append(f"replaced {c.chunk_id} ({c.activity}), already recorded, "
                                   f"with {alt.chunk_id} ({alt.activity})")
                c = alt
        taken.add(c.chunk_id)
        revised.append(c)
    shifted = repair(revised, segment_end, min_gap_s, tclass)
    runs: list[list] = []  # [first id, last id, seconds]: one line per run, not per chunk
    for old, new in zip(revised, shifted, strict=True):
        delta = new.start_s - old.start_s
        if not delta:
            runs.append([])
        elif runs and runs[-1] and runs[-1][2] == delta:
            runs[-1][1] = new.chunk_id
        else:
            runs.append([new.chunk_id, new.chunk_id, delta])
    rev.changes += [f"shifted {a} later by {d}s" if a == b else
                    f"shifted {a} to {b} later by {d}s" for a, b, d in filter(None, runs)]
    rev.after = shifted
    rev.violations = violations(rev.before, rev.after, segment_end, min_gap_s)
    return rev
