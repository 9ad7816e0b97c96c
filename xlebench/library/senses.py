"""Verb senses, each with its own role set (VidSitu annotates PropBank-style senses: a verb's
roles are its sense's, row 85 of the seeds' checklist).

The table is derived from PropBank's frame files (``xlebench/data/propbank_senses.json.gz``,
by ``scripts/derive_propbank_senses.py``; its source, commit and licence are in the file):
every lemma PropBank has a frame file for (6332), each verb roleset with its numbered roles
and their descriptions — a real Ego4D library's narrations use far more verbs than the
synthetic ones (``drop``, ``stand``, ``shake``).

How a narration verb gets its sense (the choice rule, `sense_of`): the sense chosen for it by
hand in ``xlebench/data/verb_sense_choices.yaml`` — reviewed for the verbs of Ego4D's verb
taxonomy whose lemma's first roleset is not the physical act a first-person narration means
("C jumps" is ``jump.03``, not ``jump.01`` "stock prices, increase"; "C runs" ``run.02``;
phrasal verbs whose first phrasal roleset is another sense: ``put_down.15`` is "insult") —
else its lemma's first roleset that has an Arg0 (a narration says what someone does: "C dips
the bread" is ``dip.02``, not ``dip.01`` "fall slightly, no agent"), else its lemma's first
roleset. A verb whose lemma has no frame file, or chosen as none, has no sense, and keeps
the one role tuple every verb had before (counted in ``stats/tasks.json``).

A sense per narration (`sense_in`): VidSitu's annotators pick a sense per event, and "C
strikes the ball" and "C strikes a pose" are two senses, "C fixes the bike" and "C fixes
breakfast" two more. Where the verb's lemma has several rolesets with an Arg0, the narration
is compared (MiniLM cosine) with each roleset read as a sentence — its Arg0 doing the verb to
its Arg1, then its name ("repairer fixes thing repaired: repair") — and the nearest is taken,
the reviewed (or rule) choice above preferred by `PRIOR_MARGIN`. Measured against 253
narrations of 43 such verbs labelled by hand (``tests/library/narration_senses.jsonl``):
see `tests/library/test_senses.py::test_a_sense_per_narration_agrees_with_the_hand_labels`.

How roles follow the sense (`sense_roles`): the narration's actor takes the role the sense
gives the one who does it — Arg0, or Arg1 where the sense has no Arg0 (``sit.01``: "thing
sitting") or where the narration names no object and the sense's Arg0 is an outside cause
(``stand.01``: Arg0 "causal agent", Arg1 "thing standing"); the object is Arg1 where the
sense defines one that the actor does not take. The rule parser's Arg2 is an instrument
("with the knife") or a recipient ("to man X"); it is kept where the sense's Arg2 is
described as one (``give.01``: "entity given to"), and dropped where the sense numbers its
instrument otherwise (``cut.01``: Arg2 "medium, source", the instrument Arg3, which VidSitu
does not score). ALoc and AScn are modifiers, every sense's.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from xlebench.library.language import base_form

#: A reply may name a sense outright: ``cut.01``, ``pick_up.04``.
SENSE_ID = re.compile(r"^[a-z]+(?:_[a-z]+)*\.\d{2}$")
#: How PropBank describes an instrument or a recipient (the rule parser's Arg2).
ARG2_KINDS = re.compile(r"instrument|recipient|given to|to whom|hearer|listener|tool|"
                        r"utensil|implement|benefactive|goal|destination", re.IGNORECASE)
MODIFIERS = ("ALoc", "AScn")


@dataclass(frozen=True)
class Sense:
    id: str
    name: str
    roles: dict[str, str]  # Arg0 -> "intentional cutter", ...


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    """The derived PropBank table (lemma -> rolesets), with its source and licence."""
    data = resources.files("xlebench.data").joinpath("propbank_senses.json.gz").read_bytes()
    return json.loads(gzip.decompress(data))


@lru_cache(maxsize=1)
def choices() -> dict[str, str | None]:
    """Narration verb -> the sense chosen for it by hand (None: no sense fits)."""
    text = resources.files("xlebench.data").joinpath("verb_sense_choices.yaml").read_text("utf-8")
    return dict(yaml.safe_load(text) or {})


def roleset(sense_id: str) -> dict | None:
    """The table's roleset of a sense id (``cut.01``), or None."""
    lemma = sense_id.split(".")[0].split("_")[0]
    return next((r for r in table()["lemmas"].get(lemma, []) if r["id"] == sense_id), None)


@lru_cache(maxsize=4096)
def sense_of(verb: str) -> Sense | None:
    """The sense of a narration verb ("cut", "pick up", "cuts"), or None (the module's
    choice rule)."""
    words = verb.lower().split()
    if not words:
        return None
    lemma = words[0] if words[0] in table()["lemmas"] else base_form(words[0])
    key = " ".join([lemma, *words[1:]])
    if key in choices():
        chosen = roleset(choices()[key] or "")
    else:
        own = [r for r in table()["lemmas"].get(lemma) or [] if r["id"].startswith(f"{lemma}.")]
        chosen = next((r for r in own if "Arg0" in r["roles"]), own[0] if own else None)
    if chosen is None:
        return None
    return Sense(chosen["id"], chosen["name"], dict(chosen["roles"]))


#: How much nearer than the reviewed (or rule) choice another roleset must read to the
#: narration to be taken instead (cosine).
PRIOR_MARGIN = 0.05


