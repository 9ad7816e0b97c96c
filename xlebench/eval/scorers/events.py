"""Five events of a 10-second window (VidSitu), scored as VidSitu scores them: verbs as a
task of their own (`EventVerbs`), semantic roles *given the ground-truth verbs* (`EventRoles`,
the query names them); each with its blind panel — the verbs and role values most common on
other life logs, and for roles the values other logs give each verb."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from xlebench.eval.metrics import corpus_coref, corpus_text
from xlebench.eval.metrics.corpus import (
    CorpusMetric,
    cider_by_argument,
    cider_by_verb,
    cider_micro,
    event_acc1,
    event_acc5,
    verb_recall_macro,
    verb_recall_macro_th9,
)
from xlebench.eval.scorers.base import Base, Blind, BlindContext, ScoreSettings
from xlebench.eval.scorers.learned import nearest_reference
from xlebench.library.senses import verb_key

EVENT_LINE = re.compile(r"event\s*(\d+)\s*[:.-]\s*(.*)", re.IGNORECASE)
ROLE_NAMES = ("Arg0", "Arg1", "Arg2", "ALoc", "AScn")


def parse_events(reply: str) -> dict[int, dict[str, Any]]:
    """``Event 2: verbs: cut, slice; Arg0: C; Arg1: onion`` lines -> {2: {verbs, roles}}."""
    out: dict[int, dict[str, Any]] = {}
    for line in reply.splitlines():
        m = EVENT_LINE.search(line)
        if not m:
            continue
        verbs: list[str] = []
        roles: dict[str, str] = {}
        for part in m.group(2).split(";"):
            key, _, value = part.partition(":")
            key, value = key.strip().lower(), value.strip()
            if key in ("verbs", "verb"):
                verbs = [v.strip().lower() for v in value.split(",") if v.strip()]
            elif (name := next((r for r in ROLE_NAMES if r.lower() == key), None)) and value:
                roles[name] = value
        out[int(m.group(1))] = {"verbs": verbs, "roles": roles}
    return out


def _events(train: Sequence[dict]) -> list[dict]:
    return [ev for it in train for ev in it["answer"]["events"]]


def _top(counter: Counter, k: int = 1) -> list:
    return [v for v, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def fit_verbs(train: Sequence[dict]) -> list[str]:
    """Other logs' five most common verbs."""
    return _top(Counter(v for ev in _events(train) for v in ev["verbs_gt"]), 5)


def fit_plan_verbs(train: Sequence[dict], public: Any) -> dict:
    """Other logs' event verbs counted per word of their period's plan chunk, and overall."""
    by_word: dict[str, Counter] = {}
    for it in train:
        words = public.script_words(it)
        for ev in it["answer"]["events"]:
            for w in words:
                by_word.setdefault(w, Counter()).update(ev["verbs_gt"])
    return {"word": by_word, "all": fit_verbs(train)}


def _plan_verbs(item: dict, model: dict, ctx: BlindContext) -> str:
    """The five verbs most often narrated where other logs' plans said this chunk's words."""
    words = ctx.public.script_words(item) if ctx.public else frozenset()
    total: Counter = Counter()
    for w in sorted(words):
        total.update(model["word"].get(w, Counter()))
    return _verb_lines(item, _top(total, 5) if total else model["all"], ctx)


def fit_roles(train: Sequence[dict]) -> dict:
    """Each role's most common value on other logs, overall and per verb."""
    overall = {r: Counter() for r in ROLE_NAMES}
    by_verb: dict[str, dict[str, Counter]] = {}
    for ev in _events(train):
        for r, v in ev["roles"].items():
            overall.setdefault(r, Counter())[v] += 1
            for verb in ev["verbs_gt"]:
                by_verb.setdefault(verb, {}).setdefault(r, Counter())[v] += 1
    return {"all": {r: _top(c)[0] for r, c in overall.items() if c},
            "verb": {verb: {r: _top(c)[0] for r, c in roles.items()}
                     for verb, roles in by_verb.items()}}


def _verb_lines(item: dict, verbs: list[str], ctx: BlindContext) -> str:
    return "\n".join(f"Event {k}: verbs: {', '.join(verbs)}"
                     for k in range(1, len(item["answer"]["events"]) + 1))


