"""NLQ queries and moment labels for one synthetic video, grounded in its events.

Every NLQ window and moment interval points at narrated activity, as in real Ego4D; the query's
annotator did not read the narration, so object names and verbs are often their own.
"""

from __future__ import annotations

import random
import re

from xlebench.library.ego4d_facts import NLQ_TEMPLATES
from xlebench.library.language import (
    at_place,
    base_form,
    past,
    plural,
)
from xlebench.library.synthetic_text import Event, locative
from xlebench.library.taxonomy import Scenario, load_object_aliases
from xlebench.library.verbs import load_verbs


def _openable() -> frozenset[str]:
    """Objects C can open (the actions table's objects of "opens")."""
    return frozenset(load_verbs()["opens"].objects)


def _named(obj: str, rng: random.Random, share: float = 0.6) -> str:
    """The object as the query's annotator calls it: often not the narrator's word."""
    aliases = load_object_aliases().get(obj, ())
    return rng.choice(aliases) if aliases and rng.random() < share else obj


def _query_for(template: str, ev: Event, rng: random.Random) -> tuple[str, str, str]:
    """(query text, slot_x, verb_x) for one template grounded on one event. The query's
    annotator did not read the narration: object names and verbs are their own."""
    b = base_form(ev.verb)
    obj, place = _named(ev.obj, rng), ev.place
    act = rng.choice(("use", "touch", "move", b))
    texts = {
        NLQ_TEMPLATES[0]: f"Where was the {obj} before I {past(act)} it?",
        NLQ_TEMPLATES[1]: rng.choice((f"Where is the {obj}?", f"Where was the {obj}?")),
        NLQ_TEMPLATES[2]: f"What did I put {locative(place, 'on')}?",
        NLQ_TEMPLATES[3]: f"How many {plural(obj)} were there?",
        NLQ_TEMPLATES[4]: f"What did I {act} {at_place(place)}?",
        NLQ_TEMPLATES[5]: f"In what location did I see the {obj}?",
        NLQ_TEMPLATES[6]: f"What colour is the {obj}?",
        NLQ_TEMPLATES[7]: (f"Was the {obj} open or closed?" if ev.obj in _openable()
                           else f"What was the state of the {obj}?"),
        NLQ_TEMPLATES[8]: f"Where is my {obj}?",
        NLQ_TEMPLATES[9]: f"Where did I leave the {obj}?",
        NLQ_TEMPLATES[10]: f"Who was with me when I had the {obj}?",
        NLQ_TEMPLATES[11]: f"Who did I talk to {at_place(place)}?",
        NLQ_TEMPLATES[12]: f"When did I talk to the {ev.actor.split()[0]}?",
    }
    return texts[template], obj, act


def nlq_queries(
    rng: random.Random, events: list[Event], clip: tuple[float, float], quirk_rate: float,
    val: bool,
) -> list[dict]:
    """Language queries grounded on events inside one clip (times as in the real files)."""
    start, end = clip
    # Object queries ask about what C handled; people queries about someone else's moments.
    inside = [e for e in events if start + 1.0 <= e.t <= end - 1.0 and (e.obj or e.actor != "C")]
    if not inside:
        return []
    # an act C repeats (the onion chopped ten times) is one thing to ask about, as one
    # moment of someone else is: each query picks an act, then one time it happens
    acts: dict[tuple, list[Event]] = {}
    for e in inside:
        acts.setdefault((e.actor, e.verb, e.particle, e.obj, e.frame), []).append(e)
    kinds = list(acts.values())
    queries = []
    for _ in range(rng.randint(2, 5)):
        ev = rng.choice(rng.choice(kinds))
        people = ev.actor != "C"
        pool = (NLQ_TEMPLATES[10 if ev.obj else 11:] if people else NLQ_TEMPLATES[:10])
        template = rng.choice(pool)
        text, slot_x, verb_x = _query_for(template, ev, rng)
        c_start = max(0.0, ev.t - start - rng.uniform(0.5, 4.0))
        c_end = min(end - start, ev.t - start + rng.uniform(1.0, 6.0))
        if rng.random() < quirk_rate:
            c_end = c_start  # a zero-length window, as some real ones are
        queries.append(_language_query(rng, template, text, slot_x, verb_x, start, c_start,
                                       c_end, quirk_rate, val))
    return queries


