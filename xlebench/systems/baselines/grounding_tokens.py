"""A grounding-token baseline of GeLM's kind (MultiHop-EgoQA, seed 003, section 5): the model
answers from the day's frames with each key part of its answer enclosed in grounding tokens
``<T1> ... </T1>``; each pair's hidden state is compared with every frame's, and the frames
that stand out for a pair are its evidence (the paper's similarity branch, thresholded per
row, the union over rows).

GeLM trains the projections and a saliency head on 14k generated triplets; this system runs a
frozen model's own states (`xlebench.vlm.grounding`), so it is named
``end_to_end_grounding`` and described as untrained wherever it is shown. A reply without
grounding tokens grounds its whole answer as one query. Questions of other recipes are
answered as `end_to_end` answers them.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from xlebench.errors import ConfigError
from xlebench.eval.metrics import union
from xlebench.eval.parse import answer_part, clock_spans, grounded_reply
from xlebench.eval.scorers import strip_tokens
from xlebench.systems.base import SystemKind
from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.systems.baselines.likelihood import scoring_system
from xlebench.systems.captioners import evenly
from xlebench.vlm.client import answer_all
from xlebench.vlm.messages import Frame

#: The paper's instruction for grounding tokens (its Table 16), after the recipe's format.
TOKENS = ("Enclose each key action or object of your answer in a pair of grounding tokens, "
          "numbered in order: <T1>...</T1>, <T2>...</T2>.")
_PAIR = re.compile(r"<T(\d+)>(.*?)</T\1>", re.DOTALL)


def _grounded(recipe: Any) -> bool:
    """Whether the recipe's answers are grounded (MultiHop-EgoQA's kind)."""
    return getattr(recipe.scorer, "kind", "") == "grounded"


def queries(answer: str) -> list[tuple[int, int]]:
    """Character spans of the grounding pairs' contents (the whole answer when it has none)."""
    found = [(m.start(2), m.end(2)) for m in _PAIR.finditer(answer) if m.group(2).strip()]
    return found or [(0, len(answer))]


def evidence(scores: Sequence[Sequence[float]], frames: Sequence[Frame],
             allowed: Sequence[bool]) -> list[tuple[float, float]]:
    """Frames at least one standard deviation above a row's mean (its best frame at least)
    among the ``allowed`` ones, over every row; each frame covers half the median gap to its
    neighbours on either side, and touching spans merge."""
    keep = [k for k, ok in enumerate(allowed) if ok] or list(range(len(frames)))
    times = sorted(f.virtual_s for f in frames)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False) if b > a]
    half = max(0.5, statistics.median(gaps) / 2) if gaps else 1.0
    picked: set[int] = set()
    for row in scores:
        values = [row[k] for k in keep]
        mean = statistics.fmean(values)
        sd = statistics.pstdev(values) if len(values) > 1 else 0.0
        best = max(keep, key=lambda k: (row[k], -k))
        picked |= {k for k in keep if row[k] >= mean + sd} | {best}
    spans = [(frames[k].virtual_s - half, frames[k].virtual_s + half) for k in sorted(picked)]
    return [(a, b) for a, b in union(spans)]


class GroundingTokens:
    name = "end_to_end_grounding"
    reads = None
    version = "1"

    def __init__(self, vlm: Any, frames: Callable[[dict], list[Frame]]) -> None:
        if not hasattr(vlm, "grounding_similarity"):
            raise ConfigError(f"eval.systems=[{self.name}] reads the model's hidden states: set "
                              "vlm=transformers (an API model returns none)")
        self.vlm, self.frames = vlm, frames

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        shown = evenly(self.frames(log), self.vlm.max_images)
        parts = blocks(shown, log)
        asks = [_with_frames(PROMPT, parts, question=it["query"],
                             answer_format=self._format(recipes[it["subtask"]]))
                for it in items]
        out = {}
        for it, messages, c in zip(items, asks, answer_all(self.vlm, asks), strict=True):
            out[it["item_id"]] = self._ground(it, messages, c.text, shown) \
                if _grounded(recipes[it["subtask"]]) else c.text
        return out

    @staticmethod
    def _format(recipe: Any) -> str:
        return f"{recipe.answer_format} {TOKENS}" if _grounded(recipe) \
            else recipe.answer_format

    def _ground(self, item: dict, messages: list[dict], reply: str,
                shown: list[Frame]) -> str:
        answer = answer_part(reply).strip() or reply.strip() or "."
        if not shown:  # nothing seen, nothing to ground: the answer without evidence
            return grounded_reply(strip_tokens(answer), "")
        rows = self.vlm.grounding_similarity(messages, answer, queries(answer))
        period = item.get("period") or {}
        lo, hi = period.get("start_s", float("-inf")), period.get("end_s", float("inf"))
        spans = evidence(rows, shown, [lo <= f.virtual_s <= hi for f in shown])
        return grounded_reply(strip_tokens(answer), clock_spans(spans))


SYSTEMS = (SystemKind("end_to_end_grounding", scoring_system(GroundingTokens), frames=True),)