def _agentive(lemma: str) -> list[dict]:
    """The lemma's own (non-phrasal) rolesets that have someone doing it (an Arg0)."""
    return [r for r in table()["lemmas"].get(lemma) or []
            if r["id"].startswith(f"{lemma}.") and "Arg0" in r["roles"]]


def _gloss(r: dict, lemma: str) -> str:
    """A roleset read as a sentence: its Arg0 doing the verb to its Arg1, then its name."""
    return f"{r['roles']['Arg0']} {lemma}s {r['roles'].get('Arg1', 'something')}: {r['name']}"


@lru_cache(maxsize=1)
def _minilm() -> Any:
    """MiniLM, loaded on the first narration whose sense is chosen (about a second)."""
    from xlebench.library.embed import MiniLMEmbedder

    return MiniLMEmbedder()


def _unit_vectors(texts: list[str]) -> Any:
    import numpy as np

    vecs = np.asarray(_minilm().encode(texts), dtype=np.float64)
    return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)


@lru_cache(maxsize=512)
def _glosses(lemma: str) -> tuple[list[dict], Any]:
    own = _agentive(lemma)
    return own, _unit_vectors([_gloss(r, lemma) for r in own])


#: Narration vectors kept per process (`senses_in`), by text.
_SEEN: dict[str, Any] = {}
SEEN_KEPT = 1 << 17


def sense_in(verb: str, narration: str) -> Sense | None:
    """The sense of a narration verb in its narration (`senses_in` of one)."""
    return senses_in([(verb, narration)])[0]


def senses_in(pairs: Sequence[tuple[str, str]]) -> list[Sense | None]:
    """The sense of each narration verb in its narration (the module's rule): `sense_of`'s
    choice, unless another of the lemma's agentive rolesets reads nearer the narration by
    more than `PRIOR_MARGIN`. Phrasal verbs, and verbs whose choice is none, keep
    `sense_of`'s. The narrations still to read are encoded in one pass."""
    priors = [sense_of(verb) for verb, _ in pairs]
    open_ = [k for k, (verb, _) in enumerate(pairs) if _ambiguous(verb, priors[k])]
    todo = sorted({pairs[k][1] for k in open_} - set(_SEEN))
    if todo:
        if len(_SEEN) + len(todo) > SEEN_KEPT:
            _SEEN.clear()
        _SEEN.update(zip(todo, _unit_vectors(todo), strict=True))
    out = list(priors)
    for k in open_:
        out[k] = _nearest(priors[k], _SEEN[pairs[k][1]])
    return out


def _ambiguous(verb: str, prior: Sense | None) -> bool:
    """Whether a verb's sense is chosen per narration: one word, a sense, and a lemma with
    several agentive rolesets."""
    if prior is None or " " in verb.strip() or "_" in prior.id:
        return False
    return len(_agentive(prior.id.split(".")[0])) > 1


def _nearest(prior: Sense, vec: Any) -> Sense:
    own, vecs = _glosses(prior.id.split(".")[0])
    sims = [float(v) for v in vecs @ vec]
    best = prior.id
    value = max((v for r, v in zip(own, sims, strict=True) if r["id"] == prior.id),
                default=-1.0) + PRIOR_MARGIN
    for r, v in zip(own, sims, strict=True):
        if v > value + 1e-9:
            best, value = r["id"], v
    chosen = roleset(best)
    return prior if chosen is None else Sense(chosen["id"], chosen["name"],
                                              dict(chosen["roles"]))


#: An Arg0 that is an outside cause, not the one who moves ("causal agent", "causer of
#: trembling motion", "outside agent"): an intransitive narration's actor is its Arg1.
CAUSER = re.compile(r"\bcaus|outside agent", re.IGNORECASE)


def actor_role(sense: Sense, has_object: bool) -> str | None:
    """The role a narration's actor takes in its verb's sense (the module's rule), or None
    where the sense has none free for it."""
    a0, a1 = sense.roles.get("Arg0"), "Arg1" in sense.roles
    if a0 is not None and (has_object or not a1 or not CAUSER.search(a0)):
        return "Arg0"
    return "Arg1" if a1 and not has_object else None


def verb_key(verb: str) -> str:
    """What a verb is compared by: its sense where it has one (a sense id as given), else
    the verb itself."""
    v = verb.strip().lower()
    if SENSE_ID.match(v):
        return v
    sense = sense_of(v)
    return sense.id if sense else v


def sense_roles(sense: Sense | None, roles: dict[str, str]) -> dict[str, str]:
    """The roles of an event that its sense has (see the module's docstring); all of them
    where the verb has no sense. ``roles`` are the rule parser's: Arg0 the actor, Arg1 the
    object."""
    if sense is None:
        return dict(roles)
    keep = {}
    actor = actor_role(sense, "Arg1" in roles) if "Arg0" in roles else None
    if actor is not None:
        keep[actor] = roles["Arg0"]
    for role, value in roles.items():
        if role in MODIFIERS or (role == "Arg1" and "Arg1" in sense.roles and actor != "Arg1") \
                or (role == "Arg2" and ARG2_KINDS.search(sense.roles.get("Arg2", ""))):
            keep[role] = value
    return keep


def loses_actor(sense: Sense | None, roles: dict[str, str]) -> bool:
    """Whether a parsed narration's actor has no role in its verb's sense."""
    return "Arg0" in roles and sense is not None and actor_role(sense, "Arg1" in roles) is None
