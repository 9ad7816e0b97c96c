"""EgoSchema-style five-way multiple choice from life logs (RECIPES.md R2).

``generator=llm``: narration-dense windows (at least ``min_narrations`` narrations of one pass in
``window_s`` seconds, non-overlapping) serialized as the paper does (``<t> - <narration>`` per
line, ``t`` whole seconds from the window start, block ended by ``=====``), then Q(AW)-shot
chaining: one call writes ``n_questions`` questions, a second — its prompt drawn per window from
the ``answers`` pool — the correct and ``n_wrong`` wrong answers for each (``one_shot``: one
call for both). Questions with a banned start ("When", "How many"...) and triplets that leak a
keyword ("narration", "timestamp"...) are discarded and counted.

``generator=offline_windows`` (the default; no model): questions about one window of at most
``window_s`` seconds holding ``min_narrations`` C acts — the order of its three phases, or what
C does between two of them — with wrong answers from the same record, so the options' words
do not tell the right one apart and the certificate spans minutes
(`xlebench.tasks.egoschema.egoschema_offline`).

``generator=offline_summaries`` (no model): "Which of the following best describes what C does
...", the record's library summary as the right option; the wrong ones are summaries of the
videos *other life logs* recorded at the nearest clock times — the same process that picked
the right one, so a video reused across days is no more often right than wrong — chosen as
neighbours of a hidden anchor (`xlebench.tasks.choices.mcq.anchored_decoys`: confusable, yet the right
one is not the hub of its options), paraphrases of the answer excluded (cosine or content-word
overlap). Measured on the demo before this: the most similar library summaries made the right
answer the centroid of its options, and other logs' answers told a text-only learner which
summaries are usually right (44%).

Options are shuffled by the unit's generator; filters (``blind``, ``length_balance``,
``certificate``) are listed in the recipe's config.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.config.knobs import knob
from xlebench.eval.scorers import ChoiceAccuracy
from xlebench.library.annotations import clean_narration
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_text
from xlebench.tasks.choices.mcq import (
    FORMAT,
    NearDuplicate,
    mcq_answer,
    mcq_query,
    option_reply,
    parse_answers,
    parse_questions,
    serialize,
    shuffled,
)
from xlebench.tasks.choices.other_logs import nearest_summaries, pick_decoys
from xlebench.tasks.egoschema import egoschema_offline as O
from xlebench.tasks.language import events as N
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import (
    evidence,
    record_period,
    sample,
    segment_of,
    summary_of,
    whole,
)
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import BLIND_PROMPT, NO_Q_PROMPT, PeriodParams

PROMPTS = ("tasks/egoschema_q.v1", "tasks/egoschema_aw.v3", "tasks/egoschema_aw.v4",
           "tasks/egoschema_qaw.v2", "tasks/egoschema_a.v1", "tasks/egoschema_w.v1",
           BLIND_PROMPT, NO_Q_PROMPT)


@dataclass
class EgoSchemaPrompts:
    question: str = "tasks/egoschema_q.v1"
    #: aw.v3/v4 (and qaw.v2) ask for each correct answer's evidence seconds: certificates.
    answers: list[str] = field(default_factory=lambda: ["tasks/egoschema_aw.v3",
                                                         "tasks/egoschema_aw.v4"])
    one_shot: str = "tasks/egoschema_qaw.v2"
    #: qaw_shot: the correct answers (call 2) and the wrong ones given them (call 3).
    correct: str = "tasks/egoschema_a.v1"
    wrong: str = "tasks/egoschema_w.v1"


@dataclass
class EgoSchemaParams(PeriodParams):
    #: offline_windows (default, no model): questions about a window whose answers need
    #: several of its moments, wrong answers from the same record (`egoschema_offline`);
    #: llm: EgoSchema's pipeline; offline_summaries: the record's summary among others'.
    generator: str = knob("offline_windows",
                          choices=("offline_windows", "llm", "offline_summaries"))
    #: offline_windows: the kinds asked, and how often a window part's act repeats there.
    kinds: list[str] = knob(factory=lambda: list(O.KINDS), choices=O.KINDS, each=True, nonempty=True)
    min_repeats: int = knob(2, ge=1, le=100)
    #: EgoSchema's four chainings: one_shot (Q, A and W in one call), n_shot (one call per
    #: question), qaw_shot (Q, then A, then W: three calls), q_aw (Q, then A and W: the
    #: paper's choice).
    chaining: str = knob("q_aw", choices=("q_aw", "one_shot", "n_shot", "qaw_shot"))
    window_s: int = knob(180, ge=10, le=3600)
    #: offline_windows: a window without three clear phases slides this far (non-overlapping
    #: still: a window taken ends where the next one starts).
    window_step_s: int = knob(10, ge=1, le=3600)
    #: llm: narrations of one pass per window; offline_windows: C acts of one pass.
    min_narrations: int = knob(30, ge=1, le=10_000)
    non_overlapping: bool = True
    n_questions: int = knob(3, ge=1, le=10)
    n_wrong: int = knob(4, ge=1, le=9)
    prompts: EgoSchemaPrompts = field(default_factory=EgoSchemaPrompts)
    banned_question_starts: list[str] = field(
        default_factory=lambda: ["When", "How many", "How much"])
    leak_keywords: list[str] = field(
        default_factory=lambda: ["long-term", "narration", "narrations", "timestamp"])
    #: offline_summaries: a candidate this close to the answer (cosine, or content-word
    #: Jaccard) is a paraphrase of it and never a wrong option.
    near_duplicate_cos: float = knob(0.9, gt=0, le=1)
    near_duplicate_words: float = knob(0.6, gt=0, le=1)
    #: offline_summaries: segments of other logs considered per item, the nearest in clock
    #: time first; ``selection``: drawn uniformly from them (``sampled``: a text is wrong as
    #: often as it is right elsewhere) or as neighbours of a hidden anchor (``anchored``:
    #: more confusable, but a text's popularity leaks; see `xlebench.tasks.choices.mcq`).
    pool: int = knob(40, ge=4, le=10_000)
    selection: str = knob("sampled", choices=("sampled", "anchored"))
    max_items_per_log: int | None = knob(6, ge=1)


def dense_windows(passes: list, duration_s: float, p: EgoSchemaParams) -> list[tuple]:
    """(start, narrations) of windows holding at least ``min_narrations`` narrations of the
    first pass (one pass: both describe the same events)."""
    if not passes:
        return []
    narr = passes[0]
    step = p.window_s if p.non_overlapping else max(1, p.window_s // 2)
    out = []
    start = 0.0
    while start + p.window_s <= duration_s + 1e-9:
        inside = [n for n in narr if start <= n.t < start + p.window_s]
        if len(inside) >= p.min_narrations:
            out.append((start, inside))
        start += step
    return out


def _keep(question: str, answers: list[str], p: EgoSchemaParams, out: Built) -> bool:
    if any(question.lower().startswith(b.lower()) for b in p.banned_question_starts):
        out.stats["questions with a banned start"] += 1
        return False
    text = " ".join([question, *answers]).lower()
    if any(k.lower() in text for k in p.leak_keywords):
        out.stats["triplets leaking a keyword"] += 1
        return False
    return True


def _asks_evidence(prompt: str) -> bool:
    """Whether a prompt asks for each correct answer's evidence seconds (aw.v3, aw.v4,
    qaw.v2 do): then its answers must carry them, and certificates are measured from them."""
    return "Evidence:" in load_prompt(prompt).user


def _one_shot(ctx: Context, p: EgoSchemaParams, block: str, n: int, sample: int, kw: dict
              ) -> list[tuple]:
    window = p.window_s if _asks_evidence(p.prompts.one_shot) else None
    messages = load_prompt(p.prompts.one_shot).render(
        narrations=block, n_questions=str(n), n_wrong=str(p.n_wrong))
    qs, answers = ask_text(ctx.llm, messages, lambda t: (
        parse_questions(t, n),
        parse_answers(t, min(n, len(parse_questions(t, n))), p.n_wrong, window)),
        what="egoschema_mcq one-shot", sample=sample, **kw)
    return [(q, *ans) for q, ans in zip(qs, answers, strict=False)]


def _n_shot(ctx: Context, p: EgoSchemaParams, block: str, kw: dict) -> list[tuple]:
    """One question per call, each call its own sample; questions repeated across calls (the
    paper's finding: independent calls write similar questions) are kept once."""
    found: dict[str, tuple] = {}
    for k in range(p.n_questions):
        for q, *rest in _one_shot(ctx, p, block, 1, k, kw)[:1]:
            found.setdefault(q.strip().lower(), (q, *rest))
    return list(found.values())


def _qaw_shot(ctx: Context, p: EgoSchemaParams, block: str, qs: list[str], kw: dict
              ) -> list[tuple]:
    """Call 2: the correct answers (and their evidence); call 3: the wrong answers given the
    questions and their correct answers."""
    window = p.window_s if _asks_evidence(p.prompts.correct) else None
    listing = "\n".join(f"Question {k + 1}: {q}" for k, q in enumerate(qs))
    a_messages = load_prompt(p.prompts.correct).render(narrations=block, questions=listing)
    correct = ask_text(ctx.llm, a_messages, lambda t: parse_answers(t, len(qs), 0, window),
                       what="egoschema_mcq correct answers", **kw)
    given = "\n".join(f"Question {k + 1}: {q}\nCorrect answer: {a}"
                      for k, (q, (a, _, _)) in enumerate(zip(qs, correct, strict=True)))
    w_messages = load_prompt(p.prompts.wrong).render(narrations=block, questions=given,
                                                     n_wrong=str(p.n_wrong))
    wrong = ask_text(ctx.llm, w_messages, lambda t: parse_answers(t, len(qs), p.n_wrong),
                     what="egoschema_mcq wrong answers", **kw)
    return [(q, a, w, spans) for q, (a, _, spans), (_, w, _) in zip(qs, correct, wrong,
                                                                   strict=True)]


def _generate(ctx: Context, p: EgoSchemaParams, block: str, usage: Usage
              ) -> tuple[list[tuple[str, str, list[str], list]], dict]:
    """(question, correct, wrong, evidence seconds) per question and the prompt ids used."""
    kw = dict(max_retries=ctx.llm.settings.max_retries, usage=usage)
    if p.chaining == "one_shot":
        return _one_shot(ctx, p, block, p.n_questions, 0, kw), {"one_shot": p.prompts.one_shot}
    if p.chaining == "n_shot":
        return _n_shot(ctx, p, block, kw), {"n_shot": p.prompts.one_shot}
    q_messages = load_prompt(p.prompts.question).render(narrations=block,
                                                        n_questions=str(p.n_questions))
    qs = ask_text(ctx.llm, q_messages, lambda t: parse_questions(t, p.n_questions),
                  what="egoschema_mcq questions", **kw)
    if p.chaining == "qaw_shot":
        return _qaw_shot(ctx, p, block, qs, kw), {"question": p.prompts.question,
                                                  "correct": p.prompts.correct,
                                                  "wrong": p.prompts.wrong}
    aw_prompt = ctx.rng.choice(list(p.prompts.answers))
    window = p.window_s if _asks_evidence(aw_prompt) else None
    listing = "\n".join(f"Question {k + 1}: {q}" for k, q in enumerate(qs))
    a_messages = load_prompt(aw_prompt).render(narrations=block, questions=listing,
                                               n_wrong=str(p.n_wrong))
    answers = ask_text(ctx.llm, a_messages,
                       lambda t: parse_answers(t, len(qs), p.n_wrong, window),
                       what="egoschema_mcq answers", **kw)
    return [(q, *ans) for q, ans in zip(qs, answers, strict=True)], {
        "question": p.prompts.question, "answers": aw_prompt}


def _from_llm(ctx: Context, p: EgoSchemaParams, out: Built) -> list[tuple]:
    if ctx.llm is None:
        raise ValueError("tasks.egoschema_mcq.generator=llm needs llm=litellm (or llm=replay)")
    usage, found = Usage(), []
    for seg in ctx.log["segments"]:
        dur = float(seg["source_end_s"]) - float(seg.get("source_start_s", 0.0))
        windows = dense_windows(ctx.ann.narrations.get(seg["video_uid"], []), dur, p)
        if not windows:
            out.stats["segments without a narration-dense window"] += 1
        for start, narr in windows:
            generated, prompt_ids = _generate(ctx, p, serialize(narr, start), usage)
            for q, a, w, spans in generated:
                if _keep(q, [a, *w], p, out):
                    found.append((seg, (start, start + p.window_s), q, a, w,
                                  [(start + x, start + y) for x, y in spans],
                                  {"generator": "llm", "chaining": p.chaining,
                                   "model": ctx.llm.settings.model, "prompt_ids": prompt_ids,
                                   "narrations": len(narr)}))
    return found


def _candidates(ctx: Context, seg: dict, p: EgoSchemaParams) -> list[str]:
    return nearest_summaries(ctx, seg, p.pool)


def _from_summaries(ctx: Context, p: EgoSchemaParams, out: Built) -> list[tuple]:
    same = NearDuplicate(p.near_duplicate_cos, p.near_duplicate_words)
    found = []
    for seg in ctx.log["segments"]:
        video = ctx.videos.get(seg["video_uid"])
        if video is None or not video.summary.strip():
            out.stats["segments without a library summary"] += 1
            continue
        wrong, info = pick_decoys(video.summary, _candidates(ctx, seg, p), p.n_wrong,
                                  p.selection, ctx, same)
        if len(wrong) < p.n_wrong:
            out.stats["segments without enough distinct distractors"] += 1
            continue
        q = "Which of the following best describes what C does"  # its period: `build`
        found.append((seg, None, q, video.summary, wrong, [],
                      {"generator": "offline_summaries", "selection": p.selection,
                       "distractors": info}))
    return found


def _rules(p: EgoSchemaParams) -> O.WindowRules:
    return O.WindowRules(p.window_s, p.min_narrations, p.min_repeats, p.window_step_s)


def _video_acts(ctx: Context, seg: dict) -> list[N.Event]:
    return O.video_acts(ctx.ann.narrations.get(seg["video_uid"]) or [])


def _from_windows(ctx: Context, p: EgoSchemaParams, out: Built) -> list[tuple]:
    rules, found = _rules(p), []
    for seg in ctx.log["segments"]:
        video = _video_acts(ctx, seg)
        wins, evs = O.clear_windows(video, seg, rules), O.in_segment(video, seg)
        if not wins:
            out.stats["segments without an act-dense window with three clear phases"] += 1
        for window in wins:
            made = _one_kind(ctx, p, evs, window, out)
            if made:
                kind, q, answer, wrong = made
                found.append((seg, window, q, answer["text"], wrong, answer["spans"],
                              {"generator": "offline_windows", "kind": kind}))
    return found


def _one_kind(ctx: Context, p: EgoSchemaParams, evs: list[N.Event], window: tuple,
              out: Built) -> tuple | None:
    """One question per window, of a kind drawn at random (the next if it has too few wrong
    answers): two questions about one window would answer each other ("after drilling and
    before laying the tile" gives the order of the three)."""
    rules = _rules(p)
    ph = O.phases(evs, *window, rules)
    if ph is None:
        out.stats["windows without three clear phases"] += 1
        return None
    for kind in ctx.rng.sample(list(p.kinds), len(p.kinds)):
        answer = O.solve(kind, evs, window, rules)
        wrong = O.decoys(kind, answer, evs, window, p.n_wrong, ctx.rng)
        if len(wrong) >= p.n_wrong:
            return kind, O.question(kind, ph), answer, wrong
    out.stats["windows with too few wrong answers from the record"] += 1
    return None


GENERATORS = {"offline_windows": _from_windows, "llm": _from_llm,
              "offline_summaries": _from_summaries}


def build(ctx: Context, p: EgoSchemaParams) -> Built:
    """Items whose query names the period their evidence covers: the record (offline), or the
    window the questions were written from (llm), whose answer spans are the generator's
    evidence seconds (so the certificate measures what the question needs)."""
    out = Built()
    found = GENERATORS[p.generator](ctx, p, out)
    for k, (seg, window, q, a, w, spans, prov) in enumerate(sample(ctx.rng, found,
                                                                    p.max_items_per_log)):
        if window:
            period = (to_day(seg, window[0]), to_day(seg, window[1]))
            prov = {**prov, "window_s": list(window)}
        else:
            period = record_period(ctx.log, [seg], p.period, ctx.rng)
        q = W.retrieval_query(q, *period)
        options, label = shuffled(a, w, ctx.rng)
        extra = {"source": _window_source(seg, window)} \
            if prov["generator"] == "offline_windows" else {}
        ev = [evidence(seg, x, y) for x, y in spans] or [
            evidence(seg, *window) if window else whole(seg)]
        out.items.append(ctx.item(
            k=k, query=mcq_query(q, options), period=period, text=options[label],
            spans=[(to_day(seg, x), to_day(seg, y)) for x, y in spans],
            answer={k2: v for k2, v in mcq_answer(options, label).items() if k2 != "text"},
            evidence=ev,
            provenance={"question": q, "source_file": "library.parquet"
                        if p.generator == "offline_summaries" else ctx.ann.narration_file,
                        "annotation_ids": [seg["video_uid"]], **prov}, extra=extra))
    return out


def _window_source(seg: dict, window: tuple[float, float]) -> dict:
    """A window of a video is one source whatever is asked of it (``whole``): two questions
    about it answer each other, in one life log or across two that reuse the video."""
    return {"videos": [seg["video_uid"]],
            "annotations": [f"{seg['video_uid']}@{window[0]:.0f}-{window[1]:.0f}"],
            "whole": True}


def oracle(ctx: Context, p: EgoSchemaParams, item: dict) -> str:
    """offline_windows: the option the window's narrations give, re-derived
    (`egoschema_offline.solve`). offline_summaries: the option that is the record's library
    summary. llm: the option
    whose content words the window's narrations hold most (the generator's source)."""
    from xlebench.eval.scorers.choice import words

    seg = segment_of(ctx.log, item)
    options, prov = item["answer"]["options"], item["provenance"]
    if prov.get("generator") == "offline_windows":
        evs = O.in_segment(_video_acts(ctx, seg), seg)
        answer = O.solve(prov["kind"], evs, tuple(prov["window_s"]), _rules(p))
        return option_reply(options, answer["text"] if answer else "")
    if prov.get("generator") != "llm":
        return option_reply(options, summary_of(ctx.videos, seg))
    a, b = item["provenance"]["window_s"]
    passes = ctx.ann.narrations.get(seg["video_uid"]) or [[]]
    seen = words(" ".join(clean_narration(n.text) for n in passes[0] if a <= n.t < b))
    share = [len(words(o) & seen) / max(1, len(words(o))) for o in options]
    return f"Option {max(range(len(options)), key=lambda k: (share[k], -k))}"


RECIPE = Recipe(
    name="egoschema_mcq", task="multiple_choice", schema=EgoSchemaParams, build=build,
    scorer=ChoiceAccuracy(), primary="acc", answer_format=FORMAT,
    answer_source="Ego4D narrations (LLM-written, EgoSchema Q(AW)-shot) or library summaries",
    prompts=PROMPTS, group="multiple choice", oracle=oracle, answers="descriptions",
    shows=("descriptions",),
    description="Five-way multiple choice about a narration-dense window (EgoSchema).")
