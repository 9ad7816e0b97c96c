"""Short open-ended answers (Neptune's open-ended QA): a rule of equivalence per answer shape,
token F1 and ROUGE-L beside it, the LLM judges (GEM) on top; and its blind panel.

An item's ``answer.shape`` says how its reply is read (replies are cut to
``TRUNCATE_WORDS`` words first, as Neptune truncates before judging):

==========  ===================================================================================
``count``   the first number in the reply (digits or a number word) equals ``answer.value``
``order``   the reply names every one of ``answer.candidates`` (the items the question lists)
            and in the order ``answer.order``; each clause of the reply (split at commas,
            "then", "and", ">" and new lines) is matched to the candidate sharing most content
            stems with it
``sequence`` like ``order``, over ``answer.candidates`` the question does not list (the
            verbs C applies to an object, in order)
``phrase``  token F1 (SQuAD's, over content-word stems) with the answer is at least
            ``F1_EQUIVALENT``
``text``    the same rule as ``phrase`` (free text; a judge is the better measure: set
            ``eval.judges=[gem]``, whose dev-set check is printed with it)
==========  ===================================================================================

``answer_acc`` is the share of replies the rule calls equivalent. Neptune found rule-based
metrics far below an LLM judge on its dev set (`xlebench.eval.judges.check` measures both on
ours); the rule is exact for counts and orders and a conservative stand-in elsewhere.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from xlebench.eval.metrics import rouge_l
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings, query_question
from xlebench.eval.scorers.learned import nearest_reference
from xlebench.eval.scorers.script import script_members

TRUNCATE_WORDS = 100
F1_EQUIVALENT = 0.5
#: Answers of other logs the constant strategy tries per shape (the most frequent first).
CANDIDATES = 24
_CLAUSE = re.compile(r"\s*(?:[,;>\n]|\bthen\b|\band\b|\bafter that\b|\bfinally\b|\bfirst\b)\s*",
                     re.IGNORECASE)
NUMBER_WORDS = {w: k for k, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBER = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
STOP = frozenset("""a an the of in on at to for from with by and or is are was were be been it
its his her their this that c does do did he she they them then what which who how times time
once twice""".split())
_WORD = re.compile(r"[a-z0-9]+")
SHAPES = ("count", "order", "sequence", "phrase", "text")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    from xlebench.eval.metrics import porter_stem

    return porter_stem(word)


def stems(text: str) -> list[str]:
    """Content-word stems, in order: Porter stems of every word (``fries`` and ``fry``,
    ``carries`` and ``carry`` meet), stop words and C left out."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP]


def truncate(text: str, words: int = TRUNCATE_WORDS) -> str:
    return " ".join(text.split()[:words])


def token_f1(reply: str, answer: str) -> float:
    """SQuAD's token F1 over content-word stems (multisets)."""
    a, b = Counter(stems(reply)), Counter(stems(answer))
    common = sum((a & b).values())
    if not common:
        return 0.0
    p, r = common / sum(a.values()), common / sum(b.values())
    return 2 * p * r / (p + r)


def parse_number(text: str) -> int | None:
    m = _NUMBER.search(text)
    if not m:
        return None
    w = m.group(1).lower()
    return int(w) if w.isdigit() else NUMBER_WORDS[w]


def parse_sequence(text: str, candidates: Sequence[str]) -> list[int]:
    """The candidates a reply names, in the order it names them (each once): every clause goes
    to the candidate sharing most content stems with it (ties to none)."""
    cand = [set(stems(c)) for c in candidates]
    out: list[int] = []
    for clause in _CLAUSE.split(text):
        words = set(stems(clause))
        if not words:
            continue
        overlap = [len(words & c) / max(1, len(c)) for c in cand]
        best = max(overlap, default=0.0)
        winners = [k for k, v in enumerate(overlap) if v == best]
        if best > 0 and len(winners) == 1 and winners[0] not in out:
            out.append(winners[0])
    return out


