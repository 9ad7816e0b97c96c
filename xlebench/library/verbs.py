"""What a scenario's verbs can act on (``xlebench/data/actions.yaml``), for narrations that
read as Ego4D's: "C cuts the onion with the knife on the counter", never "C fries the board".

A verb of a scenario pairs with the objects its entry lists that the scenario has (its
objects and places); where it has none of them, with the listed objects no scenario owns
(floor, teeth, note...); instruments likewise. A verb with no such object speaks through its
intransitive frames ("walks around the {place}"), and a verb with neither is left out of that
scenario's narrations.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from xlebench.library.taxonomy import Scenario, load_taxonomy


@dataclass(frozen=True)
class VerbSpec:
    verb: str  # third person singular, as the taxonomy writes it ("cuts")
    objects: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    particle: str = ""
    at: str = ""  # preposition before a place; "" chooses by the place
    frames: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    """One way a verb is used in one scenario: its objects and instruments there."""

    spec: VerbSpec
    objects: tuple[str, ...]
    tools: tuple[str, ...]


@cache
def load_verbs() -> dict[str, VerbSpec]:
    text = resources.files("xlebench").joinpath("data/actions.yaml").read_text("utf-8")
    out = {}
    for verb, row in (yaml.safe_load(text) or {})["verbs"].items():
        row = row or {}
        out[verb] = VerbSpec(verb, tuple(row.get("objects", ())), tuple(row.get("with", ())),
                             str(row.get("particle", "") or ""), str(row.get("at", "") or ""),
                             tuple(row.get("frames", ())))
    return out


@cache
def owned_objects() -> frozenset[str]:
    """Objects and places some scenario of the taxonomy has: the rest are generic."""
    return frozenset(w for s in load_taxonomy().scenarios for w in (*s.objects, *s.places))


def _available(listed: tuple[str, ...], scenario: Scenario) -> tuple[str, ...]:
    own = set(scenario.objects) | set(scenario.places)
    mine = tuple(w for w in listed if w in own)
    return mine or tuple(w for w in listed if w not in owned_objects())


_CHOICES: dict[str, tuple[Choice, ...]] = {}


def choices(scenario: Scenario) -> tuple[Choice, ...]:
    """The scenario's verbs with what each can act on there (verbs with neither an object
    nor a frame are left out); computed once per scenario."""
    if scenario.name not in _CHOICES:
        _CHOICES[scenario.name] = _choices(scenario)
    return _CHOICES[scenario.name]


def _choices(scenario: Scenario) -> tuple[Choice, ...]:
    verbs = load_verbs()
    out = []
    for v in scenario.verbs:
        spec = verbs.get(v)
        if spec is None:
            raise KeyError(f"xlebench/data/actions.yaml has no entry for verb {v!r} "
                           f"(scenario {scenario.short})")
        objects, tools = _available(spec.objects, scenario), _available(spec.tools, scenario)
        if objects or spec.frames:
            out.append(Choice(spec, objects, tools))
    return tuple(out)
