"""A scripted stand-in for a language model that answers xlebench's planner prompts.

It reads the task from the system message ("Task: <name>.") and the input JSON block from the
first user message, and answers with well-formed, plausible JSON, so the whole LLM path
(prompts, litellm, cache, validation, retries) can run end to end on a loopback server with
no model at all. `Fault`s make it misbehave on purpose: rate limits, server errors, slow
answers, malformed JSON, answers of the wrong shape, and reflections that break the gap rule.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xlebench.clock import fmt_hhmm, fmt_hhmmss, parse_clock
from xlebench.testing.loopback import Reply

_TASK = re.compile(r"Task:\s*([a-z0-9_]+)")
_INPUT = re.compile(r"```json\s*(.*?)```", re.DOTALL)

#: Fault kinds: HTTP 429 (with Retry-After 0), HTTP 500, a reply slower than any sane
#: timeout, text that is not JSON, JSON of another shape, a reflection ignoring the gap rule.
FAULT_KINDS = ("429", "500", "timeout", "malformed", "wrong_shape", "gap_break", "unbalanced")


@dataclass
class Fault:
    task: str
    kind: str
    times: int = 1
    match: str = ""  # only requests whose text contains this


class ScriptedModel:
    """Callable responder for `LoopbackLLMServer`."""

    def __init__(self, faults: list[Fault] | None = None, timeout_delay_s: float = 5.0) -> None:
        self.faults = list(faults or [])
        for f in self.faults:
            if f.kind not in FAULT_KINDS:
                raise ValueError(f"fault kind {f.kind!r}: expected one of {FAULT_KINDS}")
        self.timeout_delay_s = timeout_delay_s
        self._lock = threading.Lock()
        self.by_task: dict[str, int] = {}

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = next((m["content"] for m in messages if m["role"] == "user"), "")
        task = (_TASK.search(system) or _TASK.search(user))
        name = task.group(1) if task else "unknown"
        with self._lock:
            self.by_task[name] = self.by_task.get(name, 0) + 1
            fault = self._take_fault(name, system + user)
        blocks = _INPUT.findall(user)
        data = json.loads(blocks[0]) if blocks else {}
        if fault in ("429", "500"):
            return Reply(f"injected {fault}", status=int(fault), headers={"retry-after": "0"})
        if fault == "timeout":
            return Reply("{}", delay_s=self.timeout_delay_s)
        if fault == "malformed":
            return Reply('{"this is": not json')
        if fault == "wrong_shape":
            return Reply(json.dumps({"answer": "a list of things", "items": [1, 2, 3]}))
        if name == "gem_judge" and body.get("logprobs"):
            return _gem_with_logprobs(user)
        if name == "socratic":
            return Reply(socratic_reply(user))
        if name == "multihop_generate":
            return Reply(json.dumps(multihop_reply(user, fault == "unbalanced")))
        if name == "multihop_filter":
            return Reply(json.dumps(_multihop_judgement(data)))
        if name in TEXT_ANSWERS:
            return Reply(TEXT_ANSWERS[name](user))
        answer = ANSWERS.get(name)
        if answer is None:
            return Reply(json.dumps({"error": f"unknown task {name}"}))
        return Reply(json.dumps(answer(data, fault == "gap_break")))

    def _take_fault(self, task: str, text: str) -> str | None:
        for f in self.faults:
            if f.times > 0 and f.task == task and f.match in text:
                f.times -= 1
                return f.kind
        return None


def _persona(data: dict, _: bool) -> dict:
    loc, mbti = data.get("location", "somewhere"), data.get("mbti", "INTJ")
    social = "meets friends for dinner" if mbti.startswith("E") else "reads quietly at home"
    return {
        "name": "Alex", "age": 31, "occupation": "office worker",
        "traits": ["curious", "organised" if mbti.endswith("J") else "flexible", "friendly"],
        "lifestyle": f"Lives in {loc}, commutes to an office and {social} in the evening.",
        "hobbies": ["cooking", "playing the guitar"],
        "daily_routine": [{"time": t, "activity": a} for t, a in (
            ("06:30", "wake up"), ("07:00", "breakfast"), ("08:00", "commute"),
            ("12:30", "lunch"), ("18:00", "cook dinner"), ("22:30", "sleep"))],
    }


_DAY = ("making breakfast", "eating breakfast", "washing the dishes", "commuting by car",
        "working at the computer", "attending a meeting", "walking to lunch", "eating lunch",
        "working at the computer", "shopping for groceries", "walking home",
        "cleaning the house", "cooking dinner", "eating dinner", "doing the laundry",
        "playing the guitar", "reading a book", "talking with family")


def _daily_plan(_: dict, __: bool) -> dict:
    return {"agenda": [{"start": fmt_hhmm(6 * 3600 + 30 * 60 + k * 3000),
                        "end": fmt_hhmm(6 * 3600 + 30 * 60 + k * 3000 + 2400), "activity": a}
                       for k, a in enumerate(_DAY)]}


def _chunking(data: dict, _: bool) -> dict:
    return {"chunks": [{"start": e["start"], "end": e["end"], "activity": e["activity"],
                        "description": f"C is {e['activity']}."}
                       for e in data.get("agenda", [])]}


def _pick(vocab: list[str], text: str, salt: int) -> str:
    words = set(re.findall(r"[a-z]+", text.lower()))
    for v in vocab:
        if words & set(re.findall(r"[a-z]{4,}", v.lower())):
            return v
    return vocab[salt % len(vocab)] if vocab else "Cooking"


def _chunk_info(data: dict, _: bool) -> dict:
    vocab = data.get("scenario_vocabulary", [])
    return {"chunks": [{"chunk_id": c["chunk_id"],
                        "scenarios": [_pick(vocab, c["activity"], k)], "scene": "indoor"}
                       for k, c in enumerate(data.get("chunks", []))]}


def _reflection(data: dict, break_gap: bool) -> dict:
    gap = 60 * int(data.get("min_gap_minutes", 3))
    prev_end = parse_clock(data.get("segment_end", "00:00"))
    out = []
    for c in data.get("remaining_chunks", []):
        start, end = parse_clock(c["start"]), parse_clock(c["end"])
        new_start = start if break_gap else max(start, prev_end + gap)
        c = {**c, "start": fmt_hhmmss(new_start), "end": fmt_hhmmss(new_start + end - start)}
        out.append(c)
        prev_end = new_start + end - start
    return {"chunks": out}


def _label(data: dict, _: bool) -> dict:
    text = " ".join(data.get("narrations_sample", [])).lower()
    scene = "outdoor" if any(w in text for w in ("street", "garden", "road", "park")) \
        else "indoor"
    time = "nighttime" if any(w in text for w in ("dark", "lamp", "night")) else "daytime"
    return {"time_period": time, "scene": scene, "evidence": "scripted"}


def _consolidate(data: dict, _: bool) -> dict:
    clips = data.get("clip_summaries", [])
    first = clips[0]["text"].split(".")[0].strip() if clips else "records the day"
    first = first[2:] if first.startswith("C ") else first
    return {"summary": f"C {first[:1].lower()}{first[1:]}."}


_RECORD = re.compile(r"during time of \[([0-9:+ ]+) – ([0-9:+ ]+)\]")


def socratic_reply(text: str) -> str:
    """A plain-text answer to an eval/socratic prompt: the first record's time span."""
    m = _RECORD.search(text)
    return f"[{m.group(1)} - {m.group(2)}]" if m else "There is no information available."


