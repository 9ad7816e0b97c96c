"""Free text against a reference (summaries): ROUGE-L, with the model metrics on BERTScore F1
and Sent.Sim; and its blind panel — replies written without seeing the video."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from xlebench.eval import encoder
from xlebench.eval.metrics import lcs_length, lcs_masks, rouge_l, rouge_tokens
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings

#: A reply that says nothing about the video (one member of the panel).
GENERIC_SUMMARY = "C carries out everyday activities and moves around."
#: Candidates kept for the exact ROUGE-L search of the best constant, and references it is
#: measured on (a seeded sample of each fold's training references).
CANDIDATES, TARGETS = 16, 128
#: A query shape needs this many training items to get a constant of its own.
MIN_PER_SHAPE = 20

_TOKEN = re.compile(r"</?T\d*>")
_DIGITS = re.compile(r"\d+")


def strip_tokens(text: str) -> str:
    """``You <T1>opened the fridge</T1> 3 times.`` -> ``You opened the fridge 3 times.``"""
    return " ".join(_TOKEN.sub("", text).split())


def query_shape(item: dict) -> str:
    """The query without its numbers: items of one shape ask the same thing of other times."""
    return _DIGITS.sub("#", item["query"])


def _bags(token_lists: Sequence[Sequence[str]], vocab: dict[str, int]) -> np.ndarray:
    out = np.zeros((len(token_lists), len(vocab)), dtype=np.float32)
    for i, toks in enumerate(token_lists):
        for t in toks:
            out[i, vocab[t]] = 1.0
    return out


def best_constant(texts: Sequence[str], seed: int = 0) -> str:
    """The text of ``texts`` with the highest mean ROUGE-L against them: a shortlist by word
    overlap (one matrix product), then exact ROUGE-L on a seeded sample of targets."""
    distinct = sorted({t for t in texts if t.strip()})
    if not distinct:
        return GENERIC_SUMMARY
    rng = np.random.default_rng(seed)
    targets = [texts[i] for i in rng.permutation(len(texts))[:TARGETS] if texts[i].strip()]
    tok = {t: rouge_tokens(t) for t in {*distinct, *targets}}
    vocab = {w: i for i, w in enumerate(sorted({w for t in tok.values() for w in t}))}
    cand, targ = _bags([tok[t] for t in distinct], vocab), _bags([tok[t] for t in targets], vocab)
    overlap = cand @ targ.T
    sizes = cand.sum(1, keepdims=True) + targ.sum(1)[None, :]
    unigram = (2 * overlap / np.maximum(sizes, 1)).mean(1)
    short = [distinct[i] for i in np.argsort(-unigram, kind="stable")[:CANDIDATES]]
    masks = [(tok[t], lcs_masks(tok[t])) for t in targets]

    def mean_rouge(c: str) -> float:  # ROUGE-L F = 2 LCS / (|c| + |t|)
        a = tok[c]
        return float(np.mean([2 * lcs_length(a, t, m) / (len(a) + len(t)) if a and t else 0.0
                              for t, m in masks]))
    score = {c: mean_rouge(c) for c in short}
    return max(short, key=lambda c: (score[c], -len(c), c))


def fit_constants(train: Sequence[dict]) -> dict[str, str]:
    """The best constant reference per query shape with enough items, and overall (``*``)."""
    shapes: dict[str, list[str]] = {}
    for it in train:
        shapes.setdefault(query_shape(it), []).append(reference(it))
    out = {"*": best_constant([reference(it) for it in train])}
    out.update({q: best_constant(refs) for q, refs in shapes.items() if len(refs) >= MIN_PER_SHAPE})
    return out


def reference(item: dict) -> str:
    """The reference text a reply is scored against."""
    return strip_tokens(item["answer"]["text"].rpartition("Evidence:")[0]
                        or item["answer"]["text"])


def constant_answer(item: dict, model: dict[str, str], ctx: BlindContext) -> str:
    return model.get(query_shape(item), model["*"])


def period_length(item: dict) -> float:
    return float(item["period"]["end_s"]) - float(item["period"]["start_s"])


def fit_durations(train: Sequence[dict]) -> list[tuple[float, str, str]]:
    """(period length, query shape, reference) of every training item, sorted: what a reader
    who remembers other logs' answers by how long their records were knows."""
    return sorted((period_length(it), query_shape(it), reference(it)) for it in train)


def duration_answer(item: dict, model: list[tuple[float, str, str]], ctx: BlindContext
                    ) -> str:
    """The reference of the training item of the same query shape whose period is nearest in
    length (any shape when none shares it): a period the length of one library video names
    that video wherever another log asked about it."""
    if not model:
        return GENERIC_SUMMARY
    shape, length = query_shape(item), period_length(item)
    pool = [m for m in model if m[1] == shape] or model
    return min(pool, key=lambda m: (abs(m[0] - length), m[2]))[2]


class TextSimilarity(Base):
    """Free text against a reference: ROUGE-L, and with the model metrics on
    (``eval.bertscore``) BERTScore F1 and Sent.Sim (cosine of MiniLM sentence vectors).
    Blind panel: the best constant reference of other life logs (per query shape), the
    reference of the other item whose period is nearest in length (duration memory), the query
    echoed back, and one fixed generic sentence."""

    kind = "text"

    def __init__(self, generic: str = GENERIC_SUMMARY) -> None:
        self.generic = generic

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        return {"rougeL": rouge_l(reply, item["answer"]["text"])}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"rougeL": 0.0, **({"bertscore_f1": 0.0, "sent_sim": 0.0} if s.bertscore
                                  else {})}

    def blind(self) -> Sequence[Blind]:
        return (Blind("constant", "other logs' references (best constant per query shape)",
                      constant_answer, fit_constants),
                Blind("duration_memory", "the period's length; other logs' references by "
                      "the length of their periods", duration_answer, fit_durations),
                Blind("query_echo", "the query", lambda it, _m, _c: it["query"]),
                Blind("generic", "nothing", lambda _it, _m, _c: self.generic))

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        todo = [(r, it) for r, it in zip(rows, items, strict=True) if r["status"] == "ok"]
        if not (s.bertscore and bertscorer is not None and todo):
            return
        preds = [r["response"] for r, _ in todo]
        refs = [it["answer"]["text"] for _, it in todo]
        f1 = bertscorer.f1(preds, refs)
        for (r, _), v, sim in zip(todo, f1, similarity(preds, refs), strict=True):
            r["scores"]["bertscore_f1"] = v
            r["scores"]["sent_sim"] = sim


def similarity(preds: Sequence[str], refs: Sequence[str]) -> list[float]:
    """Cosine of MiniLM sentence vectors (tokens stripped), rounded to 10 places."""
    enc = encoder.sentence_encoder()
    a = enc.encode([strip_tokens(p) for p in preds]).astype(np.float64)
    b = enc.encode([strip_tokens(r) for r in refs]).astype(np.float64)
    return [round(float(x @ y), 10) for x, y in zip(a, b, strict=True)]