def _role_line(values: dict[str, str]) -> str:
    return "; ".join(f"{r}: {v}" for r, v in values.items())


def _common_roles(item: dict, model: dict, ctx: BlindContext) -> str:
    return "\n".join(f"Event {k}: {_role_line(model['all'])}"
                     for k in range(1, len(item["answer"]["events"]) + 1))


def _verb_roles(item: dict, model: dict, ctx: BlindContext) -> str:
    """The roles other logs give the event's (shown) verb, else the overall ones."""
    lines = []
    for k, ev in enumerate(item["answer"]["events"], start=1):
        values = dict(model["all"])
        for verb in reversed(ev["verbs_gt"][:1]):
            values.update(model["verb"].get(verb, {}))
        lines.append(f"Event {k}: {_role_line(values)}")
    return "\n".join(lines)


def _sequence(item: dict) -> tuple[str, ...]:
    """The window's shown verbs, event by event (its first verb each)."""
    return tuple(ev["verbs_gt"][0] if ev["verbs_gt"] else "" for ev in item["answer"]["events"])


def fit_sequences(train: Sequence[dict]) -> dict:
    """Per sequence of shown verbs, the roles another log's window with that sequence had
    (the first such window), beside `fit_roles`' fallbacks."""
    seen: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for it in train:
        seen.setdefault(_sequence(it), [ev["roles"] for ev in it["answer"]["events"]])
    return {**fit_roles(train), "sequence": seen}


def _remembered_window(item: dict, model: dict, ctx: BlindContext) -> str:
    """A window whose verb sequence another log had: that window's roles; else the verbs'."""
    roles = model["sequence"].get(_sequence(item))
    if roles is None or len(roles) != len(item["answer"]["events"]):
        return _verb_roles(item, model, ctx)
    return "\n".join(f"Event {k}: {_role_line(r)}" for k, r in enumerate(roles, start=1))


def annotators_verbs(event: dict) -> list[str]:
    """An event's verbs as VidSitu's evaluator receives them: each annotator's (narration
    pass's) verbs, once per annotator, in pass order; an event one pass narrates, that pass's
    stored verbs."""
    passes = event.get("verbs_by_annotator") or ([event["verbs_gt"]] if event["verbs_gt"]
                                                 else [])
    return [v for verbs in passes for v in dict.fromkeys(verb_key(x) for x in verbs)]


class EventVerbs(Base):
    """The verbs of each event, as VidSitu's ``EvlFn_Vb.vb_classf_metrics_all`` scores them
    (all corpus metrics), its annotators being the narration passes: Acc@1 and Acc@5 over
    every event (``Per_Ev_Top_k``: a hit when a top-k verb is *any* annotator's verb; an
    event no narration names a verb for is a miss), and macro Recall@5 over the verbs that
    two or more annotators name for an event (primary; ``recall_macro_1_th_0``), and over the
    verbs so named in more than 9 events (``..._th_9``, the paper's headline): an event one
    pass narrates feeds the accuracies, not the recalls. Blind panel: other logs' five most
    common verbs."""

    kind = "events"

    def details(self, item: dict, reply: str | None) -> dict:
        """Per event: every annotator's verbs (each pass's once, passes in order, so a verb
        two passes name is there twice) and the reply's first five, each as its PropBank
        sense where it has one (a reply may name a sense, ``cut.01``), else as the verb
        (`xlebench.library.senses.verb_key`): senses are compared where both sides have
        them."""
        pred = parse_events(reply) if reply else {}
        return {"events": [[annotators_verbs(ev),
                            [verb_key(v) for v in pred.get(k, {"verbs": []})["verbs"][:5]]]
                           for k, ev in enumerate(item["answer"]["events"], start=1)]}

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        return {} if parse_events(reply) else None

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"verb_r5": verb_recall_macro, "verb_r5_th9": verb_recall_macro_th9,
                "acc@1": event_acc1, "acc@5": event_acc5}

    def blind(self) -> Sequence[Blind]:
        return (Blind("common_verbs", "other logs' most common verbs", _verb_lines,
                      fit_verbs),
                Blind("plan_verbs", "the life log's plan (public); the verbs of other logs' "
                      "events by the words of their plan chunks", _plan_verbs, fit_plan_verbs,
                      public=True),
                nearest_reference())


