"""Filters any recipe can list after its items are built: ``tasks.<name>.filters``.

A filter keeps or drops each item, writes its verdict into the item's
``provenance.filters.<kind>``, and counts what it dropped (reported in ``stats/tasks.json``),
so a long-term or shortcut-free variant of any recipe is one config line away::

    tasks.object_retrieval.filters=[{kind: certificate, min_s: 30}]

Kinds:

* ``certificate`` — keep items whose temporal certificate is at least ``min_s``.
* ``length_balance`` — multiple choice: keep items whose wrong options are, on average, within
  ``max_ratio`` of the right option's length in words, both ways (a length shortcut either
  way is a text-only cue).
* ``blind`` — multiple choice (EgoSchema): a text-only model answers from question and options
  in each of ``seeds`` samples; balanced by default (its picks' excess over chance dropped over
  the whole benchmark, as ``option_only``'s), else (``balance: false``, EgoSchema's rule) drop
  when it is right in at least ``drop_if_correct_at_least``. So are ``no_q``, ``qad_rank``
  and ``transcript_only``.
  ``no_question: true`` shows the options alone (the offline panel's option-only rules are
  its model-free counterpart).
* ``no_q`` — multiple choice (EgoSchema's No-Q baseline, section 3.1): a text-only model reads
  the narrations of the item's whole clip (``<t> - <narration>`` lines, as the generator saw
  them: the question's window, else the stretch its evidence spans) and the options, but not
  the question; near chance (EgoSchema: about 20%) means the wrong answers are as plausible
  for the clip as the right one. Dropped like ``blind``.
* ``qad_rank`` — multiple choice (Neptune): a text-only model ranks the lettered options in each
  of ``seeds`` samples; drop when its top option is right in at least
  ``drop_if_correct_at_least`` (Neptune: 2 of 3).
* ``option_only`` — multiple choice, offline (on by default for every multiple-choice recipe):
  the blind panel's option-only rules (`xlebench.eval.scorers.choice.OPTION_RULES`: the most
  central, most isolated, longest and shortest option, the one sharing most words with the
  question) each pick an option without any model. Balanced (``balance: true``, the default,
  like every filter that reads a blind reader's pick): each rule's right picks beyond chance
  (1 in k), or its wrong ones beyond chance where it is below, are dropped over the whole
  benchmark, per stratum of the rules' agreement (`xlebench.tasks.screening.balance`), so
  that neither a rule nor "not the rule's pick" reads what is kept. ``balance: false`` drops
  an item when at least ``drop_if_correct_at_least`` of them pick the right one (a rule tied
  between two options counts as picking both).

* ``panel`` — multiple choice and short answers, offline (on by default for egoschema_mcq,
  summary_mcq and neptune_qa): the blind panel, cross-fitted over every life log in each of
  ``seeds`` seeded fold assignments. Multiple choice is balanced: for at most ``rounds``
  rounds, the panel is fitted on what is kept and every member outside chance's band — the
  learned member's inverse and the stacked reader among them — loses its excess, per stratum
  of its agreement with the others. Short answers (and ``balance: false``) drop the items its
  strongest member answers right in at least ``drop_if_correct_at_least`` seeds
  (`xlebench.tasks.screening.panel_filter`; it runs once at the end of the annotate stage,
  since it needs every log's items, after ``aflite``).
* ``aflite`` — multiple choice and orders, offline (on by default for the multiple-choice
  recipes): AFLite (Le Bras et al., ICML 2020) with the learned blind member — a logistic
  regression over the options' words, their siblings, the clock and how often the rest of the
  benchmark names them; for orders, a ridge regression of each text's place — fitted
  in each of ``partitions`` seeded fold splits by source video. Multiple choice is balanced
  (the excess of predictable items over chance goes, per third of the learner's confidence,
  refitted for at most ``rounds`` rounds); orders and ``balance: false`` drop items whose mean
  accuracy (predictability) is at least ``threshold``, refit on the rest, for at most
  ``rounds`` rounds (`xlebench.tasks.screening.aflite`; at the end of the annotate stage).

* ``raters`` — human raters' verdicts (`xlebench.export.curation`: the sheet
  ``export.formats=[curation]`` writes, filled in): drop items whose ``verdict`` (GOOD / BAD /
  MAYBE: the second round's where given, BAD where one of EgoSchema's conditions A-E is
  ``N``), ``needs`` (video / audio / both / neither) or ``duplicate`` mark is listed in
  ``drop``; EgoSchema's curation is ``drop: [BAD, MAYBE, duplicate]``, Neptune's rater test
  ``drop: [audio]``. Items no rater saw are kept and counted. Several raters per item (rows
  told apart by ``rater``) are combined by ``agreement`` (``majority``, the default, or
  ``any``; `xlebench.tasks.screening.rater_sheet`), and ``stats/tasks.json`` (``raters``)
  gives Neptune's discard statistics.
* ``transcript_only`` — multiple choice (Neptune's ASR filter): a text-only model answers from
  the question, the options and the speech transcript (``transcripts``: a JSON file
  ``{video_uid: [{start_s, end_s, text}]}``) in each of ``seeds`` samples; drop when it is
  right in at least ``drop_if_correct_at_least``. ``scope: clip`` (the default, Neptune's:
  is the question answerable from the whole clip's transcript?) reads every line of the
  item's source videos; ``scope: evidence`` only the lines around its evidence spans.

Model-based filters sample with ``sample=<seed>`` through the cached LLM client, so each seed is
its own cached answer; they need ``llm=litellm`` (or ``replay``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xlebench.config.knobs import knob
from xlebench.errors import ConfigError
from xlebench.tasks.screening.frame_filters import static_video, talking_head


@dataclass
class RecipeParams:
    """Base of every recipe's parameter schema: the filters applied to its items."""

    #: e.g. [{kind: certificate, min_s: 30}]
    filters: list[Any] = field(default_factory=list)
    #: Filters added after ``filters`` when the benchmark is compiled with a language model
    #: (``llm`` not offline): model-based ones a recipe's paper runs by default (EgoSchema's
    #: blind filter), which an offline compile cannot.
    model_filters: list[Any] = field(default_factory=list)


