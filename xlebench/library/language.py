"""Tiny English helpers for generated narrations, summaries and queries."""

from __future__ import annotations

_IRREGULAR = {"does": "do", "has": "have", "is": "be", "goes": "go", "lies": "lie"}
_GERUND_IRREGULAR = {"lie": "lying", "be": "being", "see": "seeing", "put": "putting",
                     "cut": "cutting", "shop": "shopping", "run": "running", "sit": "sitting",
                     "swim": "swimming", "dig": "digging", "chop": "chopping", "stir": "stirring",
                     "trim": "trimming", "grab": "grabbing", "clip": "clipping", "plan": "planning",
                     "drop": "dropping", "step": "stepping", "roll": "rolling", "tap": "tapping",
                     "hug": "hugging", "mop": "mopping", "clap": "clapping", "ride": "riding", "get": "getting", "jog": "jogging"}
_PAST_IRREGULAR = {"cut": "cut", "put": "put", "hold": "held", "take": "took", "ride": "rode",
                   "run": "ran", "throw": "threw", "eat": "ate", "drink": "drank", "sit": "sat",
                   "draw": "drew", "sweep": "swept", "lay": "laid", "buy": "bought",
                   "dig": "dug", "knit": "knitted", "sew": "sewed", "shake": "shook",
                   "hang": "hung", "fry": "fried", "pay": "paid", "sing": "sang",
                   "swim": "swam", "make": "made", "drive": "drove", "lie": "lay",
                   "climb": "climbed", "deal": "dealt", "fit": "fitted", "see": "saw",
                   "tie": "tied", "lift": "lifted", "shuffle": "shuffled", "bend": "bent",
                   "breathe": "breathed", "rake": "raked", "shape": "shaped", "serve": "served",
                   "stir": "stirred", "chop": "chopped", "mop": "mopped", "trim": "trimmed",
                   "grab": "grabbed", "clip": "clipped", "tap": "tapped", "roll": "rolled",
                   "step": "stepped", "clap": "clapped", "move": "moved", "tune": "tuned",
                   "place": "placed", "scrape": "scraped", "dance": "danced", "use": "used",
                   "pedal": "pedalled", "carry": "carried", "tidy": "tidied", "try": "tried",
                   "apply": "applied", "harvest": "harvested", "type": "typed", "rinse": "rinsed",
                   "close": "closed", "taste": "tasted", "raise": "raised", "gesture": "gestured",
                   "compare": "compared", "arrange": "arranged", "dice": "diced", "glue": "glued",
                   "smile": "smiled", "pose": "posed", "write": "wrote", "give": "gave",
                   "dress": "dressed", "wipe": "wiped", "replace": "replaced", "presses": "pressed",
                   "feed": "fed", "rise": "rose"}


def base_form(verb_3sg: str) -> str:
    """'washes' -> 'wash', 'picks' -> 'pick', 'fries' -> 'fry' (third person to base)."""
    v = verb_3sg.lower()
    if v in _IRREGULAR:
        return _IRREGULAR[v]
    if v.endswith("ies") and len(v) > 4:
        return v[:-3] + "y"
    if v.endswith(("sses", "shes", "ches", "xes", "zes")):
        return v[:-2]
    if v.endswith("s") and not v.endswith("ss"):
        return v[:-1]
    return v


def gerund(base: str) -> str:
    if base in _GERUND_IRREGULAR:
        return _GERUND_IRREGULAR[base]
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return base[:-1] + "ing"
    return base + "ing"


def past(base: str) -> str:
    if base in _PAST_IRREGULAR:
        return _PAST_IRREGULAR[base]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


def plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


_INSIDE = ("room", "kitchen", "office", "garage", "workshop", "studio", "supermarket", "mall",
           "park", "garden", "yard", "street", "store", "shop", "bakery", "gym", "hall",
           "library", "restaurant", "car", "bus", "field", "farm", "forest", "museum", "gallery",
           "trail", "market", "aisle", "barn", "greenhouse", "site", "home", "center", "house")


def at_place(place: str) -> str:
    """'in the kitchen' but 'at the desk'."""
    return f"{'in' if place.endswith(_INSIDE) else 'at'} the {place}"


def join_and(items: list[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
