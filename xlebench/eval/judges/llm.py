"""Model judges of free-text answers (RECIPES.md R6), run by the evaluate stage when
``eval.judges`` lists them, through the cached LLM client (``llm`` group).

* ``gem`` — Neptune's answer-equivalence prompt: 1 when the judge says
  ``ANSWERS_ARE_EQUIVALENT: TRUE`` (also a bare ``TRUE``/``true.``), 0 for FALSE; anything else is
  re-asked up to ``llm.max_retries`` times and then fails the evaluation (never a silent 0).
  With ``eval.judging.p_true=true`` the judge's verdict is its probability of TRUE (from the
  log-probabilities of its verdict token, which the backend must return: OpenAI's
  ``top_logprobs``), and a reply is equivalent at or above the threshold fitted for F1 on the
  dev set (`xlebench.eval.judges.check`); a reply without them falls back to its text, 0 or 1.
  (GEM itself is a fine-tuned Gemma-9B: point ``judge`` at a server hosting it.)
* ``score10`` — MultiHop-EgoQA's 1-10 grade as JSON ``{score, rationale}``, stored /10.

Replies are truncated to ``eval.judging.truncate_words`` words (Neptune: 100). Judges are refused
at compose time for ordering subtasks: Neptune (D.4) found they accept the right items in the
wrong order. Rows that are not ``ok`` keep the worst value (0), like every other metric.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xlebench.errors import ConfigError
from xlebench.llm.client import LLMClient, Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_completion, ask_json, ask_text

PROMPTS = {"gem": "eval/gem.v1", "score10": "eval/score10.v1"}
METRICS = {"gem": "gem_judge", "score10": "score10_judge"}
#: Answer kinds judges read (free text); ordering is refused, the others have exact metrics.
JUDGED_KINDS = ("text", "grounded", "short")
_VERDICT = re.compile(r"^\W*(?:answers?[_ ]are[_ ]equivalent\s*:?\s*)?\W*(true|false)\W*$",
                      re.IGNORECASE)


def parse_equivalence(text: str) -> float:
    """``ANSWERS_ARE_EQUIVALENT: TRUE`` / ``TRUE`` / ``true.`` -> 1.0; FALSE -> 0.0."""
    m = _VERDICT.match(text.strip())
    if not m:
        raise ValueError('reply with one line "ANSWERS_ARE_EQUIVALENT: TRUE" or "... FALSE"')
    return 1.0 if m.group(1).lower() == "true" else 0.0


#: Alternatives asked per generated token in P(TRUE) mode.
TOP_LOGPROBS = 5


def usable(logprob: Any) -> bool:
    """A log-probability: a finite number at most 0 (a server's rounding may put 0 a hair
    above). NaN, +-inf (JSON has none of them: the cache stores null) and 1000 are a server's
    errors, not verdicts."""
    return isinstance(logprob, int | float) and not isinstance(logprob, bool) \
        and math.isfinite(logprob) and logprob <= 1e-6


def p_true(top_logprobs: Sequence[dict[str, float]]) -> float | None:
    """P(TRUE) / (P(TRUE) + P(FALSE)) at the first generated token whose alternatives name
    either (`` TRUE``, ``True``, ``true``...); None when no token does, or when that token's
    alternatives are not all log-probabilities (`usable`: 1000, NaN or ``-inf`` is a
    server's error, not a verdict)."""
    for alts in top_logprobs:
        named = [(token.strip().lower(), lp) for token, lp in alts.items()
                 if token.strip().lower() in ("true", "false")]
        if not named:
            continue
        if not all(usable(lp) for lp in alts.values()):
            return None
        mass = {"true": 0.0, "false": 0.0}
        for word, lp in named:
            mass[word] += math.exp(min(0.0, float(lp)))
        total = mass["true"] + mass["false"]
        return mass["true"] / total if total > 0 else None
    return None


def parse_score10(value: Any) -> float:
    if not isinstance(value, dict) or not isinstance(value.get("score"), int | float) \
            or not 1 <= value["score"] <= 10:
        raise ValueError('expected {"score": 1-10, "rationale": "..."}')
    return float(value["score"]) / 10


#: How a P(TRUE) verdict was read (`Judges.read`): from its log-probabilities, or from its
#: text because the reply had none usable.
BY_PROBABILITY, BY_TEXT = "P(TRUE)", "text (no usable log-probabilities)"


def truncate(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words])


