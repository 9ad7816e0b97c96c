"""Multi-hop grounded QA (MultiHop-EgoQA): evidence spans by IoU / IoP / IoG as the paper's
evaluator computes them and over merged unions (the corrected measure, the headline), the
answer text by ROUGE-L and Sent.Sim; and its blind panel."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval.metrics import corpus_text, grounding_scores, rouge_l, rouge_l_content
from xlebench.eval.metrics.cider import cider_d, whitespace
from xlebench.eval.metrics.corpus import CorpusMetric
from xlebench.eval.panel.public import chunk_text
from xlebench.eval.parse import clock_spans, grounded_reply, paper_parts, parse_spans
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings
from xlebench.eval.scorers.spans import (
    answer_widths,
    fit_positions,
    plan_windows,
    prior_windows,
    random_windows,
)
from xlebench.eval.scorers.text import (
    GENERIC_SUMMARY,
    constant_answer,
    fit_constants,
    similarity,
    strip_tokens,
)

_SPAN_TEXT = re.compile(r"\[[^\]]*\]")


_SECONDS = re.compile(r"\[\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\]")


def split_evidence(reply: str, clip_start_s: float | None = None
                   ) -> tuple[str, list[tuple[float, float]]]:
    """(answer text, spans) of a grounded reply: the answer, then a line ``Evidence:``
    followed by clock spans (without the marker every span is evidence); or the paper's
    ``###Answer`` / ``###Evidence`` sections, whose ``[[9, 15], [120, 135]]`` are seconds
    from the start of the clip asked about (``clip_start_s``: the item's period start)."""
    parts = paper_parts(reply)
    if parts is not None:
        evidence = parts.get("evidence", "")
        spans = parse_spans(evidence)
        if not spans and clip_start_s is not None:
            spans = [(clip_start_s + float(a), clip_start_s + float(b))
                     for a, b in _SECONDS.findall(evidence) if float(a) <= float(b)]
        return strip_tokens(parts["answer"]), spans
    head, marker, tail = reply.rpartition("Evidence:")
    if not marker:
        return strip_tokens(_SPAN_TEXT.sub(" ", reply)), parse_spans(reply)
    return strip_tokens(head), parse_spans(tail)


def _text_scores(text: str, ref: str) -> dict[str, float]:
    """The answer text against the reference, per item: ROUGE-L (rouge-score's, stemmed) and
    ROUGE-L over content words (a template's skeleton of function words scores nothing).
    The paper's BLEU-4, METEOR and ROUGE-L are corpus scores (`GroundedAnswer.corpus`)."""
    return {"rougeL": rouge_l(text, ref), "rougeL_content": rouge_l_content(text, ref)}


def _fit(train: Sequence[dict]) -> dict:
    """Other logs' answers: where their spans sit, how many they have, their constant text."""
    counts = [len(it["answer"]["spans"]) for it in train] or [1]
    texts = [it for it in train if not it["answer"].get("time_only")]
    return {"positions": fit_positions(train), "k": max(1, int(np.median(counts))),
            "widths": answer_widths(train),
            "text": fit_constants(texts) if texts else {"*": GENERIC_SUMMARY}}


def _fit_plan(train: Sequence[dict], _public: Any) -> dict:
    return _fit(train)


def _by_plan(item: dict, model: dict, ctx: BlindContext) -> str:
    """Spans where the plan puts the asked activity (`plan_windows`), and the chunk's words."""
    spans = plan_windows(item, model["positions"], model["k"], ctx.public)
    c = ctx.public.chunk_like(item, item["query"], within=True) if ctx.public else None
    return grounded_reply(f"C {chunk_text(c)}" if c else GENERIC_SUMMARY, clock_spans(spans))


def _reply(item: dict, model: dict, text: str) -> str:
    spans = prior_windows(item, model["positions"], model["k"])
    return grounded_reply(text, clock_spans(spans))


class GroundedAnswer(Base):
    """Evidence spans scored by IoU / IoP / IoG and IoU@0.3, as the paper's evaluator computes
    them (``iou``...) and over the merged unions (``iou_merged``..., the headline); the answer
    text (tokens stripped) as ``evaluate_answering.py`` scores it — BLEU-4, METEOR 1.5 and
    ROUGE-L (``rougeL_coco``) of pycocoevalcap over the answered items, CIDEr
    (``cider_d_answer``) and Sent.Sim (100 x cosine of MiniLM vectors, stored as a share) —
    beside rouge-score's ROUGE-L and its content-word variant; except for time-only items,
    whose answer is the spans alone. Blind panel: random
    spans of other logs' widths and count with a generic text; spans where other logs' answers
    sit, with their best constant text or with the question echoed back."""

    kind = "grounded"
    GENERIC = "You did it several times."

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        """A reply without spans still answers in words where the question asks for them:
        its text is scored, its spans as the evaluator scores an empty ``T`` (left out of
        mIoU/mIoP/mIoG, a miss of IoU@0.3) and 0 in the merged measure."""
        text, spans = split_evidence(reply, item["period"]["start_s"])
        time_only = item["answer"].get("time_only")
        if not spans and (time_only or not text.strip()):
            return None
        out = (grounding_scores(spans, item["answer"]["spans"], item["period"]["start_s"])
               if spans else self._no_spans())
        if not time_only:
            out.update(_text_scores(text, split_evidence(item["answer"]["text"])[0]))
        return out

    @staticmethod
    def _no_spans() -> dict[str, float]:
        """The evaluator skips a prediction without spans in its means (``num_failed``) and
        counts it in IoU@0.3's denominator; the merged measure scores it 0."""
        return {"iou": float("nan"), "iop": float("nan"), "iog": float("nan"),
                "iou@0.3": 0.0, **dict.fromkeys(("iou_merged", "iop_merged", "iog_merged",
                                                 "iou_merged@0.3"), 0.0)}

    def details(self, item: dict, reply: str | None) -> dict:
        """The answer text and its reference (none for a time-only item): what the corpus
        BLEU-4, METEOR and ROUGE-L read. A reply that scored nothing answers ""."""
        if item["answer"].get("time_only"):
            return {}
        text = split_evidence(reply, item["period"]["start_s"])[0] if reply else ""
        return {"answer": [text, split_evidence(item["answer"]["text"])[0]]}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"bleu4": corpus_text.answer_bleu4, "meteor": corpus_text.answer_meteor,
                "rougeL_coco": corpus_text.answer_rouge}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        out = self._no_spans()
        if not item["answer"].get("time_only"):
            out.update(rougeL=0.0, rougeL_content=0.0, cider_d_answer=0.0,
                       **({"sent_sim": 0.0} if s.bertscore else {}))
        return out

    def _random(self, item: dict, model: dict, ctx: BlindContext) -> dict[str, float]:
        start = item["period"]["start_s"]
        scores = random_windows(item, model["widths"], model["k"], ctx,
                                lambda p, g: grounding_scores(p, g, start))
        if not item["answer"].get("time_only"):
            ref = split_evidence(item["answer"]["text"])[0]
            scores.update(_text_scores(self.GENERIC, ref))
            if ctx.settings.bertscore:
                scores["sent_sim"] = similarity([self.GENERIC], [ref])[0]
        return scores

    def blind(self) -> Sequence[Blind]:
        return (Blind("random_spans", "other logs' span widths and counts", self._random, _fit),
                Blind("position_prior", "other logs' span positions and best constant text",
                      lambda it, m, c: _reply(it, m, constant_answer(it, m["text"], c)), _fit),
                Blind("query_echo", "the question; other logs' span positions",
                      lambda it, m, c: _reply(it, m, it["query"]), _fit),
                Blind("plan_spans", "the question and the life log's plan (public): spans "
                      "inside the chunk most like the question, its words as the answer; other "
                      "logs' span widths and counts", _by_plan, _fit_plan, public=True))

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        _cider_answers(rows, items)

    def model_metrics(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
                      bertscorer: Any) -> None:
        """Sent.Sim of the ``ok`` rows' answer texts, each against its own reference."""
        todo = [(r, it) for r, it in zip(rows, items, strict=True)
                if r["status"] == "ok" and not it["answer"].get("time_only")]
        if not (s.bertscore and todo):
            return
        sims = similarity([split_evidence(r["response"])[0] for r, _ in todo],
                          [split_evidence(it["answer"]["text"])[0] for _, it in todo])
        for (r, _), v in zip(todo, sims, strict=True):
            r["scores"]["sent_sim"] = v


def _cider_answers(rows: list[dict], items: Sequence[dict]) -> None:
    """CIDEr-D of each answer text (MultiHop-EgoQA's table: pycocoevalcap's ``Cider`` on
    whitespace words, whose corpus score is the mean of these), document frequencies over
    every reference of the subtask; a row that is not ``ok`` answers nothing (0). Rows whose
    scores are expected values of a random strategy (no reply) are left alone."""
    todo = [(r, it) for r, it in zip(rows, items, strict=True)
            if not it["answer"].get("time_only")
            and (r["status"] != "ok" or r.get("response") is not None)]
    if not todo:
        return
    cands = [split_evidence(r["response"])[0] if r["status"] == "ok" else "" for r, _ in todo]
    refs = [[split_evidence(it["answer"]["text"])[0]] for _, it in todo]
    for (r, _), v in zip(todo, cider_d(cands, refs, words=whitespace), strict=True):
        r["scores"]["cider_d_answer"] = v