#: MultiHop-EgoQA's own Table 7 example answer, whose first token is never closed.
UNBALANCED = {"Question": "Who did I talk with?",
              "Answer": "You <T1>talked with two ladies including <T1>lady B</T1> and "
                        "<T2>lady X</T2>.",
              "Timespan": {"<T1>": [92, 97], "<T2>": [167, 179]}}


def multihop_reply(text: str, unbalanced: bool = False) -> dict:
    """A grounded QA pair from the first two ``start,end,description`` lines of the prompt."""
    if unbalanced:
        return UNBALANCED
    rows = re.findall(r"^(\d+),(\d+),(.+)$", text.split("Input:")[-1], re.MULTILINE)
    (s1, e1, d1), (s2, e2, d2) = (rows + rows)[:2]
    act = lambda d: d.strip().rstrip(".").removeprefix("C ")  # noqa: E731
    return {"Question": "What did I do?",
            "Answer": f"You <T1>{act(d1)}</T1> and then <T2>{act(d2)}</T2>.",
            "Timespan": {"<T1>": [int(s1), int(e1)], "<T2>": [int(s2), int(e2)]}}


def _multihop_judgement(data: dict) -> dict:
    vague = "objects did I" in str(data.get("Q", ""))
    return {"Judgement": int(vague), "Rationale": "too vague" if vague else "fine"}


