"""The evaluation group's schema (``eval``): which systems answer, how replies are scored
(bootstrap, floors, judges), and on which logs and split — checked at compose time
(`xlebench.config.schema`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.config.knobs import knob


@dataclass
class JudgingConfig:
    """How the judges of ``eval.judges`` judge (``eval.judging``); the model that judges is the
    ``judge`` group."""

    #: Replies are cut to this many words before judging (Neptune: 100).
    truncate_words: int = knob(100, ge=1, le=10_000)
    #: null = every free-text subtask; ordering subtasks are refused (judges accept wrong
    #: orders).
    subtasks: list[str] | None = None
    #: A judge's scores are printed only when its F1 on the labelled dev set
    #: (xlebench/data/judge_dev.v2.jsonl) reaches this; 0 prints them whatever it reaches.
    min_dev_f1: float = knob(0.7, ge=0, le=1)
    #: gem: read the verdict as P(TRUE), from the log-probabilities of its verdict token (the
    #: judge's backend must return them: OpenAI's top_logprobs), equivalent at or above the
    #: threshold fitted for F1 on the dev set; false: its text TRUE / FALSE.
    p_true: bool = False


@dataclass
class EvalConfig:
    #: Built-in systems: oracle_text_retrieval (offline), socratic, retrieve_socratic (an llm).
    systems: list[str] = field(default_factory=lambda: ["oracle_text_retrieval"])
    #: A predictions file (JSONL of {"item_id", "response"[, "model"]}) scored as system
    #: predictions-<name>: eval.name, else the model its lines declare, else the file's stem
    #: (a stem whose folder holds another file's scores gets its own, with a digest).
    predictions: str | None = None
    #: The predictions' name (their results folder predictions-<name>); a name holding another
    #: file's scores is refused unless eval.replace=true.
    name: str | None = None
    replace: bool = False
    #: Score a predictions file that leaves items out (they score 0); refused otherwise.
    allow_partial: bool = False
    #: A filled human-evaluation sheet (export.formats=[human_eval]: MultiHop-EgoQA's 10% of
    #: the test split): its answers are scored as the benchmark's human row in every table.
    human_sheet: str | None = None
    #: Speech transcripts (JSON {video_uid: [{start_s, end_s, text}]}) for the systems that
    #: read them: end_to_end_neptune asks Neptune's "with transcript" prompts.
    transcripts: str | None = None
    #: Recall@K ranks (the official NLQ evaluator prints 1, 3, 5; the paper reports 1 and 5).
    ks: list[int] = knob(factory=lambda: [1, 3, 5], ge=1, le=100, each=True, nonempty=True)
    tious: list[float] = knob(factory=lambda: [0.3, 0.5], ge=0, lt=1, each=True, nonempty=True)
    bertscore: bool = True
    #: null = the bundled all-MiniLM-L6-v2; or a local model folder (e.g. roberta-large).
    bertscore_model: str | None = None
    bertscore_layer: int | None = knob(None, ge=1)
    #: Which LLM judges score free-text answers, answered by the ``judge`` group's model: gem
    #: (Neptune's TRUE/FALSE equivalence), score10 (MultiHop-EgoQA's 1-10 grade). Cached like
    #: every LLM call; how they judge is ``eval.judging``.
    judges: list[str] = knob(factory=list, choices=("gem", "score10"), each=True)
    judging: JudgingConfig = field(default_factory=JudgingConfig)
    bootstrap: int = knob(1000, ge=0, le=100_000)
    #: The printed results table: ``validity`` (each subtask's headline, e.g. content-word
    #: ROUGE-L for summaries, which a template cannot score) or ``paper`` (each paper's own
    #: metrics as its results table prints them: X-LeBench's Table 5 shows ROUGE-L and
    #: BERTScore per length). Both are in table.json either way.
    layout: str = knob("validity", choices=("validity", "paper"))
    record_s: float = knob(30.0, gt=0, le=3600)
    #: Captions for socratic / retrieve_socratic: the Ego4D narrations (an oracle) or the
    #: configured vlm describing 30-s source segments (render.frames.segment_fps, 560x420).
    captioner: str = knob("oracle_narrations", choices=("oracle_narrations", "vlm"))
    #: eval.captioner=vlm: its prompt. eval/caption.v1 asks for the caption directly;
    #: eval/caption_attributes.v1 asks Neptune's attribute questions first (its appendix
    #: C.2.1) and keeps the last line's single sentence as the caption.
    caption_prompt: str = knob("eval/caption.v1",
                               choices=("eval/caption.v1", "eval/caption_attributes.v1"))
    #: Frames per life log for end_to_end (paper: 1200, temperature 0.1).
    e2e_frames: int = knob(1200, ge=1, le=100_000)
    #: Neptune's accuracy-vs-frames curve: each system that sees frames (end_to_end, the
    #: likelihood systems, oracle_certificate_frames, centred_clip) answers once per count listed, results
    #: under <system>@<model>@frames=<n>; the leaderboard and report plot the curve and give
    #: Neptune's effort score per subtask. Empty: eval.e2e_frames only.
    frames_sweep: list[int] = knob(factory=list, ge=1, le=100_000, each=True)
    #: centred_clip (Neptune's growing clip): frames a second of its clip, so N frames cover
    #: N / clip_fps seconds centred on the question's period; the sweep grows the clip.
    clip_fps: float = knob(1.0, gt=0, le=30)
    #: centred_clip: or each swept count's clip length in seconds, in the sweep's order (one
    #: per frames_sweep count), so the clip grows in length and frame rate together, as
    #: Neptune's probe does; empty: N / clip_fps.
    clip_seconds: list[float] = knob(factory=list, gt=0, le=86_400, each=True)
    #: centred_clip: samples asked per clip; a reply stands when all agree (Neptune: 3).
    clip_seeds: int = knob(1, ge=1, le=10)
    #: Evaluate only the first N life logs (by id), or the listed ones: tables say which.
    max_logs: int | None = knob(None, ge=1)
    lifelogs: list[str] = field(default_factory=list)
    #: Score the dev or test split of a benchmark compiled with annotate.heldout (results
    #: under <system>@split=<split>), or all of it.
    split: str = knob("all", choices=("all", "dev", "test"))
    #: Random draws averaged per item for the chance floors (seeded: reproducible).
    floor_draws: int = knob(32, ge=1, le=10_000)
    #: Replies that say the records hold no answer, and replies that decline (regexes over the
    #: lower-cased reply). Both score 0 in the headline; the paper protocol leaves them out.
    no_information_patterns: list[str] = field(default_factory=lambda: [
        r"there is no information",
        r"no (?:relevant )?information (?:is )?(?:available|provided)",
        r"\bnot (?:mentioned|provided|available|shown|visible) in the (?:records?|context|video)",
        r"\bi (?:do not|don't) (?:have|know)\b",
    ])
    refusal_patterns: list[str] = field(default_factory=lambda: [
        r"(?:cannot|can't|can not|unable to) (?:determine|find|answer|identify|provide|help)",
        r"^\s*(?:i'?m sorry|sorry|as an ai)",
    ])
