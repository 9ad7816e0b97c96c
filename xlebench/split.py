"""A held-out test split: whole life logs whose answers stay out of every export.

``annotate.heldout=0.3`` marks a seeded 30% of the life logs ``test`` and the rest ``dev``
(each item carries its log's ``split``). Splitting by life log keeps every item of a log on
one side, and — since a benchmark asks each source once (`xlebench.eval.provenance`) — every
source annotation too. The exports that carry answers (hf, lmms_eval, xlebench, egoschema,
curation) hold the dev logs only; the questions view (``export/questions/``) holds both, each
row naming its split, so a submitter answers the test questions and whoever holds the
benchmark scores them (``eval.split=test``). Logs reuse library videos, so a test log's
videos can also appear, asked other questions, in dev logs: the annotate stage counts those
items (``stats/tasks.json`` ``splits``).
"""

from __future__ import annotations

from collections.abc import Iterable

from xlebench.errors import ConfigError
from xlebench.runner.rng import derive_seed


def log_split(lifelog_id: str, seed: int, heldout: float) -> str:
    """``test`` for a seeded ``heldout`` share of life logs, else ``dev``."""
    return "test" if derive_seed(seed, "heldout", lifelog_id) / 2 ** 64 < heldout else "dev"


def split_logs(ids: Iterable[str], seed: int, heldout: float, which: str) -> list[str]:
    """The life logs of split ``which`` (``all``: every one)."""
    if which == "all":
        return list(ids)
    if heldout <= 0:
        raise ConfigError(f"eval.split={which}: this benchmark has no held-out split; compile "
                          "it with annotate.heldout=<share of life logs>, e.g. 0.3")
    return [i for i in ids if log_split(i, seed, heldout) == which]


def split_stats(items: Iterable[dict]) -> dict[str, object]:
    """Items per subtask and split, and the test items about a video some dev item is also
    about (asked another question: the library's reuse, not a repeated source)."""
    items = list(items)
    counts: dict[str, dict[str, int]] = {}
    for it in items:
        cell = counts.setdefault(it["subtask"], {"dev": 0, "test": 0})
        cell[it["split"]] += 1
    dev_videos = {e["video_uid"] for it in items if it["split"] == "dev"
                  for e in it.get("evidence", ())}
    shared = sum(1 for it in items if it["split"] == "test"
                 and dev_videos & {e["video_uid"] for e in it.get("evidence", ())})
    return {"items": dict(sorted(counts.items())),
            "test_items_about_a_video_of_a_dev_item": shared}
