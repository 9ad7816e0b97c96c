"""What a submitter reads of a whole benchmark: every item's query, options and period.

The learned blind members (`xlebench.eval.scorers.learned`) read an item through this view
and nothing else of it: its own query, options and period, and what the *other* items of the
benchmark print — the queries and options of the items of its life log whose periods overlap
its own (what the benchmark shows about the same records), and how often a phrase occurs
anywhere in it (a decoy no other question mentions is unlikely to be the answer). Answers are
never part of the view; a member learns them only from the items it is fitted on, which the
panel cross-fits by source video (`xlebench.eval.panel.blind`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from xlebench.eval.metrics import rouge_tokens

#: Words that say nothing about a record's content.
STOP = frozenset("""a an the and or of in on at to for from with by c is was are were be been
his her their its it this that while what which who how when where did does do i my me record
provided time period""".split())
_DIGITS = re.compile(r"\d+")


def content_words(text: str) -> list[str]:
    """Lower-case word tokens without stop words, in order."""
    return [w for w in rouge_tokens(text) if w not in STOP and not w.isdigit()]


def bigrams(words: Sequence[str]) -> set[str]:
    return {f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)}


def masked(text: str) -> str:
    """A text with its numbers masked: the same question about another period reads alike."""
    return _DIGITS.sub("#", text)


def _public_text(item: dict) -> str:
    options = item.get("answer", {}).get("options") or []
    return " ".join([item["query"], *map(str, options)])


class Public:
    """The public view of ``items`` (never their answers), built once per panel, and the
    script each life log was simulated from (``script``: `script_of`): what the generator
    decided before it matched a video — the plan's chunks, their times, activities, scenarios
    and descriptions — which the public configuration rebuilds, so a submitter has it."""

    def __init__(self, items: Sequence[dict],
                 script: Mapping[str, Sequence[dict]] | None = None) -> None:
        self.items = {it["item_id"]: it for it in items}
        self.script = {k: sorted(v, key=lambda c: (float(c["start_s"]), str(c["activity"])))
                       for k, v in sorted((script or {}).items())}
        self._chunk_words: dict[str, list[frozenset[str]]] = {}
        self._script_words: dict[tuple[str, float, float], frozenset[str]] = {}
        self._by_log: dict[str, list[dict]] = defaultdict(list)
        for it in items:
            self._by_log[it["lifelog_id"]].append(it)
        self._grams: dict[str, set[str]] = {}
        self._df: Counter[str] | None = None
        self._about: dict[str, str] = {}
        self._cache: dict[str, Any] = {}
        self._digests: dict[str, bytes] = {}
        self._key: bytes | None = None

    def digest(self, item: dict) -> bytes:
        """A digest of everything ``item`` holds (an id does not name its content: one
        process may compile two benchmarks whose ids coincide)."""
        key = item["item_id"]
        if self.items.get(key) is not item:  # not this view's own copy: computed, not kept
            return _digest(item)
        if key not in self._digests:
            self._digests[key] = _digest(item)
        return self._digests[key]

    @property
    def key(self) -> bytes:
        """Every item this view shows, as one digest: two views of the same items are equal."""
        if self._key is None:
            h = hashlib.blake2b(digest_size=16)
            for key in sorted(self.items):
                h.update(self.digest(self.items[key]))
            if self.script:
                h.update(_digest({"script": self.script}))
            self._key = h.digest()
        return self._key

    def grams(self, item: dict) -> set[str]:
        """The words and word pairs an item prints (query and options)."""
        key = item["item_id"]
        if key not in self._grams:
            words = content_words(_public_text(item))
            self._grams[key] = set(words) | bigrams(words)
        return self._grams[key]

    def attested(self, item: dict, text: str) -> tuple[float, float]:
        """How often ``text``'s words and word pairs are printed by *other* items of the
        benchmark: mean log counts over words and over pairs."""
        if self._df is None:
            self._df = Counter(g for it in self.items.values() for g in self.grams(it))
        own = self.grams(item) if item["item_id"] in self.items else set()
        words = content_words(text)

        def mean_log(gs: set[str]) -> float:
            if not gs:
                return 0.0
            # fsum: exact whatever order a set iterates in (it varies with the hash seed, and
            # float sums in another order flipped learned members' answers between runs)
            return math.fsum(math.log1p(self._df[g] - (g in own)) for g in gs) / len(gs)
        return mean_log(set(words)), mean_log(bigrams(words))

    def neighbours(self, item: dict) -> list[dict]:
        """The other items of the item's life log whose periods overlap its own: what the
        benchmark prints about the same records, each with its period."""
        period = _period(item)
        return [o for o in self._by_log.get(item["lifelog_id"], ())
                if o["item_id"] != item["item_id"] and _overlap(_period(o), period)]

    def about(self, item: dict) -> str:
        """The text `neighbours` print."""
        key = item["item_id"]
        if key not in self._about:
            self._about[key] = " ".join(_public_text(o) for o in self.neighbours(item))
        return self._about[key]

    def placed(self, item: dict, text: str) -> float | None:
        """Where in the item's period the neighbour sharing most content words with ``text``
        sits (0 its start, 1 its end), or None where none shares one: the log's other
        questions put a shown text on the clock."""
        words = set(content_words(text))
        lo, hi = _period(item)
        best, at = 0.0, None
        for o in sorted(self.neighbours(item), key=lambda o: o["item_id"]):
            share = word_share(words, set(content_words(o["query"])))
            if share > best:
                a, b = _period(o)
                best, at = share, ((a + b) / 2 - lo) / max(hi - lo, 1e-9)
        return at

    def phrases_near(self, item: dict, within_s: float) -> list[str]:
        """What the log's other items whose periods' middles lie within ``within_s`` of the
        item's in time of day ask about their records (`query_phrases`), each once."""
        mid = clock_of(item)
        out: list[str] = []
        for o in sorted(self._by_log.get(item["lifelog_id"], ()), key=lambda o: o["item_id"]):
            if o["item_id"] != item["item_id"] and clock_gap(clock_of(o), mid) <= within_s:
                out += query_phrases(o["query"])
        return list(dict.fromkeys(out))

    def chunk(self, item: dict) -> dict | None:
        """The plan chunk of the item's life log its period overlaps most (the nearest in
        time of day where none overlaps), or None without a script."""
        chunks = self.script.get(item["lifelog_id"]) or []
        if not chunks:
            return None
        lo, hi = _period(item)

        def fit(c: dict) -> tuple[float, float]:
            a, b = float(c["start_s"]), float(c["end_s"])
            return (max(0.0, min(b, hi) - max(a, lo)), -clock_gap((a + b) / 2, (lo + hi) / 2))
        return max(chunks, key=fit)

    def script_text(self, item: dict) -> str:
        """What the plan says of the item's period: its chunk's activity, scenarios and
        description ("" without a script)."""
        c = self.chunk(item)
        return "" if c is None else chunk_text(c)

    def script_words(self, item: dict) -> frozenset[str]:
        """The content words of `script_text`, computed once per (life log, period): the
        plan's readers ask it of every training item at every fit."""
        key = (item["lifelog_id"], *_period(item))
        if key not in self._script_words:
            self._script_words[key] = frozenset(content_words(self.script_text(item)))
        return self._script_words[key]

    def chunk_like(self, item: dict, text: str, within: bool = False) -> dict | None:
        """The plan chunk of the item's life log whose words are most like ``text``'s
        (Jaccard of content words; the earliest on a tie), among those overlapping its
        period where ``within``; None without a script or a chunk sharing a word."""
        words = set(content_words(text))
        lo, hi = _period(item)
        best, found = 0.0, None
        chunks = self.script.get(item["lifelog_id"]) or []
        if item["lifelog_id"] not in self._chunk_words:
            self._chunk_words[item["lifelog_id"]] = [frozenset(content_words(chunk_text(c)))
                                                     for c in chunks]
        for c, theirs in zip(chunks, self._chunk_words[item["lifelog_id"]], strict=True):
            a, b = float(c["start_s"]), float(c["end_s"])
            if within and not _overlap((a, b), (lo, hi)):
                continue
            share = word_share(words, theirs)
            if share > best:
                best, found = share, c
        return found

    def memo(self, name: str, build: Callable[[], Any]) -> Any:
        """A value computed once per view (a vectoriser fitted on every item's text)."""
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]