@dataclass
class Judges:
    names: Sequence[str]
    llm: LLMClient
    truncate_words: int = 100
    #: gem: score by P(TRUE) from the verdict token's log-probabilities, not its text.
    p_true: bool = False
    #: gem: the P(TRUE) at or above which a reply counts as equivalent (fitted on the dev
    #: set; 0.5 until then, and for a text verdict, which is 0 or 1).
    thresholds: dict[str, float] = field(default_factory=dict)
    #: How many P(TRUE) verdicts were read each way (`BY_PROBABILITY`, `BY_TEXT`).
    read: Counter = field(default_factory=Counter)

    def metrics(self) -> list[str]:
        return [METRICS[n] for n in self.names]

    def mode(self, name: str) -> str:
        """How a judge's verdict is read: ``P(TRUE)``, ``text`` or ``1-10 score``."""
        return ("P(TRUE)" if self.p_true else "text") if name == "gem" else "1-10 score"

    def score(self, name: str, question: str, candidate: str, reference: str,
              usage: Usage) -> float:
        """The judge's own value: P(TRUE) (or a text verdict's 0 / 1) for gem, score / 10."""
        messages = load_prompt(PROMPTS[name]).render(
            question=question, candidate=truncate(candidate, self.truncate_words),
            reference=reference)
        kw = dict(max_retries=self.llm.settings.max_retries, usage=usage,
                  what=f"{name} judge")
        if name == "gem" and self.p_true:
            return ask_completion(self.llm, messages, self._p_true_or_text,
                                  logprobs=TOP_LOGPROBS, **kw)
        if name == "gem":
            return ask_text(self.llm, messages, parse_equivalence, **kw)
        return ask_json(self.llm, messages, parse_score10, **kw)

    def _p_true_or_text(self, c: Any) -> float:
        """P(TRUE) from the reply's log-probabilities, else its text verdict (counted)."""
        p = p_true(c.top_logprobs)
        value = parse_equivalence(c.text) if p is None else p
        self.read[BY_TEXT if p is None else BY_PROBABILITY] += 1
        return value

    def judge(self, name: str, question: str, candidate: str, reference: str,
              usage: Usage) -> float:
        """The value a table shows: gem's equivalence (0 / 1 at the threshold), score / 10."""
        value = self.score(name, question, candidate, reference, usage)
        if name != "gem":
            return value
        return 1.0 if value >= self.thresholds.get(name, 0.5) else 0.0

    def apply(self, rows: list[dict], items: Sequence[dict], judged: set[str],
                usage: Usage) -> None:
        """Add each judge's value to the rows of judged subtasks (0 where not ``ok``). The
        judge reads the reference's words only (no ``<Tk>`` tokens, no ``Evidence:`` line) and
        the reply's answer part; time-only items, whose answer is spans alone, are not judged
        (MultiHop-EgoQA leaves them out of its answer metrics)."""
        from xlebench.eval.scorers.grounded import split_evidence

        for row, item in zip(rows, items, strict=True):
            if item["subtask"] not in judged or item["answer"].get("time_only"):
                continue
            reference = split_evidence(item["answer"]["text"])[0]
            for name in self.names:
                ok = row["status"] == "ok" and row["response"] is not None
                row["scores"][METRICS[name]] = self.judge(
                    name, item["query"], split_evidence(row["response"])[0] if ok else "",
                    reference, usage) if ok else 0.0


def judged_subtasks(recipes: dict[str, Any], wanted: Sequence[str] | None) -> set[str]:
    """Free-text subtasks the judges score: all of them, or those listed; an ordering or
    exact-answer subtask in the list is refused."""
    free = {n for n, r in recipes.items() if r.scorer.kind in JUDGED_KINDS}
    if wanted is None:
        return free
    for name in wanted:
        if name in recipes and recipes[name].scorer.kind == "order":
            raise ConfigError(f"eval.judging.subtasks: {name} is an ordering task; answer "
                              "judges accept the right items in the wrong order (Neptune D.4), "
                              "so its exact metrics are the only ones reported")
        if name not in free:
            raise ConfigError(f"eval.judging.subtasks: {name} has no free-text answer to judge; "
                              f"choose from {sorted(free)}")
    return set(wanted)