def annotator_keys(events: Sequence[dict]) -> list[list[list]]:
    """One co-reference key per annotator, ``[[event, role, value], ...]``: annotator j's
    roles where the event has a j-th annotator, else its first annotator's (VidSitu averages
    Lea-S over its annotators' keys); [] when no event has a second annotator."""
    n = max((len(e.get("roles_by_annotator") or []) for e in events), default=0)
    if n < 2:
        return []
    out = []
    for j in range(n):
        key = []
        for k, e in enumerate(events, start=1):
            by = e.get("roles_by_annotator") or []
            key += [[k, r, v] for r, v in sorted((by[j] if j < len(by) else e["roles"]).items())]
        out.append(key)
    return out


class EventRoles(Base):
    """Semantic roles given the true verbs (VidSitu's protocol: the query names each event's
    verbs), scored as VidSitu's ``EvalFnCap`` scores them, all over the whole benchmark:
    CIDEr-D over every role slot (primary, micro), CIDEr-D within each argument type (C-Arg)
    and each verb (C-Vb), BLEU@1/@2, ROUGE-L and METEOR 1.5 of the slots (pycocoevalcap), and
    the co-reference scores LEA, LEA-soft, MUC, B³, CEAFe (`xlebench.eval.metrics.corpus_coref`).
    A slot's references are every annotator's value for it (those who gave one). Blind
    panel: each role's most common value on other logs; the value other logs give the
    event's verb; another log's window with the same verbs."""

    kind = "roles"

    def details(self, item: dict, reply: str | None) -> dict:
        pred = parse_events(reply) if reply else {}
        roles = []
        for k, ev in enumerate(item["answer"]["events"], start=1):
            got = pred.get(k, {"roles": {}})["roles"]
            verb = ev["verbs_gt"][0] if ev["verbs_gt"] else ""
            roles += [[r, v, got.get(r, ""), verb, _other_values(ev, r, v), k]
                      for r, v in sorted(ev["roles"].items())]
        keys = annotator_keys(item["answer"]["events"])
        slots = {(k, r) for k, r, _ in (s for key in keys for s in key)} | {
            (s[5], s[0]) for s in roles}
        said = [[k, r, v] for k, got in sorted(pred.items())
                for r, v in sorted(got["roles"].items()) if (k, r) in slots]
        return {"roles": roles, "said": said, **({"keys": keys} if keys else {})}

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None:
        return {} if parse_events(reply) else None

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]:
        return {}

    def corpus(self) -> dict[str, CorpusMetric]:
        return {"cider_d": cider_micro, "cider_d_arg": cider_by_argument,
                "cider_d_verb": cider_by_verb, "bleu1_args": corpus_text.role_bleu1,
                "bleu2_args": corpus_text.role_bleu2, "rouge_args": corpus_text.role_rouge,
                "meteor_args": corpus_text.role_meteor, "lea": corpus_coref.lea,
                "lea_soft": corpus_coref.lea_soft, "muc": corpus_coref.muc,
                "b3": corpus_coref.b_cubed, "ceafe": corpus_coref.ceafe}

    def blind(self) -> Sequence[Blind]:
        return (Blind("common_roles", "other logs' most common role values", _common_roles,
                      fit_roles),
                Blind("verb_role_prior", "the shown verbs; the roles other logs give them",
                      _verb_roles, fit_roles),
                Blind("verb_sequence_memory", "the shown verbs; the roles of another log's "
                      "window with the same verb sequence", _remembered_window,
                      fit_sequences), nearest_reference())


def _other_values(ev: dict, role: str, value: str) -> list[str]:
    """The other annotators' values of a slot, in annotator order, repeats kept (as VidSitu
    lists its annotators' values); annotators without the slot give none."""
    by = ev.get("roles_by_annotator")
    if by:
        values = [x[role] for x in by if x.get(role)]
        if values and values[0] == value:
            return values[1:]
        return values
    return [o[role] for o in ev.get("references", []) if o.get(role)]