@dataclass
class PeriodParams(RecipeParams):
    """Base of a recipe whose items name a period of records on the clock."""

    #: ``padded``: the records' period widened by a seeded share of the free time on each
    #: side, so that its length does not name the video; ``record``: the records' own start
    #: and end, as the paper prints them (`xlebench.tasks.recipe.records.record_period`).
    period: str = knob("padded", choices=("padded", "record"))


@dataclass(frozen=True)
class FilterContext:
    """What a filter may use besides the items (an LLM for model-based filters)."""

    llm: Any = None
    rng: Any = None
    #: ``narrations(item) -> text``: the Ego4D narrations of the item's evidence, serialized
    #: as EgoSchema's generator reads them (the ``no_q`` filter).
    narrations: Callable[[dict], str] | None = None
    #: ``frames(item, fps, max_frames) -> {video_uid: frames}``: each source record's frames
    #: (the ``talking_head`` and ``static_video`` filters; `frame_filters.RecordFrames`).
    frames: Callable[[dict, float, int], dict[str, list]] | None = None


Verdict = tuple[bool, dict[str, Any]]


def _certificate(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    seconds = item["certificate"]["seconds"]
    return seconds >= float(spec["min_s"]), {"seconds": seconds, "min_s": float(spec["min_s"])}


def _words(text: str) -> int:
    return max(1, len(text.split()))


def length_ratio(item: dict) -> float:
    """Mean word count of the wrong options over the right one's."""
    ans = item["answer"]
    wrong = [o for k, o in enumerate(ans["options"]) if k != ans["label"]]
    return sum(map(_words, wrong)) / len(wrong) / _words(ans["options"][ans["label"]])


def _length_balance(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    r, m = length_ratio(item), float(spec["max_ratio"])
    return 1 / m <= r <= m, {"ratio": round(r, 4), "max_ratio": m}


def _mcq_check(item: dict, kind: str, fctx: FilterContext) -> None:
    if "options" not in item["answer"]:
        raise ValueError(f"the {kind} filter needs multiple-choice items (answer.options)")
    if fctx.llm is None:
        raise ValueError(f"the {kind} filter asks a text-only model: set llm=litellm "
                         "(or llm=replay)")


def _option_lines(item: dict, letters: bool) -> str:
    return "\n".join(f"{'ABCDE'[k] + '.' if letters else f'Option {k}:'} {o}"
                      for k, o in enumerate(item["answer"]["options"]))


def _question(item: dict) -> str:
    return item["provenance"].get("question") or item["query"]


def _seeded(item: dict, spec: Mapping[str, Any], fctx: FilterContext, prompt: str,
            letters: bool, parse: Callable[[str], int], **slots: str) -> Verdict:
    """A text-only model's pick in each of ``seeds`` samples (``slots``: what else its
    prompt shows, e.g. a transcript); dropped when right often enough."""
    from xlebench.llm.client import Usage
    from xlebench.llm.prompts import load_prompt
    from xlebench.llm.structured import ask_text

    if prompt != NO_Q_PROMPT:  # No-Q's prompt has no question to show
        slots["question"] = ("(not shown: answer from the options alone)"
                             if spec.get("no_question") else _question(item))
    messages = load_prompt(prompt).render(options=_option_lines(item, letters), **slots)
    picks = [ask_text(fctx.llm, messages, parse, max_retries=fctx.llm.settings.max_retries,
                      usage=Usage(), sample=seed, what=f"{spec['kind']} filter")
             for seed in range(int(spec["seeds"]))]
    right = sum(p == item["answer"]["label"] for p in picks)
    return right < int(spec["drop_if_correct_at_least"]), {
        "picked": picks, "correct": right, "seeds": int(spec["seeds"]), "prompt": prompt}


BLIND_PROMPT = "tasks/blind_mcq.v1"
NO_Q_PROMPT = "tasks/noq_mcq.v1"
QAD_PROMPT = "tasks/neptune_qad_rank.v1"
_RANK = re.compile(r"ANSWER\s*:\s*([A-E](?:\s*>\s*[A-E])*)", re.IGNORECASE)


def parse_rank(text: str) -> list[int]:
    """``ANSWER: B > A > C > E > D`` -> [1, 0, 2, 4, 3] (case-insensitive)."""
    m = _RANK.search(text)
    if not m:
        raise ValueError('expected one line "ANSWER: A > B > C > D > E"')
    order = ["ABCDE".index(c.upper()) for c in re.findall(r"[A-Ea-e]", m.group(1))]
    if len(set(order)) != len(order):
        raise ValueError("each letter may appear once in the ranking")
    return order


def _named_option(item: dict) -> Callable[[str], int]:
    """The parser of a reply naming one option (``Option k``, a letter or its text)."""
    from xlebench.eval.parse import parse_choice

    def parse(text: str) -> int:
        k = parse_choice(text, item["answer"]["options"])
        if k is None:
            raise ValueError('name exactly one option, as "Option k"')
        return k
    return parse


def _blind(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    _mcq_check(item, "blind", fctx)
    return _seeded(item, spec, fctx, BLIND_PROMPT, False, _named_option(item))


def _no_q(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    _mcq_check(item, "no_q", fctx)
    if fctx.narrations is None:
        raise ValueError("the no_q filter reads the item's narrations: run it in the "
                         "annotate stage")
    return _seeded(item, spec, fctx, NO_Q_PROMPT, False, _named_option(item),
                   narrations=fctx.narrations(item))


def _option_only(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    from xlebench.eval.scorers.option_rules import rule_picks

    if "options" not in item["answer"]:
        raise ValueError("the option_only filter needs multiple-choice items (answer.options)")
    label, picks = item["answer"]["label"], rule_picks(item)
    right = sorted(name for name, tied in picks.items() if label in tied and len(tied) <= 2)
    return len(right) < int(spec["drop_if_correct_at_least"]), {
        "right": right, "picks": {name: list(tied) for name, tied in sorted(picks.items())}}


def _qad_rank(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    _mcq_check(item, "qad_rank", fctx)
    return _seeded(item, spec, fctx, QAD_PROMPT, True, lambda t: parse_rank(t)[0])


def _raters(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    from xlebench.tasks.screening.rater_sheet import read_verdicts

    rated = read_verdicts(spec["verdicts"], spec.get("agreement", "majority")).get(
        item["item_id"])
    if rated is None:
        return True, {"rated": False}
    drop = {str(d).strip().lower() for d in spec["drop"]}
    hit = sorted(m.lower() for m in rated["marks"] if m.lower() in drop)
    return not hit, {"rated": True, **rated, "dropped_for": hit}


TRANSCRIPT_PROMPT = "tasks/transcript_mcq.v1"


#: What the transcript filter reads: the whole clip's speech, or the evidence spans' only.
TRANSCRIPT_SCOPES = ("clip", "evidence")


def transcript_lines(item: dict, transcripts: Mapping[str, list], scope: str = "clip") -> str:
    """The speech of the item's source videos (``clip``: every line, each video once, in the
    order the evidence names them) or of its evidence spans (``evidence``), one
    ``[start-end] text`` line each."""
    if scope == "clip":
        videos = list(dict.fromkeys(e["video_uid"] for e in item["evidence"]))
        said = [t for v in videos for t in transcripts.get(v, [])]
    else:
        said = [t for e in item["evidence"] for t in transcripts.get(e["video_uid"], [])
                if float(t["end_s"]) > e["source_start_s"]
                and float(t["start_s"]) < e["source_end_s"]]
    lines = [f"[{float(t['start_s']):.0f}-{float(t['end_s']):.0f}] {t['text']}" for t in said]
    return "\n".join(lines) or "(no speech)"


def _transcript_only(item: dict, spec: Mapping[str, Any], fctx: FilterContext) -> Verdict:
    _mcq_check(item, "transcript_only", fctx)
    from xlebench.tasks.screening.transcripts import load_transcripts

    speech = transcript_lines(item, load_transcripts(spec["transcripts"]),
                              str(spec.get("scope", "clip")))
    passed, verdict = _seeded(item, spec, fctx, TRANSCRIPT_PROMPT, False, _named_option(item),
                              transcript=speech)
    return passed, {**verdict, "speech_lines": speech.count("\n") + 1}


FILTERS: dict[str, tuple[Callable[[dict, Mapping, FilterContext], Verdict], tuple[str, ...]]] = {
    "certificate": (_certificate, ("min_s",)),
    "length_balance": (_length_balance, ("max_ratio",)),
    "blind": (_blind, ("seeds", "drop_if_correct_at_least")),
    "no_q": (_no_q, ("seeds", "drop_if_correct_at_least")),
    "qad_rank": (_qad_rank, ("seeds", "drop_if_correct_at_least")),
    "option_only": (_option_only, ("drop_if_correct_at_least",)),
    "raters": (_raters, ("verdicts", "drop")),
    "talking_head": (talking_head, ()),
    "static_video": (static_video, ()),
    "panel": (lambda item, spec, fctx: (True, {}), ("seeds", "drop_if_correct_at_least")),
    "aflite": (lambda item, spec, fctx: (True, {}), ("partitions", "threshold", "rounds")),
    "transcript_only": (_transcript_only, ("seeds", "drop_if_correct_at_least",
                                           "transcripts")),
}
#: Filters that ask a model (refused under llm=offline at compose time).
MODEL_FILTERS = ("blind", "no_q", "qad_rank", "transcript_only")
#: Filters over every life log's items at once (`AnnotateStage.finish`), not per unit.
SET_FILTERS = ("panel", "aflite")
#: Filters that read a blind reader's pick of an option. On multiple-choice items, with
#: ``balance: true`` (the default), they drop nothing per unit: each records its reader's
#: picks, and the annotate stage drops, over the whole benchmark, only the excess of right
#: (or wrong) picks over chance (`xlebench.tasks.screening.set_filters.balance_item_filters`).
#: Dropping every item the reader answers (``balance: false``, the papers' rule) leaves it
#: wrong on what is kept, and "not its pick" then answers the benchmark (issue 77).
READER_FILTERS = ("option_only", "blind", "no_q", "qad_rank", "transcript_only")


def balances(spec: Mapping[str, Any], item: dict) -> bool:
    """Whether ``spec`` is decided over the whole benchmark for ``item`` (`READER_FILTERS`)."""
    return (spec["kind"] in READER_FILTERS and bool(spec.get("balance", True))
            and "options" in item["answer"])


def check_filters(name: str, specs: Sequence[Mapping[str, Any]]) -> None:
    """Unknown kinds and missing parameters are configuration errors, before any work."""
    for i, spec in enumerate(specs):
        kind = spec.get("kind") if isinstance(spec, Mapping) else None
        if kind not in FILTERS:
            raise ConfigError(f"tasks.{name}.filters[{i}]: kind {kind!r} is not a filter; "
                              f"choose from {sorted(FILTERS)}")
        missing = [k for k in FILTERS[kind][1] if k not in spec]
        if missing:
            raise ConfigError(f"tasks.{name}.filters[{i}] ({kind}): give {missing}")
        for key in (k for k in FILTERS[kind][1] if k in RANGES):
            _check_number(f"tasks.{name}.filters[{i}].{key}", spec[key], *RANGES[key])
        if kind == "transcript_only" and spec.get("scope", "clip") not in TRANSCRIPT_SCOPES:
            raise ConfigError(f"tasks.{name}.filters[{i}].scope: {spec['scope']!r}; choose "
                              f"from {list(TRANSCRIPT_SCOPES)}")
        if kind == "raters":
            from xlebench.tasks.screening.rater_sheet import AGREEMENT, read_ratings

            read_ratings(spec["verdicts"])  # a missing or malformed sheet stops the run here
            _check_drop(name, i, spec["drop"])
            if spec.get("agreement", "majority") not in AGREEMENT:
                raise ConfigError(f"tasks.{name}.filters[{i}].agreement: "
                                  f"{spec['agreement']!r}; choose from {list(AGREEMENT)}")


def _check_drop(name: str, i: int, drop: Any) -> None:
    from xlebench.tasks.screening.rater_sheet import DUPLICATE, NEEDS, VERDICTS

    allowed = {v.lower() for v in (*VERDICTS, *NEEDS, DUPLICATE)}
    unknown = [d for d in (drop or []) if str(d).strip().lower() not in allowed]
    if unknown:
        raise ConfigError(f"tasks.{name}.filters[{i}].drop: {unknown} are not verdicts, needs "
                          f"or 'duplicate'; choose from {sorted(allowed)}")


#: Allowed values of the filters' parameters: (low, high, integer).
RANGES: dict[str, tuple[float, float, bool]] = {
    "min_s": (0.0, 86_400.0 * 14, False), "max_ratio": (1.0, 100.0, False),
    "seeds": (1, 20, True), "drop_if_correct_at_least": (1, 20, True),
    "partitions": (1, 64, True), "threshold": (0.0, 1.0, False), "rounds": (1, 10, True),
}


def _check_number(where: str, value: Any, low: float, high: float, integer: bool) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and \
        (not integer or float(value).is_integer()) and low <= value <= high
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ConfigError(f"{where}={value!r}: expected {kind} from {low:g} to {high:g}")


def apply_filters(items: list[dict], specs: Sequence[Mapping[str, Any]],
                  fctx: FilterContext) -> tuple[list[dict], Counter]:
    """Items every filter keeps (in order), and per-filter drop counts."""
    dropped: Counter = Counter()
    kept = []
    for item in items:
        ok = True
        for spec in (s for s in specs if s["kind"] not in SET_FILTERS):
            passed, verdict = FILTERS[spec["kind"]][0](item, spec, fctx)
            if balances(spec, item):  # decided over the whole benchmark (set_filters)
                passed, verdict = True, {**verdict, "balanced": True}
            item["provenance"].setdefault("filters", {})[spec["kind"]] = {
                **verdict, "kept": passed}
            if not passed:
                dropped[f"dropped by the {spec['kind']} filter"] += 1
                ok = False
                break
        if ok:
            kept.append(item)
    return kept, dropped
