"""What a recipe's items look like in words and hops (MultiHop-EgoQA reports both): words per
question and per answer — the answer's prose only, its evidence spans and ``<Tk>`` grounding
tokens left out — and, for items that hop, how many hops and which categories."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

_TOKEN = re.compile(r"</?T\d+>")
_WORD = re.compile(r"[A-Za-z0-9']+")


def prose(answer_text: str) -> str:
    """An answer without its evidence line and grounding tokens."""
    from xlebench.eval.parse import answer_part

    return _TOKEN.sub(" ", answer_part(answer_text))


def _words(values: Sequence[int]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "mean": round(statistics.fmean(values), 2),
            "median": statistics.median(values), "max": max(values)}


def shape_stats(items: Sequence[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "question_words": _words([len(_WORD.findall(it["query"])) for it in items]),
        "answer_words": _words([len(_WORD.findall(prose(it["answer"]["text"])))
                                for it in items if not it["answer"].get("time_only")]),
    }
    hops = [it["hops"] for it in items if isinstance(it.get("hops"), int)]
    if hops:
        out["hops"] = {"histogram": dict(sorted(Counter(hops).items())),
                       "mean": round(statistics.fmean(hops), 2)}
        out["hop_categories"] = dict(sorted(Counter(it.get("hop_category", "?") for it in items
                                                    if "hops" in it).items()))
    return out