def word_share(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """How alike two texts' words are: Jaccard of the sets (0 for two empty ones)."""
    shared = len(a & b)  # the union's size from it: no second set built per pair
    return shared / max(1, len(a) + len(b) - shared)


def chunk_text(chunk: Mapping[str, Any]) -> str:
    """A plan chunk's words: its activity, scenarios and description."""
    return (f"{chunk.get('activity') or ''}. {', '.join(chunk.get('scenarios') or [])}. "
            f"{chunk.get('description') or ''}").strip()


#: What a script chunk keeps of a plan chunk: decided before any video was matched.
SCRIPT_FIELDS = ("activity", "scenarios", "description", "start_s", "end_s")


def script_of(logs: Iterable[dict]) -> dict[str, list[dict]]:
    """Each life log's script: the plan chunks its segments were matched to, each once, in
    `SCRIPT_FIELDS` (never a segment's video or its times, which the matching decided)."""
    out: dict[str, list[dict]] = {}
    for log in logs:
        seen: dict[str, dict] = {}
        for seg in log.get("segments") or []:
            c = seg.get("chunk") or {}
            if c.get("chunk_id") and c["chunk_id"] not in seen and "start_s" in c:
                seen[c["chunk_id"]] = {k: c[k] for k in SCRIPT_FIELDS if k in c}
        out[str(log["lifelog_id"])] = list(seen.values())
    return out


def records_script(records: Mapping[str, dict]) -> dict[str, list[dict]]:
    """The script the annotate stage's unit records carry (``script``, its log's
    `script_of`), by life log: what the filters, the validity check and the evaluate stage
    give the panel, whichever process or cache the records come from."""
    return {str(r["lifelog_id"]): list(r["script"]) for _, r in sorted(records.items())
            if "script" in r and "lifelog_id" in r}


def script_of_folder(folder: Any) -> dict[str, list[dict]]:
    """`script_of` the life logs a benchmark folder publishes (``lifelogs/*.json``)."""
    logs = []
    for path in sorted(Path(folder).glob("lifelogs/*.json")):
        try:
            logs.append(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError):
            continue  # not a life log record (a render sidecar): no script from it
    return script_of(lg for lg in logs if isinstance(lg, dict) and "lifelog_id" in lg)


def _digest(item: dict) -> bytes:
    return hashlib.blake2b(json.dumps(item, sort_keys=True, default=str).encode(),
                           digest_size=16).digest()


def _period(item: dict) -> tuple[float, float]:
    return float(item["period"]["start_s"]), float(item["period"]["end_s"])


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


#: Parts of the day a period's middle falls in (hour they start): a day's habits put the same
#: activities at the same hours.
PARTS = ((0, "night"), (6, "morning"), (10, "midday"), (14, "afternoon"), (18, "evening"),
         (22, "late"))
DAY_S = 86_400.0


def clock_of(item: dict) -> float:
    """The period's middle as seconds of the day."""
    lo, hi = _period(item)
    return (lo + hi) / 2 % DAY_S


def clock_gap(a: float, b: float) -> float:
    """Seconds between two times of day, across midnight."""
    d = abs(a - b)
    return min(d, DAY_S - d)


#: Words of a question that say nothing about what C does.
_ASKS = frozenset("where what who when which how did do does is was were i my me the a an in "
                  "on at to of with for from by before after put see".split())


def query_phrases(query: str) -> list[str]:
    """What a query asks about a record, in its words: the listed actions of a counting
    question, a moment's label, the objects of a question about the record (nothing from a
    summary or an ordering query)."""
    if "Action list:" in query:
        return [a.strip() for a in
                re.findall(r"\d+\.\s*([^,;]+)", query.split("Action list:")[1])]
    m = re.match(r"When did I \((.*?)\)", query)
    if m:
        return [m.group(1)]
    if " in the record provided" in query:
        words = re.findall(r"[a-z]+", query.split(" in the record provided")[0].lower())
        return [" ".join(w for w in words if w not in _ASKS)]
    return []


def wearer(item: dict) -> tuple[str, str]:
    """The wearer's location and type as a compiled life-log id spells them
    (``colombia-enfj-1255d3-short``: a reader of annotations/*.jsonl sees both), or two
    empty strings for an id that spells none."""
    head, _, rest = item["lifelog_id"].partition("-")
    kind = rest.split("-")[0]
    return (head, kind) if rest[:4].isalpha() and len(kind) == 4 else ("", "")


def context_tokens(item: dict) -> list[str]:
    """What a query prints besides its words, as tokens: the period's hour and part of the
    day, its length (`length_token`), and the wearer's location and type (`wearer`)."""
    lo, hi = _period(item)
    hour = int((lo + hi) / 2 % DAY_S // 3600)
    part = next(name for start, name in reversed(PARTS) if hour >= start)
    place, kind = wearer(item)
    return [f"hour{hour}", f"part{part}", length_token(item),
            *([f"place{place}", f"type{kind}"] if place else [])]


def length_token(item: dict) -> str:
    """The period's length as a word (log-2 bins of minutes): items whose periods are about
    as long read alike to a nearest-neighbour reader."""
    lo, hi = _period(item)
    return f"len{int(math.log2(1 + max(0.0, hi - lo) / 60))}"
