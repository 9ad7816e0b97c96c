"""Verb senses, each with its own role set (VidSitu annotates PropBank-style senses: a verb's
roles are its sense's, row 85 of the seeds' checklist).

The table is derived from PropBank's frame files (``xlebench/data/propbank_senses.json``,
by ``scripts/derive_propbank_senses.py``; its source, commit and licence are in the file): for
every lemma the narrations use, each roleset with its numbered roles and their descriptions.

How a narration verb gets its sense: the sense chosen for it by hand in
``xlebench/data/verb_sense_choices.yaml`` (phrasal verbs whose first phrasal roleset is another
sense: ``put_down.15`` is "insult", so "put down" takes ``put.01``), else its lemma's first
roleset (``cut.01``, PropBank's most frequent sense by its numbering; "looks at" ->
``look.01``). A verb whose lemma has no frame file has no sense, and keeps the one role tuple
every verb had before (counted in ``stats/tasks.json``).

How roles follow the sense: Arg0 and Arg1 are kept where the sense defines them. The rule
parser's Arg2 is an instrument ("with the knife") or a recipient ("to man X"); it is kept
where the sense's Arg2 is described as one (``give.01``: "entity given to"), and dropped
where the sense numbers its instrument otherwise (``cut.01``: Arg2 "medium, source", the
instrument Arg3, which VidSitu does not score). ALoc and AScn are modifiers, every sense's.
"""

from __future__ import annotations

import json
import re
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
    text = resources.files("xlebench.data").joinpath("propbank_senses.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def choices() -> dict[str, str]:
    """Narration verb -> the sense chosen for it by hand."""
    text = resources.files("xlebench.data").joinpath("verb_sense_choices.yaml").read_text("utf-8")
    return dict(yaml.safe_load(text) or {})


def roleset(sense_id: str) -> dict | None:
    """The table's roleset of a sense id (``cut.01``), or None."""
    lemma = sense_id.split(".")[0].split("_")[0]
    return next((r for r in table()["lemmas"].get(lemma, []) if r["id"] == sense_id), None)


@lru_cache(maxsize=4096)
def sense_of(verb: str) -> Sense | None:
    """The sense of a narration verb ("cut", "pick up", "cuts"), or None."""
    words = verb.lower().split()
    if not words:
        return None
    lemma = words[0] if words[0] in table()["lemmas"] else base_form(words[0])
    chosen = roleset(choices().get(" ".join([lemma, *words[1:]]), ""))
    sets = table()["lemmas"].get(lemma) or []
    chosen = chosen or next((r for r in sets if r["id"].startswith(f"{lemma}.")), None)
    if chosen is None:
        return None
    return Sense(chosen["id"], chosen["name"], dict(chosen["roles"]))


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
    where the verb has no sense."""
    if sense is None:
        return dict(roles)
    keep = {}
    for role, value in roles.items():
        if role in MODIFIERS or (role in ("Arg0", "Arg1") and role in sense.roles) or (
                role == "Arg2" and ARG2_KINDS.search(sense.roles.get("Arg2", ""))):
            keep[role] = value
    return keep
