"""What the annotate stage says of the benchmark it compiled, beside its items: the counts
behind ``stats/tasks.json`` (items per subtask and length, why candidates left, the rater
sheets' statistics) and the log lines that tell a user where a recipe lost its items.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xlebench.tasks.recipe.configured import empty_subtask_line
from xlebench.tasks.screening.rater_sheet import rating_summary

log = logging.getLogger(__name__)

#: Why an item left the benchmark when its source is asked in another life log.
REPEATED = "source asked in another life log (kept once)"
#: ... when its query printed another item's answer, or another's query printed its answer.
PRINTED = "printed another item's answer or was printed by one (one of the two kept)"
#: ... when its query showed, in other words, what another item about one of its source videos
#: answers in any life log (or the other way round): one of the two kept.
SHOWN = ("showed what another item about one of its videos answers, in other words, or was "
         "shown by one (one of the two kept, across life logs)")


def tally(records: Mapping[str, dict]) -> tuple[dict[str, list], dict[str, Counter],
                                                 dict[str, Counter], dict[str, dict]]:
    """The units' records gathered: items per subtask, items per subtask and length (and
    logs without any), why candidates left per subtask, and each source video's skipped
    annotation records."""
    by_sub: dict[str, list] = defaultdict(list)
    counts: dict[str, Counter] = defaultdict(Counter)
    reasons: dict[str, Counter] = defaultdict(Counter)
    per_video: dict[str, dict] = {}
    for rec in records.values():
        per_video.update(rec.get("annotation_skips", {}))
        by_sub[rec["subtask"]] += rec["items"]
        counts[rec["subtask"]][rec["category"]] += len(rec["items"])
        if not rec["items"]:
            counts[rec["subtask"]]["logs_without_items"] += 1
        reasons[rec["subtask"]].update(rec["stats"])
    return by_sub, counts, reasons, per_video


def settled(reasons: dict[str, Counter], by_sub: dict[str, list], recipes: Mapping
            ) -> dict[str, dict[str, float]]:
    """Per subtask: the items kept and those `AnnotateStage.finish` dropped for printing or
    showing another item's answer (or being printed or shown), and the share kept of both."""
    out = {}
    for sub in recipes:
        kept, pr, sh = len(by_sub[sub]), reasons[sub][PRINTED], reasons[sub][SHOWN]
        out[sub] = {"kept": kept, "printed": pr, "shown": sh,
                    "kept_share": round(kept / (kept + pr + sh), 4) if kept + pr + sh else 1.0}
    return dict(sorted(out.items()))


def rater_stats(filters: Mapping[str, list], records: Mapping[str, dict]) -> dict[str, dict]:
    """Per subtask with a ``raters`` filter: Neptune's discard statistics of its sheet,
    over the items the recipe generated (a sheet naming another benchmark's is refused)."""
    out = {}
    for sub in sorted(filters):
        mine = [rec for rec in records.values() if rec["subtask"] == sub]
        # records cached before the ids were kept know none: the sheet is then read whole
        generated = {i for rec in mine for i in rec.get("generated", ())} \
            if all("generated" in rec for rec in mine) else None
        for spec in filters[sub]:
            if spec.get("kind") == "raters":
                out[sub] = rating_summary(spec["verdicts"], spec.get("agreement", "majority"),
                                          spec["drop"], generated, sub)
    return out


def log_outcomes(stats: dict[str, Any], by_sub: Mapping[str, list], recipes: Mapping[str, Any],
                 annotations_root: Path | None, corpus: bool) -> None:
    """Where a recipe lost items, and why, in the run's log (the numbers are in
    ``stats/tasks.json``)."""
    for sub in recipes:
        lost = stats["skipped"].get(sub, {}).get(PRINTED, 0)
        if lost > len(by_sub[sub]):
            log.warning("%s: %d items dropped, %d kept: their queries printed another "
                        "recipe's answers or theirs were printed (stats/tasks.json); two "
                        "recipes asking one source the same thing in two forms are better "
                        "compiled as separate benchmarks", sub, lost, len(by_sub[sub]))
    for sub, cell in stats["settled"].items():
        if not cell["kept"] + cell["printed"] + cell["shown"]:
            continue  # an empty subtask gets its own line below, saying why
        log.info("%s: %d items kept, %d dropped for printing or showing another item's "
                 "answer (%.0f%% kept)", sub, cell["kept"], cell["printed"] + cell["shown"],
                 100 * cell["kept_share"])
    for sub, leak in stats["printed_answers"].items():
        log.warning("%s: %d items print the answer of another item of their life log or "
                    "source video (%s; e.g. %s): a reader of the query answers it without "
                    "the video; see stats/tasks.json (printed_answers)", sub, leak["items"],
                    ", ".join(f"{n} of {s}" for s, n in leak["answers_of"].items()),
                    leak["example"])
    for sub in recipes:
        if not by_sub[sub]:
            log.warning("%s", empty_subtask_line(sub, recipes[sub], stats["skipped"].get(sub, {}),
                                                 annotations_root, corpus))


def metric_settings() -> Any:
    """The evaluation's default metric settings without model metrics: what the validity
    check and the panel filter score with."""
    from xlebench.config.schema import EvalConfig
    from xlebench.eval.scorers import ScoreSettings

    return ScoreSettings.from_eval({**vars(EvalConfig()), "bertscore": False})


def validity_checks(items: list[dict], oracle: dict[str, str], recipes: Mapping[str, Any],
                    seed: int, script: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Per recipe: its full-information oracle against its blind panel
    (`xlebench.eval.panel.validity`), with the evaluation's default metric settings; a recipe
    that fails either check is logged."""
    from xlebench.config.schema import EvalConfig
    from xlebench.eval.panel.validity import validity

    checks = validity(items, oracle, dict(recipes), metric_settings(), seed=seed,
                      draws=int(EvalConfig().floor_draws), script=script)
    for sub, v in checks.items():
        if v["consistent"] is False or v["headroom"] is False:
            log.warning("%s: %s", sub, v["verdict"])
    return checks
