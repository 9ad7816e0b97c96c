"""Tiny English helpers for generated narrations, summaries and queries."""

from __future__ import annotations

_IRREGULAR = {"does": "do", "has": "have", "is": "be", "goes": "go", "lies": "lie",
              "ties": "tie", "dies": "die"}
_GERUND_IRREGULAR = {"lie": "lying", "be": "being", "see": "seeing", "ski": "skiing"}
_PAST_IRREGULAR = {
    "be": "was", "bend": "bent", "bring": "brought", "build": "built", "buy": "bought",
    "catch": "caught", "choose": "chose", "come": "came", "cut": "cut", "deal": "dealt",
    "dig": "dug", "do": "did", "draw": "drew", "drink": "drank", "drive": "drove", "eat": "ate",
    "fall": "fell", "feed": "fed", "feel": "felt", "find": "found", "fit": "fitted",
    "fly": "flew", "get": "got", "give": "gave", "go": "went", "grind": "ground",
    "hang": "hung", "have": "had", "hear": "heard", "hide": "hid", "hit": "hit",
    "hold": "held", "keep": "kept", "knit": "knitted", "lay": "laid", "lead": "led",
    "leave": "left", "let": "let", "lie": "lay", "light": "lit", "lose": "lost", "make": "made",
    "meet": "met", "pay": "paid", "put": "put", "quit": "quit", "read": "read", "ride": "rode",
    "ring": "rang", "rise": "rose", "run": "ran", "say": "said", "see": "saw", "sell": "sold",
    "send": "sent", "set": "set", "sew": "sewed", "shake": "shook", "shine": "shone",
    "shoot": "shot", "shut": "shut", "sing": "sang", "sit": "sat", "sleep": "slept",
    "slide": "slid", "speak": "spoke", "spend": "spent", "spin": "spun", "spread": "spread",
    "stand": "stood", "steal": "stole", "stick": "stuck", "sting": "stung", "strike": "struck",
    "sweep": "swept", "swim": "swam", "swing": "swung", "take": "took", "teach": "taught",
    "tear": "tore", "tell": "told", "think": "thought", "throw": "threw", "wake": "woke",
    "wear": "wore", "win": "won", "wind": "wound", "write": "wrote",
}
_VOWELS = "aeiou"


def _doubles(base: str) -> bool:
    """One-syllable verbs ending consonant-vowel-consonant double their last letter before
    -ed and -ing ("dip" -> "dipped", "stir" -> "stirring"; not "fix", "sew", "play", "open")."""
    if len(base) < 3 or base[-1] in _VOWELS + "wxy" or base[-2] not in _VOWELS \
            or base[-3] in _VOWELS:
        return False
    groups = sum(1 for i, c in enumerate(base)
                 if c in _VOWELS + "y" and (i == 0 or base[i - 1] not in _VOWELS + "y"))
    return groups == 1


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
    if _doubles(base):
        return base + base[-1] + "ing"
    return base + "ing"


def past(base: str) -> str:
    if base in _PAST_IRREGULAR:
        return _PAST_IRREGULAR[base]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2:-1] not in _VOWELS:
        return base[:-1] + "ied"
    if _doubles(base):
        return base + base[-1] + "ed"
    return base + "ed"


def third_person(base: str) -> str:
    """'cook' -> 'cooks', 'wash' -> 'washes', 'tidy' -> 'tidies', 'go' -> 'goes'."""
    if base in ("be", "have"):
        return {"be": "is", "have": "has"}[base]
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if base.endswith("y") and base[-2:-1] not in _VOWELS:
        return base[:-1] + "ies"
    return base + "s"


def plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x")) or noun.endswith(("tomato", "potato", "mango")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


#: Rooms and venues: one is "in" them.
INSIDE = ("room", "kitchen", "office", "garage", "workshop", "studio", "supermarket", "mall",
           "park", "garden", "yard", "street", "store", "shop", "bakery", "gym", "hall",
           "library", "restaurant", "car", "bus", "field", "farm", "forest", "museum", "gallery",
           "market", "aisle", "barn", "greenhouse", "site", "home", "center", "house")


_ON = ("sofa", "bed", "bench", "mat", "couch", "road", "bike lane", "sidewalk", "trail",
       "track", "path", "lawn", "balcony", "bus", "treadmill", "driveway", "crosswalk",
       "mountain", "hill", "staircase", "floor")


def at_place(place: str) -> str:
    """'in the kitchen', 'on the sofa', but 'at the desk'."""
    if f" {place}".endswith(tuple(f" {w}" for w in _ON)):  # whole words: not "workbench"
        return f"on the {place}"
    return f"{'in' if place.endswith(INSIDE) else 'at'} the {place}"


def join_and(items: list[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