def _language_query(rng, template, text, slot_x, verb_x, clip_off, c_start, c_end,
                    quirk_rate, val) -> dict:
    q: dict = {
        "clip_start_sec": round(c_start, 5), "clip_end_sec": round(c_end, 5),
        "video_start_sec": round(clip_off + c_start, 5),
        "video_end_sec": round(clip_off + c_end, 5),
        "video_start_frame": int(round((clip_off + c_start) * 30)),
        "video_end_frame": int(round((clip_off + c_end) * 30)),
        "template": template, "query": text, "slot_x": slot_x, "verb_x": verb_x,
        "slot_y": None, "verb_y": None, "raw_tags": [template, text, slot_x, verb_x],
    }
    r = rng.random()
    if r < quirk_rate:
        q.pop("query") if rng.random() < 0.5 else q.__setitem__("query", "")
    elif r < 2 * quirk_rate or (val and r < 0.1):
        q["query"] = "Query Text: " + text
    elif r < 3 * quirk_rate:
        q["query"] = text.replace("I ", "i ") + " \n\n"
    elif r < 4 * quirk_rate:
        q["template"] = None
    return q


#: Words of moment labels that say nothing about what is seen.
_LABEL_STOP = frozenset("a an the or of and with using while in on out to other etc "
                        "someone something item items your their".split())


def label_keywords(label: str) -> frozenset[str]:
    """``cut_/_chop_/_slice_a_vegetable,_fruit,_or_meat`` -> {cut, chop, slice, vegetable,
    fruit, meat} (singular)."""
    words = re.findall(r"[a-z]+", label.lower())
    return frozenset(_singular(w) for w in words if w not in _LABEL_STOP and len(w) > 2)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("shes", "ches", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _shows(ev: Event, keywords: frozenset[str]) -> bool:
    """Does the narrated event show the labelled activity (its verb or object named)?"""
    if ev.actor != "C":
        return bool(keywords & {"converse", "interact", "talk"})
    return base_form(ev.verb) in keywords or bool(
        {_singular(w) for w in ev.obj.split()} & keywords)


def moment_labels(
    rng: random.Random, scenario: Scenario, events: list[Event], clip: tuple[float, float],
) -> list[dict]:
    """One annotator's moment labels inside a clip (clip-relative ``*_time`` fields).

    A label is only put where the narrations show its activity, and it spans the run of
    narrated events that show it (real moments last from seconds to minutes)."""
    start, end = clip
    inside = [e for e in events if start <= e.t <= end - 2.0]
    pairs = [(k, lab) for lab in scenario.moments for k, ev in enumerate(inside)
             if _shows(ev, label_keywords(lab))]
    labels = []
    for _ in range(min(len(pairs), rng.randint(2, 5))):
        k, label = rng.choice(pairs)
        first, last = _run(inside, k, label_keywords(label))
        s = max(0.0, inside[first].t - start - rng.uniform(0.5, 3.0))
        e = min(end - start, max(inside[last].t - start + rng.uniform(2.0, 8.0), s + 3.0))
        labels.append({
            "start_time": round(s, 5), "end_time": round(e, 5),
            "video_start_time": round(start + s, 5), "video_end_time": round(start + e, 5),
            "video_start_frame": int(round((start + s) * 30)),
            "video_end_frame": int(round((start + e) * 30)),
            "label": f'"{label}"' if "," in label else label,
            "primary": rng.random() < 0.7,
        })
    return labels


def _run(events: list[Event], k: int, keywords: frozenset[str], gap_s: float = 25.0
         ) -> tuple[int, int]:
    """The events around ``k`` that show the same activity with no gap longer than gap_s."""
    first = last = k
    for j in range(k - 1, -1, -1):
        if events[first].t - events[j].t > gap_s:
            break
        if _shows(events[j], keywords):
            first = j
    for j in range(k + 1, len(events)):
        if events[j].t - events[last].t > gap_s:
            break
        if _shows(events[j], keywords):
            last = j
    return first, last
