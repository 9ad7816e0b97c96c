"""Per-video labels the matcher needs: time of day, main scene, one-sentence summary.

The paper labels time and scene with Gemini looking at the video. Offline, the `heuristic`
labeller combines what the scenarios make likely (the taxonomy's priors) with explicit cues
in the narrations ("switches on the light", "looks at the sky"); when neither says much, the
time is ``uncertain``, as the authors' ``not know``. The `extractive` consolidator picks the
most representative clip summary and trims it to one "C ..." sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from xlebench.library.records import ClipSummary
from xlebench.library.taxonomy import load_taxonomy

TIME_WORDS = {
    "nighttime": ("switches on the light", "turns on the lamp", "closes the curtains", "dark",
                  "night", "torch", "flashlight", "moon"),
    "twilight": ("sunset", "sunrise", "dusk", "dawn", "porch light"),
    "daytime": ("sunglasses", "window blinds", "sunlight", "sunny", "daylight"),
}
SCENE_WORDS = {
    "outdoor": ("outside", "sky", "street", "road", "garden", "yard", "park", "trail", "field",
                "car", "path", "bike", "lawn"),
    "indoor": ("room", "kitchen", "table", "sofa", "desk", "sink", "door", "shelf", "counter"),
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z]+")


def _priors(scenarios: Sequence[str], attr: str) -> Counter:
    total: Counter = Counter()
    tax = load_taxonomy()
    for name in scenarios:
        s = tax.get(name)
        if s is not None:
            total.update(getattr(s, attr))
    return total


def _cues(texts: Sequence[str], words: dict[str, tuple[str, ...]]) -> Counter:
    joined = "\n".join(texts).lower()
    return Counter({label: sum(joined.count(w) for w in ws) for label, ws in words.items()})


def label_time(scenarios: Sequence[str], narrations: Sequence[str]) -> str:
    """daytime / nighttime / twilight, or uncertain when neither priors nor cues decide."""
    score = _priors(scenarios, "time")
    cues = _cues(narrations, TIME_WORDS)
    for label, n in cues.items():
        score[label] += 1.5 * n
    if not score:
        return "uncertain"
    ranked = score.most_common(2)
    best, top = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    return best if top - second >= 0.15 * max(top, 1e-9) or cues[best] else "uncertain"


def label_scene(scenarios: Sequence[str], narrations: Sequence[str]) -> str:
    score = _priors(scenarios, "scene")
    cues = _cues(narrations, SCENE_WORDS)
    total_cues = sum(cues.values()) or 1
    for label, n in cues.items():
        score[label] += 0.5 * n / total_cues
    if not score:
        return "mixed"
    if cues["outdoor"] and cues["indoor"] and min(cues.values()) / total_cues > 0.35:
        return "mixed"
    return score.most_common(1)[0][0]


def most_central(bags: Sequence[Counter]) -> int:
    """Index of the word bag sharing most words with the others (length-normalised; the
    earliest wins ties). Linear in the total number of words."""
    total: Counter = Counter()
    for bag in bags:
        total.update(bag)

    def centrality(i: int) -> float:
        bag = bags[i]
        return sum(min(c, total[w] - c) for w, c in bag.items()) / (1 + sum(bag.values()))

    return max(range(len(bags)), key=lambda i: (centrality(i), -i))


def consolidate_extractive(summaries: Sequence[ClipSummary]) -> str:
    """The clip summary sharing most words with the others, made one "C ..." sentence: its
    first sentence joined with the next one saying what C did ("C cooked dinner in the
    kitchen, and cut the onion and washed the pan."), so the summary names the video's own
    actions and objects, not only its activity and place."""
    texts = [s.text for s in summaries if s.text.strip()]
    if not texts:
        return ""
    best = texts[most_central([Counter(_WORD.findall(t.lower())) for t in texts])]
    sentences = [x.strip().rstrip(".!?").strip() for x in _SENTENCE.split(_untag(best))]
    sentences = [x for x in sentences if x]
    if not sentences:
        return "C is recording."
    first = _c_first(sentences[0])
    more = next((x for x in sentences[1:] if x.startswith("C ")), None)
    return f"{first}, and {more[2:]}." if more else f"{first}."


_FRONTED = re.compile(r"^(In|At|On) the ([^,]+), C (.+)$")


def _c_first(sentence: str) -> str:
    """A sentence about C that starts with "C " (the X-LeBench style): "In the kitchen, C cut
    the onion" -> "C cut the onion in the kitchen"."""
    m = _FRONTED.match(sentence)
    if m:
        return f"C {m.group(3)} {m.group(1).lower()} the {m.group(2)}"
    if sentence.startswith("C "):
        return sentence
    return "C " + sentence[0].lower() + sentence[1:]


def _untag(text: str) -> str:
    return re.sub(r"^\s*#\s*summary\s*", "", text.strip(), flags=re.IGNORECASE)