def _event_relation(_: dict, __: bool) -> dict:
    return {"1": "Enabled By", "2": "No Relation", "4": "Caused By", "5": "Reaction To"}


ANSWERS: dict[str, Callable[[dict, bool], dict]] = {
    "event_relation": _event_relation,
    "persona": _persona, "daily_plan": _daily_plan, "chunking": _chunking,
    "chunk_info": _chunk_info, "reflection": _reflection, "label": _label,
    "consolidate": _consolidate,
}


# -- multiple choice: plain-text answers in the papers' formats ---------------------------------

def _number(pattern: str, text: str, default: int) -> int:
    """The integer a prompt states (``generate 3 highly``), or the default."""
    m = re.search(pattern, text)
    return int(m.group(1)) if m else default


def _narrated(text: str) -> list[str]:
    lines = re.findall(r"^\d+ - (.+)$", text, re.MULTILINE)
    return [ln.removeprefix("C ").rstrip(".") for ln in lines] or ["moves around"]


def _egoschema_questions(text: str) -> str:
    n = _number(r"generate (\d+) highly", text, 3)
    stems = ["What is the main activity of C in the video?",
             "How would you describe the overall purpose of C's actions?",
             "Which best summarizes how C's activity changes over the video?",
             "When does C start working?", "What does the narration say C does first?"]
    return "\n\n".join(f"Question {k + 1}: {stems[k % len(stems)]}" for k in range(n))


def _egoschema_answers(text: str) -> str:
    """One block per question; the paper's own output forms alternate ("Correct answer:" /
    "Correct Answer:", "Wrong answer 1:" / "Wrong Answer A :"), and the right answer is the
    longest option in the first block only. Where the prompt asks for evidence, each block
    ends with it: 25 s for the second question (a short certificate), 60 s for the others."""
    acts = _narrated(text)
    n = len(re.findall(r"^Question \d+:", text, re.MULTILINE)) or 3
    m = _number(r"and (\d+) wrong answers", text, 4)
    blocks = []
    for q in range(n):
        right = f"C mostly {acts[q % len(acts)]}"
        if q == 0:
            right += ", carefully and steadily, for most of the time shown in the video"
        wrong = [f"C spends the whole time doing something else entirely, number {w + 1}"
                 for w in range(m)]
        if q % 2:
            rows = [f"Correct Answer: {right}"] + [f"Wrong Answer {'ABCDEFGHI'[w]} : {x}"
                                                   for w, x in enumerate(wrong)]
        else:
            rows = [f"Correct answer: {right}"] + [f"Wrong answer {w + 1}: {x}"
                                                   for w, x in enumerate(wrong)]
        if "Evidence:" in text:
            rows.append("Evidence: [10-35]" if q == 1 else "Evidence: [5-30], [100-135]")
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


