"""The blind panel: what a benchmark's items yield to answers that never see a frame.

Every scorer declares video-blind strategies (`xlebench.eval.scorers.base.Blind`): a constant
summary, the query echoed back, option-only rules, count and position priors... This module
runs them over a set of items and scores their answers like any system's replies. Strategies
that learn from answers are **cross-fitted by source video** (`xlebench.eval.provenance`): the
source videos are split into folds, an item goes with its first video, and the items of one
fold are answered by a strategy fitted only on items that share no video with any item of the
fold (where items are about several videos each, a strategy is fitted per item on the items
that share none of its videos: `own_videos`). Life logs reuse library videos, so folding by
life log would let a strategy learn an answer from another log's item about the same video
and annotation; folding by video never
shows a strategy an answer about a video it is scored on. Each learned strategy also runs
fitted on other life logs' items whatever videos they share (``<name>_remembered``): a reader
who remembers other logs' answers, which beats the video-folded fit where items are about a
whole day (other days reuse its videos); the floor is the strongest of all.

The printed floor of a results cell is the strongest member of the panel on that cell's items
(`xlebench.eval.table`), named beside it: the honest answer to "how much of this score could a
system get without the video?".
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from xlebench.eval.panel.folding import _Apart, apart, folds, own_videos, training
from xlebench.eval.panel.public import Public
from xlebench.eval.panel.scoring import member_rows
from xlebench.eval.provenance import source_videos
from xlebench.eval.scorers.base import Blind, BlindContext, ScoreSettings
from xlebench.runner.cores import in_child, spread
from xlebench.runner.progress import timed
from xlebench.runner.rng import unit_rng
from xlebench.runner.tasks import task_key

log = logging.getLogger(__name__)

#: The name suffix of a learned strategy fitted on other life logs whatever videos they share.
REMEMBERED = "_remembered"


@dataclass
class Panel:
    """Rows of every strategy, per subtask: ``rows[subtask][member]`` has one row per item of
    the subtask, in item order, shaped as `xlebench.eval.score.score_items` rows."""

    rows: dict[str, dict[str, list[dict]]] = field(default_factory=dict)
    sees: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Strategies that could not run, with why (a learned one on a single life log).
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)


class _Fits:
    """Models fitted in this process, by (fit function, the training items' contents in
    order, the public view's): the validity check at annotate and every evaluation after it
    fit the same learned members on the same items (a fit reads nothing else), so a run that
    compiles and then evaluates fits each once. The most recent `FITS_KEPT` are kept."""

    def __init__(self, kept: int) -> None:
        self.kept, self.models = kept, OrderedDict()
        self.lock = threading.Lock()
        #: Where the fits made from now on are also listed (a forked task's, `_answer_group`).
        self.fresh: list[tuple[tuple, Any]] | None = None

    def get(self, blind: Blind, train: list[dict], public: Public,
            contents: tuple[bytes, ...] | None = None) -> Any:  # ``public.digest`` of train
        contents = tuple(map(public.digest, train)) if contents is None else contents
        key = (blind.fit, contents, public.key if blind.public else None)
        with self.lock:
            if key in self.models:
                self.models.move_to_end(key)
                return self.models[key]
        model = blind.fit(train, public) if blind.public else blind.fit(train)
        self.put(key, model)
        if self.fresh is not None:
            self.fresh.append((key, model))
        return model

    def put(self, key: tuple, model: Any) -> None:
        with self.lock:
            self.models[key] = model
            self.models.move_to_end(key)
            while len(self.models) > self.kept:
                self.models.popitem(last=False)


#: Fitted models kept per process (a ridge model over hashed features is about 130 kB).
FITS_KEPT = 4096
_FITS = _Fits(FITS_KEPT)


def _fitted(blind: Blind, it: dict, items: Sequence[dict], fold_of: Mapping[str, int],
            unit: str, models: dict[tuple[Any, Any], Any], per_item: _Apart | None,
            public: Public) -> Any:
    """The strategy's model for ``it`` (per item where ``per_item``: `own_videos`);
    ``models`` caches fits per (fit function, fold or video set), shared by the strategies
    that learn the same thing."""
    if per_item is not None:
        mine = frozenset(source_videos(it))
        key: tuple[Any, Any] = (blind.fit, mine)
        if key not in models:
            models[key] = _FITS.get(blind, per_item(mine), public, per_item.digest(mine, public))
        return models[key]
    key = (blind.fit, fold_of[it["item_id"]])
    if key not in models:
        models[key] = _FITS.get(blind, training(items, fold_of, key[1], unit), public)
    return models[key]


#: Members' answers kept per process (`_answers`): a set of answers is a few hundred kB.
ANSWERS_KEPT = 512
_ANSWERS: OrderedDict[tuple, list[Any]] = OrderedDict()
_ANSWERS_LOCK = threading.Lock()


def _answers_key(blind: Blind, items: Sequence[dict], fold_of: Mapping[str, int],
                 s: ScoreSettings, seed: int, draws: int, unit: str, public: Public) -> tuple:
    """What a learning member's answers depend on: the member, the items and their folds, the
    seed and the public view (the evaluate stage adds only the model metrics, which an answer
    always holds: `xlebench.eval.panel.scoring.expected_row`)."""
    return (blind.name, blind.answer, blind.fit, _folded_digest(items, fold_of, public),
            public.key if blind.public else None, seed, draws, unit, replace(s, bertscore=False))


def _folded_digest(items: Sequence[dict], fold_of: Mapping[str, int], public: Public) -> bytes:
    """The items' contents and folds, in order, as one digest."""
    h = hashlib.blake2b(digest_size=16)
    for it in items:
        h.update(public.digest(it))
        h.update(fold_of[it["item_id"]].to_bytes(4, "little"))
    return h.digest()


def _kept_answers(key: tuple) -> list[Any] | None:
    """A learning member's answers computed earlier in this process (`_ANSWERS`): the
    annotate stage's validity check and the evaluate stage's panel answer the published items
    alike, so at ten times the paper grid the evaluate stage would otherwise refit tens of
    thousands of models the check fitted moments before."""
    with _ANSWERS_LOCK:
        if key in _ANSWERS:
            _ANSWERS.move_to_end(key)
            return list(_ANSWERS[key])
    return None


def _keep_answers(key: tuple, answers: Sequence[Any]) -> None:
    with _ANSWERS_LOCK:
        _ANSWERS[key] = list(answers)
        while len(_ANSWERS) > ANSWERS_KEPT:
            _ANSWERS.popitem(last=False)


def _answer_all(blind: Blind, items: Sequence[dict], fold_of: Mapping[str, int],
                s: ScoreSettings, seed: int, draws: int, models: dict[tuple[Any, Any], Any],
                unit: str, public: Public, only: AbstractSet[str] | None = None) -> list[Any]:
    """Each item's answer (of the items ``only`` names, where given), from the model fitted
    for it on ``items`` (`_fitted`)."""
    out = []
    per_item = apart(items) if blind.fit is not None and own_videos(items, unit) else None
    for it in items:
        if only is not None and it["item_id"] not in only:
            continue
        model = None
        if blind.fit is not None:
            model = _fitted(blind, it, items, fold_of, unit, models, per_item, public)
        ctx = BlindContext(s, unit_rng(seed, "blind", blind.name, it["item_id"]), draws,
                           public if blind.public else None)
        out.append(blind.answer(it, model, ctx))
    return out


@dataclass(frozen=True)
class _Job:
    """One member of the panel over one subtask's items, folded by ``unit`` (``remembered``:
    a learning member fitted again on other life logs' items, `REMEMBERED`)."""

    sub: str
    blind: Blind
    items: Sequence[dict]
    fold_of: Mapping[str, int]
    unit: str
    remembered: bool = False

    @property
    def name(self) -> str:
        return self.blind.name + (REMEMBERED if self.remembered else "")


def _every_answer(jobs: Sequence[_Job], s: ScoreSettings, seed: int, draws: int,
                  public: Public, keep_fits: bool = False) -> list[list[Any]]:
    """Each job's answers, in item order. Members that read the public view and learn nothing
    answer here, first (the sentence centroid encodes every option once for the view, which
    the learning members then read); the others — those learning not kept from earlier
    (`_kept_answers`) — are computed per (subtask, fit, unit) and part of the items
    (`_parts`: a fold, or a run of items each answered by its own fit), the members sharing a
    fit sharing its models, spread over the run's cores (`spread`, kept in the stage's store
    by `_task_keys`), put back in item order: the same answers whatever the count, as an
    answer reads only its item's model and a generator seeded by its item. ``keep_fits``: the
    children's fits come back here (`_keep_fits`), for a caller asking again on one view."""
    out: list[list[Any] | None] = [None] * len(jobs)
    todo: dict[tuple, list[int]] = {}
    keys: dict[int, tuple] = {}
    shares: dict[tuple, tuple[str, ...]] = {}
    for k, job in enumerate(jobs):
        if job.blind.fit is None and job.blind.public:
            out[k] = _answer_all(job.blind, job.items, job.fold_of, s, seed, draws, {},
                                 job.unit, public)
            continue
        if job.blind.fit is not None:
            keys[k] = _answers_key(job.blind, job.items, job.fold_of, s, seed, draws,
                                   job.unit, public)
            out[k] = _kept_answers(keys[k])
        if out[k] is None:
            for part, ids in _parts(job).items():
                group = (job.sub, job.unit, job.remembered, job.blind.fit, part)
                todo.setdefault(group, []).append(k)
                shares[group] = ids  # the same for every job of the group: one subtask's items
    groups = list(todo.items())
    if groups:
        _warm(public, [jobs[k] for ks in todo.values() for k in ks])
    parts = spread([partial(_answer_group, [jobs[k] for k in ks], frozenset(shares[group]), s,
                            seed, draws, public, keep_fits) for group, ks in groups],
                   [len(ks) * len(shares[group]) for group, ks in groups],
                   keys=_task_keys(groups, jobs, s, seed, draws, public),
                   slim=lambda result: (result[0], []))  # a fit is kept in memory only
    answered: dict[int, dict[str, Any]] = {}
    for (group, ks), (answers, fits) in zip(groups, parts, strict=True):
        _keep_fits(fits)
        for k, mine in zip(ks, answers, strict=True):
            answered.setdefault(k, {}).update(zip(shares[group], mine, strict=True))
    for k, by_id in answered.items():
        out[k] = [by_id[it["item_id"]] for it in jobs[k].items]
        if k in keys:
            _keep_answers(keys[k], out[k])
    return [list(a or []) for a in out]


def _task_keys(groups: Sequence[tuple[tuple, list[int]]], jobs: Sequence[_Job],
               s: ScoreSettings, seed: int, draws: int, public: Public) -> list[str]:
    """Each group's task, named by what its answers read (`xlebench.runner.tasks`): the
    members, the part, every item of the subtask and its fold (a fit reads the others), the
    public view, the seed and draws; the stage's store folder names the code and config."""
    seen: dict[tuple[int, int], bytes] = {}
    out = []
    for (sub, unit, remembered, _fit, part), ks in groups:
        job = jobs[ks[0]]
        mark = (id(job.items), id(job.fold_of))
        if mark not in seen:
            seen[mark] = _folded_digest(job.items, job.fold_of, public)
        out.append(task_key("blind-panel-answers", sub, unit, remembered,
                            tuple(jobs[k].name for k in ks), part, seen[mark], public.key,
                            seed, draws, s))
    return out


#: Items per task where each item's answer is its own (a fit per item, or no fit at all).
PART_ITEMS = 64


def _parts(job: _Job) -> dict[tuple[str, int], tuple[str, ...]]:
    """The job's item ids, in item order, cut into the tasks that answer them: a fold's items
    together where the member fits once per fold (its model is the fold's), else runs of
    `PART_ITEMS` (each item's answer its own: a fit per item, `own_videos`, or none)."""
    ids = [it["item_id"] for it in job.items]
    if job.blind.fit is not None and not own_videos(job.items, job.unit):
        folded: dict[int, list[str]] = {}
        for i in ids:
            folded.setdefault(job.fold_of[i], []).append(i)
        return {("fold", f): tuple(folded[f]) for f in sorted(folded)}
    return {("run", k): tuple(ids[k:k + PART_ITEMS]) for k in range(0, len(ids), PART_ITEMS)}


def _warm(public: Public, jobs: Sequence[_Job]) -> None:
    """What the spreading members build once per public view (option features, the TF-IDF
    matrix, `apart` where `_answer_all` reads it), built here: forked children would each
    build it again at every call, and the panel filter calls the panel nine times a view."""
    from xlebench.eval.scorers.learned import fit_nearest, warm_nearest
    from xlebench.eval.scorers.option_features import warm_features

    for items in {id(j.items): j.items for j in jobs}.values():
        warm_features(items, public)
    for (_, unit), items in {(id(j.items), j.unit): j.items for j in jobs if j.blind.fit}.items():
        if own_videos(items, unit):
            apart(items)
    if any(j.blind.fit is fit_nearest for j in jobs):
        warm_nearest(public)


def _answer_group(jobs: Sequence[_Job], only: AbstractSet[str], s: ScoreSettings, seed: int,
                  draws: int, public: Public, keep_fits: bool
                  ) -> tuple[list[list[Any]], list[bytes]]:
    """The answers of members sharing one fit on one part's items (`_parts`), sharing its
    models; and,
    in a forked child where ``keep_fits``, the fits it made (pickled), which the parent keeps
    (`_keep_fits`): worth it where the same view is asked again (the panel filter's nine
    calls: 32.5 -> 17.2 s on summary_mcq), a cost where it is not (the 1x paper grid's check:
    15 -> 39 s)."""
    models: dict[tuple[Any, Any], Any] = {}
    _FITS.fresh = [] if in_child() and keep_fits else None
    try:
        answers = [_answer_all(j.blind, j.items, j.fold_of, s, seed, draws, models, j.unit,
                               public, only) for j in jobs]
        fresh = _FITS.fresh or []
    finally:
        _FITS.fresh = None
    return answers, [blob for entry in fresh if (blob := _pickled(entry)) is not None]


def _pickled(entry: tuple[tuple, Any]) -> bytes | None:
    """A fit and its key as bytes, or None where they do not pickle (a closure's fit)."""
    try:
        return pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None


def _keep_fits(blobs: Sequence[bytes]) -> None:
    """The children's fits, kept here: the next step forks from this process, so its
    children start with every fit made so far, as one process would (a fit per item reads
    the same items at every one of the panel filter's nine calls)."""
    for blob in blobs:
        _FITS.put(*pickle.loads(blob))


def panel_rows(items: Sequence[dict], recipes: Mapping[str, Any], s: ScoreSettings, *,
               seed: int, draws: int, bertscorer: Any = None, unit: str = "video",
               public: Sequence[dict] | Public | None = None,
               script: Mapping[str, Sequence[dict]] | None = None,
               keep_fits: bool = False, models: Collection[str] | None = None) -> Panel:
    """Every subtask's blind strategies over ``items``, scored. Learned strategies need at
    least two folds' units (one to learn from, one to answer). ``public``: every item a
    submitter reads (the whole benchmark; ``items`` when not given), never their answers;
    ``script``: each life log's plan (`xlebench.eval.panel.public.script_of`), which the
    public configuration rebuilds; ``keep_fits``: for a caller that asks again on the same
    view (`_answer_group`); ``models``: `scoring.member_rows`'s."""
    view = public if isinstance(public, Public) else Public(
        items if public is None else public, script)
    by_sub: dict[str, list[dict]] = {}
    for it in items:
        by_sub.setdefault(it["subtask"], []).append(it)
    fold_of = folds(items, seed, unit=unit)
    panel = Panel()
    jobs: list[_Job] = []
    for sub, its in by_sub.items():
        panel.rows[sub], panel.sees[sub] = {}, {}
        skipped = {}
        for blind in recipes[sub].scorer.blind():
            if blind.fit is not None and len(set(fold_of.values())) < 2:
                skipped[blind.name] = "learns from items about other videos: needs two"
                continue
            jobs.append(_Job(sub, blind, its, fold_of, unit))
        if unit == "video":
            jobs += _remembering(sub, its, recipes, seed)
        if skipped:
            panel.skipped[sub] = skipped
    with timed(log, "blind panel: answers"):  # with the model metrics: `scoring.expected_row`
        answers = _every_answer(jobs, replace(s, bertscore=True), seed, draws, view, keep_fits)
    with timed(log, "blind panel: scores"):
        scored = member_rows([j.items for j in jobs], answers, recipes, s, bertscorer, models)
    for job, rows in zip(jobs, scored, strict=True):
        panel.rows[job.sub][job.name] = rows
        panel.sees[job.sub][job.name] = job.blind.sees + (
            "; fitted on other life logs' items, videos shared (remembers their answers)"
            if job.remembered else "")
    return panel


def _remembering(sub: str, items: Sequence[dict], recipes: Mapping[str, Any],
                 seed: int) -> list[_Job]:
    """Each learned strategy again, fitted on other life logs' items whatever videos they
    share (`REMEMBERED`), after the others so that ties go to them. Life logs reuse videos:
    asked once, a source gives nothing away, but items about a whole day share videos with
    other logs' days, and a reader who remembers those answers never sees a frame either."""
    fold_of = folds(items, seed, unit="life_log")
    if len(set(fold_of.values())) < 2:
        return []
    return [_Job(sub, blind, items, fold_of, "life_log", remembered=True)
            for blind in recipes[sub].scorer.blind() if blind.fit is not None]


def strongest(members: Mapping[str, Sequence[dict]], metric: str, estimate: Any
              ) -> tuple[str | None, dict[str, float | None]]:
    """The member with the highest ``estimate(rows, metric)`` (the first declared on ties),
    and every member's value."""
    values = {m: estimate(rows, metric) for m, rows in members.items()}
    best = None
    for m, v in values.items():
        if v is not None and (best is None or v > values[best]):
            best = m
    return best, values
