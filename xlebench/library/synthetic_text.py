"""Narrations and clip summaries for one synthetic video (its NLQ queries and moments:
`xlebench.library.synthetic_queries`).

Everything is grounded in one list of events (time, actor, verb, object, place) drawn from
the video's scenarios, so that summaries describe what the narrations say and every NLQ
window and moment interval points at narrated activity, as in real Ego4D.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace

from xlebench.library.language import (
    at_place,
    base_form,
    gerund,
    join_and,
    past,
    third_person,
)
from xlebench.library.taxonomy import Scenario
from xlebench.library.verbs import Choice, choices

#: Cues a heuristic labeller can pick up (and real narrations sometimes contain).
TIME_CUES = {
    "nighttime": ("switches on the light", "closes the curtains", "turns on the lamp"),
    "twilight": ("looks at the sunset", "switches on the porch light"),
    "daytime": ("opens the window blinds", "puts on sunglasses"),
}
SCENE_CUES = {
    "outdoor": ("walks along the path outside", "looks at the sky"),
    "mixed": ("opens the front door and steps outside", "walks back into the building"),
    "indoor": ("closes the room door", "walks across the room"),
}


@dataclass(frozen=True)
class Event:
    """One narrated moment: who did what to what, with what and where. ``obj`` is empty for
    an intransitive event, whose words are ``frame`` ("walks around the kitchen")."""

    t: float
    actor: str  # "C" or a role such as "man X" / "woman Y"
    verb: str  # third person, e.g. "picks"
    obj: str
    place: str
    scenario: str
    particle: str = ""  # "picks up"
    tool: str = ""  # "with the knife"
    where: str = ""  # "on the counter" (the place phrase, when the narration names one)
    frame: str = ""  # an intransitive predicate, fully written

    def predicate(self, form: str = "3sg") -> str:
        """What the actor did, with the verb in ``form``: ``3sg`` (narrations, "cuts"),
        ``past`` (clip summaries, "cut"), ``ing`` ("cutting") or ``base`` ("cut")."""
        words = (self.frame or " ".join(w for w in (
            self.verb, self.particle, f"the {self.obj}" if self.obj else "",
            f"with the {self.tool}" if self.tool else "", self.where) if w)).split()
        base = base_form(words[0])
        head = {"3sg": words[0], "past": past(base), "ing": gerund(base), "base": base}[form]
        return " ".join([head, *words[1:]])

    def text(self) -> str:
        if self.actor == "C":
            return f"#C C {self.predicate()}"
        return f"#O {self.actor} {self.predicate()}"


def _mode(values: list[str]) -> str:
    """Most frequent value; ties go to the first seen (never to set iteration order)."""
    return Counter(values).most_common(1)[0][0]


def locative(place: str, at: str) -> str:
    """``on the counter``, ``to the kitchen``: the verb's own preposition where it fits the
    place, else ``in the kitchen`` / ``at the desk``."""
    where = at_place(place)
    if at and (at == "to" or not where.startswith("in ")):
        return f"{at} the {place}"
    return where


def _cue(t: float, cue: str, place: str, scenario: str) -> Event:
    verb, rest = cue.split(" ", 1)
    return Event(t, "C", verb, "", place, scenario, frame=f"{verb} {rest}")


def _frame_event(rng: random.Random, t: float, actor: str, choice: Choice, s: Scenario
                 ) -> Event:
    place = rng.choice(s.places)
    person = rng.choice(("man X", "woman X", "man Y", "woman Y")) if actor == "C" else "C"
    frame = rng.choice(choice.spec.frames)
    if "{obj}" in frame:
        if not choice.objects:
            frame = next((f for f in choice.spec.frames if "{obj}" not in f), "")
            if not frame:
                return _act_event(rng, t, actor, choice, s)
        obj = rng.choice(choice.objects) if choice.objects else ""
        frame = frame.replace("{obj}", obj)
    return Event(t, actor, choice.spec.verb, "", place, s.name,
                 frame=frame.replace("{where}", at_place(place)).replace("{place}", place)
                 .replace("{person}", person))


def _act_event(rng: random.Random, t: float, actor: str, choice: Choice, s: Scenario,
               purpose: dict[str, Choice] | None = None) -> Event:
    """One act on an object. C's uses of an object follow its one use in this video
    (``purpose``, shared with `_episode`): the first use C makes of it is the one it keeps."""
    place = rng.choice(s.places)
    obj = rng.choice(choice.objects)
    if purpose is not None and actor == "C" and choice.spec.verb not in NOT_USES:
        choice = purpose.setdefault(f"{s.name}|{obj}", choice)
    tools = [x for x in choice.tools if x != obj]
    tool = rng.choice(tools) if tools and rng.random() < 0.3 else ""
    where = "" if place == obj or rng.random() >= 0.35 else locative(place, choice.spec.at)
    return Event(t, actor, choice.spec.verb, obj, place, s.name, particle=choice.spec.particle,
                 tool=tool, where=where)


def _event(rng: random.Random, t: float, actor: str, s: Scenario,
           purpose: dict[str, Choice] | None = None) -> Event:
    choice = rng.choice(choices(s))
    if not choice.objects or (choice.spec.frames and rng.random() < 0.25):
        return _frame_event(rng, t, actor, choice, s)
    return _act_event(rng, t, actor, choice, s, purpose)


#: The share of C's acts that start a handling episode: C picks something up and uses it
#: ("C picks up the knife", "C cuts the onion with the knife"), as Ego4D's narrations run;
#: without them an object's acts are drawn apart, and few objects are picked up for a use or
#: changed in one way only.
EPISODE = 0.08
#: Verbs that pick something up, and verbs that take, move or merely touch a thing: the use
#: an episode ends in is none of them.
PICKS = ("picks", "takes", "grabs", "lifts")
NOT_USES = frozenset("""picks takes grabs lifts puts places carries drops moves removes holds
hangs throws passes hands collects brings gets raises lowers looks watches checks touches
arranges compares""".split())
_HANDLING: dict[str, tuple[tuple[Choice, str, tuple[Choice, ...]], ...]] = {}


def handling(s: Scenario) -> tuple[tuple[Choice, str, tuple[Choice, ...]], ...]:
    """(a pick-up, its object, the scenario's uses of that object) for every object the
    scenario can pick up and use (computed once per scenario)."""
    if s.name not in _HANDLING:
        mine = choices(s)
        uses = [c for c in mine if c.spec.verb not in NOT_USES and c.objects]
        _HANDLING[s.name] = tuple(
            (pick, obj, found) for pick in mine if pick.spec.verb in PICKS
            for obj in pick.objects if (found := tuple(u for u in uses if obj in u.objects)))
    return _HANDLING[s.name]


def _episode(rng: random.Random, t: float, s: Scenario, purpose: dict[str, Choice]
             ) -> list[Event]:
    """C picks an object up and uses it once or twice in the next seconds; an object keeps
    one use per video (the onion of a cooking video is chopped, not also fried and peeled),
    so what C does to it, and what for, has one answer."""
    found = handling(s)
    if not found:
        return []
    pick, obj, uses = rng.choice(found)
    use = purpose.setdefault(f"{s.name}|{obj}", rng.choice(uses))
    place = rng.choice(s.places)
    out = [Event(round(t, 3), "C", pick.spec.verb, obj, place, s.name,
                 particle=pick.spec.particle)]
    for _ in range(rng.randint(1, 2)):
        t += rng.uniform(2.0, 9.0)
        tools = [x for x in use.tools if x != obj]
        tool = rng.choice(tools) if tools and rng.random() < 0.3 else ""
        out.append(Event(round(t, 3), "C", use.spec.verb, obj, place, s.name,
                         particle=use.spec.particle, tool=tool))
    return out


def make_events(
    rng: random.Random,
    scenarios: list[Scenario],
    duration: float,
    rate_per_min: float,
    time_period: str,
    scene: str,
) -> list[Event]:
    """Point events at Ego4D density; the first scenario dominates, the others come in runs."""
    mean_gap = 60.0 / rate_per_min
    t, events = rng.uniform(0.2, mean_gap), []
    current = scenarios[0]
    purpose: dict[str, Choice] = {}
    while t < duration - 0.5:
        if len(scenarios) > 1 and rng.random() < 0.02:
            current = rng.choice(scenarios)
        roll = rng.random()
        if roll < 0.012:
            cue = rng.choice(TIME_CUES.get(time_period, TIME_CUES["daytime"]))
            events.append(_cue(round(t, 3), cue, "room", current.name))
        elif roll < 0.024:
            events.append(_cue(round(t, 3), rng.choice(SCENE_CUES[scene]), "room",
                               current.name))
        else:
            actor = "C"
            if rng.random() < 0.1 and current.people:
                actor = rng.choice(("man X", "woman X", "man Y", "woman Y"))
            episode = (_episode(rng, t, current, purpose)
                       if actor == "C" and rng.random() < EPISODE else [])
            if episode:
                events += [e for e in episode if e.t < duration - 0.5]
                t = episode[-1].t
            else:
                events.append(_event(rng, round(t, 3), actor, current, purpose))
        t += rng.expovariate(1.0 / mean_gap)
    return events


def second_pass(rng: random.Random, events: list[Event]) -> list[Event]:
    """An independent annotator: same activity, own timing, some events missed or merged."""
    out = []
    for ev in events:
        if rng.random() < 0.15:
            continue
        out.append(replace(ev, t=round(max(0.0, ev.t + rng.gauss(0, 0.8)), 3)))
    return sorted(out, key=lambda e: e.t)


def summary_windows(rng: random.Random, duration: float) -> list[tuple[float, float]]:
    """Roughly 5-minute windows covering the video; never assume a fixed length."""
    windows, start = [], 0.0
    while start < duration - 1.0:
        end = min(duration, start + rng.uniform(285.0, 315.0))
        windows.append((round(start, 3), round(end, 3)))
        start = end
    return windows


def main_actions(events: list[Event], k: int = 3) -> list[Event]:
    """C's ``k`` most frequent distinct actions on objects (ties: the first seen), bare of
    instrument and place."""
    mine = [(e.verb, e.particle, e.obj) for e in events if e.actor == "C" and e.obj]
    counts = Counter(mine)
    first = {a: i for i, a in reversed(list(enumerate(mine)))}
    return [Event(0.0, "C", v, o, "", "", particle=p)
            for v, p, o in sorted(counts, key=lambda a: (-counts[a], first[a]))[:k]]


def _acts(actions: list[Event], form: str) -> str:
    return join_and([a.predicate(form) for a in actions])


def clip_summary(events: list[Event], scenario_of: dict[str, Scenario],
                 rng: random.Random | None = None) -> str:
    """``#summary`` + a few sentences in one of several styles, as Ego4D's annotators write
    them (past tense): the activity and the place, what C did to what, who was there."""
    rng = rng or random.Random(0)
    mine = [e for e in events if e.actor == "C"]
    acts = main_actions(events)
    if not mine or not acts:
        return "#summary C " + rng.choice(("moved around the room.", "walked about.",
                                           "was idle for a while."))
    lead = scenario_of[_mode([e.scenario for e in mine])]
    place = _mode([e.place for e in mine])
    activity = rng.choice(lead.plan) if lead.plan else lead.short.lower()
    where, here = at_place(place), _where(activity, place)
    body = rng.choice((
        [f"C {_past_phrase(activity)}{here}.", f"C {_acts(acts, 'past')}."],
        [f"C {_acts(acts, 'past')} {where}."],
        [f"{where.capitalize()}, C {_acts(acts[:2], 'past')}.",
         f"C {_past_phrase(activity)}."],
        [f"C was {_ing_phrase(activity)}{here}.", f"C {_acts(acts[:2], 'past')}."],
    ))
    people = sorted({e.actor for e in events if e.actor != "C"})
    if people:
        body.append(rng.choice((f"C talked with {people[0]}.",
                                f"C interacted with {people[0]}.",
                                f"{people[0][:1].upper()}{people[0][1:]} was with C.")))
    tag = rng.choice(("#summary", "#summary", "#Summary"))
    return " ".join([tag, *body])


def _where(activity: str, place: str) -> str:
    """`` in the kitchen`` after an activity, unless the activity names a place already."""
    words = activity.split()
    if place.split()[-1] in words or {"in", "at", "on"} & set(words[1:]):
        return ""
    return f" {at_place(place)}"


def _ing_phrase(plan: str) -> str:
    words = plan.split()
    return " ".join([gerund(words[0])] + words[1:])


def _past_phrase(plan: str) -> str:
    words = plan.split()
    return " ".join([past(words[0])] + words[1:])


def _3sg_phrase(plan: str) -> str:
    words = plan.split()
    return " ".join([third_person(words[0])] + words[1:])


def consolidated_summary(scenarios: list[Scenario], events: list[Event],
                         rng: random.Random | None = None) -> str:
    """The video-level one-sentence summary in the X-LeBench style ("C prepares a meal in the
    kitchen, chopping vegetables and stirring the pot."): present tense, the activity, the
    place and what C did to what, in one of several shapes."""
    rng = rng or random.Random(0)
    mine = [e for e in events if e.actor == "C"]
    acts = main_actions(events)
    lead = scenarios[0]
    activity = _3sg_phrase(rng.choice(lead.plan) if lead.plan else "records the day")
    if not acts:
        return f"C {activity}."
    place = _mode([e.place for e in mine])
    where, here = at_place(place), _where(activity, place)
    extra = ""
    if len(scenarios) > 1 and scenarios[1].plan:
        extra = f", then {_3sg_phrase(rng.choice(scenarios[1].plan))}"
    return rng.choice((
        f"C {activity}{here}, {_acts(acts[:2], 'ing')}{extra}.",
        f"C {_acts(acts, '3sg')} {where}{extra}.",
        f"{where.capitalize()}, C {_acts(acts[:2], '3sg')}{extra}.",
        f"C {activity}, {_acts(acts[:2], 'ing')}{here}{extra}.",
    ))


def ing_phrase(s: Scenario) -> str:
    """'cook dinner' -> 'cooking dinner' (the scenario's first plan phrase as a gerund)."""
    words = (s.plan[0] if s.plan else s.short.lower()).split()
    return " ".join([gerund(words[0])] + words[1:])
