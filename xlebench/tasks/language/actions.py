"""Narrations -> verb-noun actions for action counting.

``#C C picks up a cup from the table`` -> ``pick up cup``. Only the camera wearer's lines
(``#C C``) count; ``#O`` lines (other people) and ``#unsure`` ones are ignored. The two
narration passes of a video are independent descriptions of the same events, so counts come
from one pass only (the one with more narrations in the window), never from their sum.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from xlebench.library.annotations import Narration
from xlebench.library.language import base_form

_C_LINE = re.compile(r"^#c\s+c\s+(.*)$", re.IGNORECASE)
_STOP = {"a", "an", "the", "his", "her", "their", "some", "its", "my", "of", "with", "from",
         "in", "on", "into", "onto", "to", "at", "by", "for", "and", "using", "inside", "under",
         "near", "around", "along", "across", "through", "towards", "toward", "over", "about"}
PARTICLES = {"up", "down", "off", "out", "away", "back", "over"}
#: Words that name someone, not somewhere ("talks to woman X").
PEOPLE = {"man", "woman", "person", "boy", "girl", "child", "baby", "lady"}
#: Verbs whose "on" is a particle ("puts on the gloves", "switches on the light").
ON_PARTICLE = {"put", "switch", "turn", "try"}
#: Verb + preposition pairs whose object is the thing acted on ("looks at the map").
PREPOSITIONAL_OBJECT = {("look", "at")}


@dataclass(frozen=True)
class Narrated:
    """What a ``#C C`` narration says C did: ``pick up`` (verb, with its particle), ``cup``
    (the direct object's head noun), ``table`` (the place after on/in/at..., if any)."""

    verb: str
    dobj: str | None
    pobj: str | None

    @property
    def action(self) -> str:
        return f"{self.verb} {self.dobj}" if self.dobj else self.verb

    @property
    def countable(self) -> bool:
        """A verb with its object ("cut onion") or a phrasal verb ("sit down"); a bare verb
        ("gets on the bus" -> "get") names no action a viewer could count."""
        return bool(self.dobj) or " " in self.verb


#: Prepositions that introduce where something happens or goes.
PLACE_PREPOSITIONS = {"on", "in", "into", "onto", "at", "inside", "from", "under", "near", "to",
                      "around", "along", "across", "through", "towards", "toward", "over"}
#: Words that end a direct object and start a prepositional phrase.
PREPOSITIONS = PLACE_PREPOSITIONS | {"with", "using", "for", "by", "of", "about"}


#: What a narration's verb slot may hold and still name no action: the wearer again ("#C C C
#: picks"), a determiner, pronoun, particle or preposition ("#C C the cup", "#C C up"), a
#: conjunction. A line whose first word after the actor is one of these, or a number, or
#: nothing, names no verb: it is left out as an unparsed line, never read as the verb "the".
NOT_VERBS = frozenset(_STOP | PARTICLES | {
    "c", "o", "x", "y", "this", "that", "these", "those", "he", "she", "it", "they", "we",
    "i", "you", "him", "them", "your", "our", "or", "then", "also", "just", "again", "not",
    "no", "is", "are", "was", "were", "be", "being", "been", "other", "another", "both",
    "each", "all", "any", "there", "here"})


#: A narration's words in any script, a hyphenated word whole ("un-screws", "пилит").
_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def first_verb_word(body: str, skip: int = 0) -> str | None:
    """The word in a narration's verb slot (after ``skip`` words of actor), hyphenated ones
    whole (``un-screws``), or None when that slot holds no verb xlebench reads: `NOT_VERBS`,
    a number, a word not in English letters (``#C C ПИЛИТ wood`` is an unparsed line, never
    the verb "wood"), or nothing."""
    tokens = _WORD.findall(body.lower())[skip:]
    if not tokens or not re.fullmatch(r"[a-z]+(?:-[a-z]+)*", tokens[0]) \
            or tokens[0] in NOT_VERBS:
        return None
    return tokens[0]


def verb_and_rest(body: str, skip: int = 0) -> tuple[str, list[str]] | None:
    """The verb slot's word in base form (a hyphenated verb's last part: ``un-screws`` ->
    ``un-screw``) and the words after it (English letters), or None (`first_verb_word`)."""
    word = first_verb_word(body, skip)
    if word is None:
        return None
    head, _, last = word.rpartition("-")
    rest = _WORD.findall(body.lower())[skip + 1:]
    return (f"{head}-" if head else "") + base_form(last), \
        [w for token in rest for w in re.findall(r"[a-z]+", token)]


def parse_narration(text: str) -> Narrated | None:
    """``#C C picks up a cup from the table`` -> (pick up, cup, table); None for other lines
    (``#O`` people, ``#unsure``). A rule parser: the first word is the verb, an adverbial
    particle joins it; the direct object is the noun phrase after it (its content words:
    "cutting board"), none when a preposition comes first ("sits with man X", "walks around
    the kitchen": intransitive); the place is the noun phrase after a place preposition."""
    if "#unsure" in text.lower():
        return None
    m = _C_LINE.match(text.strip())
    parsed = verb_and_rest(m.group(1)) if m else None
    if parsed is None:
        return None
    verb, rest = [parsed[0]], parsed[1]
    if rest and (rest[0] in PARTICLES or (rest[0] == "on" and verb[0] in ON_PARTICLE)
                 or (verb[0], rest[0]) in PREPOSITIONAL_OBJECT):
        verb.append(rest.pop(0))
    dobj, k = (None, 0) if rest and rest[0] in PREPOSITIONS else head_noun(rest)
    pobj = None
    while k < len(rest):
        if rest[k] in PLACE_PREPOSITIONS:
            pobj, _ = head_noun(rest[k + 1:])
            if pobj and pobj.split()[0] in PEOPLE:  # "talks to woman X": a person, no place
                pobj = None
            break
        k += 1
    return Narrated(" ".join(verb), dobj, pobj)


def head_noun(words: list[str]) -> tuple[str | None, int]:
    """The noun phrase at the start of ``words`` — its content words, determiners left out
    ("the tape measure" -> "tape measure") — and where it stopped (the next preposition or
    conjunction)."""
    noun: list[str] = []
    for k, w in enumerate(words):
        if w in _STOP:
            if noun:
                return " ".join(noun), k
            continue
        noun.append(w)
    return (" ".join(noun) or None), len(words)


def action_of(text: str) -> str | None:
    """``pick up cup`` from a ``#C C`` narration, or None for other lines and for bare verbs
    (see :attr:`Narrated.countable`)."""
    parsed = parse_narration(text)
    return parsed.action if parsed and parsed.countable else None


def count_actions(passes: Sequence[Sequence[Narration]], start: float, end: float
                  ) -> tuple[Counter, int]:
    """(action counts in [start, end) from the richest pass, index of that pass)."""
    best, best_pass = Counter(), -1
    for k, p in enumerate(passes):
        c = Counter(a for n in p if start <= n.t < end and (a := action_of(n.text)))
        if sum(c.values()) > sum(best.values()):
            best, best_pass = c, k
    return best, best_pass