def _egoschema_one_shot(text: str) -> str:
    qs = _egoschema_questions(text).split("\n\n")
    answers = _egoschema_answers("\n".join(qs) + "\n" + text).split("\n\n")
    return "\n\n".join(f"{q}\n{a}" for q, a in zip(qs, answers, strict=False))


def _options(text: str) -> list[str]:
    found = re.findall(r"^(?:Option \d+:|[A-E]\.) (.+)$", text, re.MULTILINE)
    return found or [""]


def _blind_longest(text: str) -> str:
    """A blind model with a length shortcut: it picks the longest option."""
    opts = _options(text)
    return f"Option {max(range(len(opts)), key=lambda k: (len(opts[k]), -k))}"


def _rank_longest(text: str) -> str:
    opts = _options(text)
    order = sorted(range(len(opts)), key=lambda k: (-len(opts[k]), k))
    return "ANSWER: " + " > ".join("ABCDE"[k] for k in order)


def _decoys(text: str) -> str:
    n = _number(r"Write (\d+) wrong answers", text, 4)
    return "\n".join(f"WRONG ANSWER {k + 1}: C spent the time on another errand, part {k + 1}."
                     for k in range(n))


def _gem(text: str) -> str:
    pred = re.search(r"Candidate answer:\s*(.*)", text)
    ref = re.search(r"Reference answer:\s*(.*)", text)
    same = bool(pred and ref and pred.group(1).strip().lower() == ref.group(1).strip().lower())
    return f"ANSWERS_ARE_EQUIVALENT: {'TRUE' if same else 'FALSE'}"


def _gem_with_logprobs(text: str) -> Reply:
    """The verdict with its token's log-probabilities: P(TRUE) grows with the content words the
    candidate shares with the reference (a graded judge, so a threshold has something to
    fit); the text says TRUE where P(TRUE) >= 0.5."""
    from xlebench.eval.scorers.short import token_f1

    pred = re.search(r"Candidate answer:\s*(.*)", text)
    ref = re.search(r"Reference answer:\s*(.*)", text)
    p = 0.02 + 0.96 * token_f1(pred.group(1), ref.group(1)) if pred and ref else 0.02
    verdict = " TRUE" if p >= 0.5 else " FALSE"
    alts = {" TRUE": math.log(p), " FALSE": math.log(1 - p)}
    return Reply(f"ANSWERS_ARE_EQUIVALENT:{verdict}",
                 logprobs=[{"ANSWERS_ARE_EQUIVALENT": 0.0}, {":": 0.0},
                           {verdict: alts[verdict], **alts}])


def _score10(text: str) -> str:
    return json.dumps({"score": 10 if "identical" in text else 5, "rationale": "scripted"})


def _neptune_qa(text: str) -> str:
    """Neptune's presentation, capability in brackets; the third answer is a bare count."""
    n = _number(r"craft (\d+) challenging", text, 5)
    acts = _narrated(text)
    caps = ["cause and effect", "temporal ordering", "counting", "goal reasoning", "comparison"]
    rows = []
    for k in range(n):
        cap = caps[k % len(caps)]
        answer = "3" if cap == "counting" else f"C {acts[k % len(acts)]}"
        rows.append(f"QUESTION {k + 1}: ({cap}) What does C do, question {k + 1}?\n"
                    f"CORRECT ANSWER: {answer}")
    return "\n\n".join(rows)


TEXT_ANSWERS: dict[str, Callable[[str], str]] = {
    "egoschema_q": _egoschema_questions, "egoschema_aw": _egoschema_answers,
    "egoschema_qaw": _egoschema_one_shot, "blind_mcq": _blind_longest,
    "egoschema_a": _egoschema_answers, "egoschema_w": _egoschema_answers,
    "qad_rank": _rank_longest, "neptune_decoys": _decoys, "gem_judge": _gem,
    "score10_judge": _score10, "transcript_mcq": _blind_longest, "noq_mcq": _blind_longest,
    "neptune_qa": _neptune_qa, "neptune_visual_support": lambda text: "C handles the tools.",
}