def equivalent(answer: dict, reply: str) -> bool | None:
    """The rule of the answer's shape; None where a count reply holds no number. Text and
    phrases: token F1 at least ``F1_EQUIVALENT``, and nearer the answer than any of the
    item's decoys."""
    shape = answer.get("shape", "text")
    if shape == "count":
        n = parse_number(reply)
        return None if n is None else n == int(answer["value"])
    if shape in ("order", "sequence"):
        return parse_sequence(reply, answer["candidates"]) == list(answer["order"])
    # a reply as near one of the item's known wrong answers (its decoys) as the right one
    # has not told them apart: "C washes the onion" is not "C cuts the onion"
    wrong = [o for o in answer.get("options", []) if o != answer["text"]]
    f1 = token_f1(reply, answer["text"])
    return f1 >= F1_EQUIVALENT and all(token_f1(reply, o) < f1 for o in wrong)


#: "Option 3", "option 3.", "(C)", "Answer: C", "C": a pick among the options; a bare number
#: is not (an open question about a count is answered "3").
_OPTION_PICK = re.compile(r"^\W*(?:answer\s*:\s*)?(?:option\s*\(?([0-9])\)?|\(?([a-e])\)?)\W*$",
                          re.IGNORECASE)


def chosen_option(item: dict, reply: str) -> str:
    """A reply that only names one of the item's options (``Option 3``, ``(C)``: a system
    shown the question as multiple choice, e.g. by likelihood) stands for that option's
    text; any other reply is read as it is."""
    options = item["answer"].get("options")
    m = _OPTION_PICK.match(reply) if options else None
    if m is None:
        return reply
    # the index itself: a count item's options are numbers, so "Option 3" also contains one
    tok = m.group(1) or m.group(2)
    k = int(tok) if tok.isdigit() else "abcde".index(tok.lower())
    return options[k] if k < len(options) else reply


class ShortAnswer(Base):
    """Short answers to open questions (see the module docstring). Blind panel: the answer
    other logs most often had to questions of the same capability and shape (for an order,
    the positions of the listed items most often right; for a count, the most frequent
    number); the question echoed back (for an order: the items in the order listed); one
    fixed generic sentence."""

    kind = "short"

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        reply = chosen_option(item, truncate(reply))
        ok = equivalent(item["answer"], reply)
        if ok is None:
            return None
        return {"answer_acc": float(ok), "token_f1": round(token_f1(reply, item["answer"]
                                                                      ["text"]), 6),
                "rougeL": rouge_l(reply, item["answer"]["text"])}

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {"answer_acc": 0.0, "token_f1": 0.0, "rougeL": 0.0}

    def blind(self) -> Sequence[Blind]:
        return (Blind("prior", "other logs' answers to questions of the same capability and "
                      "shape", _prior_answer, fit_priors),
                Blind("question_echo", "the question (an order: the items as listed)",
                      lambda it, _m, _c: query_question(it)),
                Blind("generic", "nothing",
                      lambda _it, _m, _c: "C carries out everyday activities."),
                nearest_reference(), *script_members())


def _key(item: dict) -> tuple[str, str]:
    return (item.get("tags", {}).get("capability", ""), item["answer"].get("shape", "text"))


def _as_listed(item: dict, positions: Sequence[int]) -> str:
    cands = item["answer"]["candidates"]
    return ", then ".join(cands[k] for k in positions if k < len(cands))


def _best_text(train: Sequence[dict]) -> str:
    """Of the most frequent answers, the one the equivalence rule accepts most often."""
    counts = Counter(it["answer"]["text"] for it in train)
    tries = [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATES]]
    return max(tries, key=lambda t: (sum(equivalent(it["answer"], t) or 0 for it in train),
                                     -len(t), t)) if tries else ""


def fit_priors(train: Sequence[dict]) -> dict[tuple[str, str], Any]:
    """Per (capability, shape) of other logs: the most frequent count, the most often right
    order of listed positions, or the best constant answer."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for it in train:
        groups.setdefault(_key(it), []).append(it)
    out: dict[tuple[str, str], Any] = {}
    for key, its in groups.items():
        shape = key[1]
        if shape == "count":
            out[key] = Counter(int(it["answer"]["value"]) for it in its).most_common(1)[0][0]
        elif shape == "order":
            orders = Counter(tuple(it["answer"]["order"]) for it in its)
            out[key] = min(orders.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        else:
            out[key] = _best_text(its)
    return out


def _prior_answer(item: dict, model: dict, ctx: BlindContext) -> str:
    value = model.get(_key(item))
    if value is None:
        return "C carries out everyday activities."
    if item["answer"].get("shape") == "order":
        return _as_listed(item, value)
    return str(value)
