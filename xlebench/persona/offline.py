"""Deterministic procedural personas: traits, lifestyle, routine and hobbies from MBTI and place.

Each MBTI dimension shifts something concrete: E/I the share of social hobbies and evening
plans, S/N practical versus novel hobbies, T/F the trait vocabulary, J/P how early and how
regular the day is. Location supplies names, meal times, commuting and typical occupations.
"""

from __future__ import annotations

import random
from functools import lru_cache

from xlebench.library.taxonomy import load_taxonomy
from xlebench.persona.locations import facts_for
from xlebench.persona.profile import Persona, RoutineItem, persona_id
from xlebench.runner.rng import unit_random

TRAITS = {
    "E": ("outgoing", "talkative", "energetic"),
    "I": ("reflective", "reserved", "focused"),
    "S": ("practical", "observant", "down-to-earth"),
    "N": ("imaginative", "curious", "idea-driven"),
    "T": ("logical", "direct", "analytical"),
    "F": ("empathetic", "warm", "considerate"),
    "J": ("organised", "punctual", "decisive"),
    "P": ("spontaneous", "flexible", "easy-going"),
}

#: Which MBTI letters make a hobby scenario more likely (authored tendencies).
HOBBY_AFFINITY = {
    "Crafting/knitting/sewing/drawing/painting": "INF",
    "Practicing a musical instrument": "INF",
    "Carpenter": "ISTP",
    "Playing cards": "ESF",
    "Playing board games": "ENT",
    "Playing with pets": "SF",
    "Bike mechanic": "ISTP",
    "Walking the dog / pet": "SJ",
    "Reading books": "INTJ",
    "Playing games / video games": "ITP",
    "Listening to music": "IFP",
    "Cycling / jogging": "ESTJ",
    "Gardening": "ISFJ",
    "Hiking": "ESP",
    "Baker": "SFJ",
    "Working out at home": "ISTJ",
    "Working out outside": "ESTP",
    "Climbing": "ESTP",
    "Dancing": "EFP",
    "Going to the gym - exercise machine, class, weights": "ESTJ",
    "Yoga practice": "INFJ",
    "Visiting exhibition": "INF",
    "Tourism": "ENP",
    "Assembling a puzzle": "INTJ",
}


def _weighted(rng: random.Random, items: list, weights: list[float]):
    return rng.choices(items, weights=weights, k=1)[0]


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _shift(hhmm: str, minutes: int) -> str:
    h, m = map(int, hhmm.split(":"))
    total = (h * 60 + m + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


def _hobbies(rng: random.Random, mbti: str, k: int = 3) -> tuple[str, ...]:
    names = [s.name for s in load_taxonomy().hobbies()]
    weights = [1.0 + 2.0 * sum(ch in mbti for ch in HOBBY_AFFINITY.get(n, "")) for n in names]
    chosen: list[str] = []
    while len(chosen) < k and names:
        pick = _weighted(rng, names, weights)
        idx = names.index(pick)
        names.pop(idx)
        weights.pop(idx)
        chosen.append(pick)
    return tuple(chosen)


def _schedule(rng: random.Random, location: str, mbti: str, work_scenario: str) -> dict:
    facts = facts_for(location)
    early = -20 if mbti[3] == "J" else 25
    wake = _shift(facts.wake, early + rng.choice((-15, 0, 0, 15)))
    sleep = _shift("22:30", (45 if mbti[3] == "P" else 0) + (30 if mbti[0] == "E" else 0))
    return {
        "wake": wake,
        "breakfast": _shift(wake, 30),
        "work_start": _shift(wake, 120 + rng.choice((0, 15, 30))),
        "lunch": facts.lunch,
        "work_end": _shift(facts.lunch, 270 + rng.choice((0, 30, 60))),
        "dinner": facts.dinner,
        "sleep": sleep,
        "commute": facts.commute[0] if mbti[1] == "S" else rng.choice(facts.commute),
        "work_scenario": work_scenario,
        "meal_out": facts.meal_out,
        "social_evenings": mbti[0] == "E",
    }


def _routine(s: dict, occupation: str, hobbies: tuple[str, ...]) -> tuple[RoutineItem, ...]:
    first_hobby = load_taxonomy().get(hobbies[0]) if hobbies else None
    hobby_text = first_hobby.plan[0] if first_hobby else "relax"
    return (
        RoutineItem(s["wake"], "wake up and get ready"),
        RoutineItem(s["breakfast"], "breakfast"),
        RoutineItem(s["work_start"], f"start the day's work as {occupation}"),
        RoutineItem(s["lunch"], "lunch"),
        RoutineItem(s["work_end"], "finish work"),
        RoutineItem(_shift(s["work_end"], 45), hobby_text),
        RoutineItem(s["dinner"], "dinner"),
        RoutineItem(s["sleep"], "go to bed"),
    )


def _full_name(rng: random.Random, location: str, mbti: str, seed: int, member: int,
               first: str) -> str:
    """A grid cell's ``member``-th further persona's full name: its drawn first name and a
    family name, the first pair (in its seed's order) no earlier member of the cell has."""
    facts = facts_for(location)
    taken = {_member_name(location, mbti, seed, k) for k in range(member)}
    firsts = [first, *sorted(set(facts.names) - {first}, key=lambda _: rng.random())]
    families = sorted(facts.families, key=lambda _: rng.random())
    for given in firsts:
        for family in families:
            if f"{given} {family}" not in taken:
                return f"{given} {family}"
    return f"{first} {families[0]} {member}"  # more members than name pairs


@lru_cache(maxsize=4096)
def _member_name(location: str, mbti: str, seed: int, member: int) -> str:
    """A cell member's name, each member's computed once: the members before it decide it."""
    return generate_persona(location, mbti, seed, member=member).name


def generate_persona(location: str, mbti: str, seed: int, occupation: str | None = None,
                     work_scenario: str | None = None, member: int = 0) -> Persona:
    """A complete persona that depends only on (location, mbti, seed, member); a hand-written
    persona's ``occupation`` (and the work scenario it implies) replaces the drawn one
    everywhere it is said — lifestyle, routine, age — with every other draw unchanged.

    ``member`` > 0 is a further persona of the same grid cell (``persona.per_cell``): draws of
    its own seed, and a full name no earlier member of the cell has (a household of its
    own); member 0 is the cell's one persona, byte for byte."""
    rng = unit_random(seed, "persona", location, mbti, *([f"member{member}"] if member else []))
    facts = facts_for(location)
    title, drawn_scenario, _ = _weighted(
        rng, list(facts.occupations), [w for _, _, w in facts.occupations]
    )
    title = occupation or title
    work_scenario = work_scenario or drawn_scenario
    traits = tuple(rng.choice(TRAITS[ch]) for ch in mbti)
    hobbies = _hobbies(rng, mbti)
    schedule = _schedule(rng, location, mbti, work_scenario)
    pace = "keeps a regular, planned schedule" if mbti[3] == "J" else "lets the day unfold"
    social = "seeks out company" if mbti[0] == "E" else "recharges with quiet time alone"
    name = rng.choice(facts.names)
    if member:
        name = _full_name(rng, location, mbti, seed, member, name)
    return Persona(
        persona_id=persona_id(location, mbti, seed, member),
        location=location,
        mbti=mbti,
        name=name,
        age=rng.randint(20, 58) if title != "university student" else rng.randint(18, 25),
        occupation=title,
        traits=traits,
        lifestyle=f"{_article(title).capitalize()} {title} in {location} who {pace} and {social}.",
        daily_routine=_routine(schedule, title, hobbies),
        hobbies=hobbies,
        source="offline",
        schedule=schedule,
    )
