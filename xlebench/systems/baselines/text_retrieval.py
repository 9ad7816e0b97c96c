"""``oracle_text_retrieval``, the offline text-retrieval baseline: no LLM, no GPU, real
non-trivial scores (an oracle: it reads the Ego4D narrations).

It answers every subtask from time-stamped captions (oracle narrations by default):
* localisation — IDF-weighted word overlap between the query and each caption inside the
  queried period; the 5 best captions (at least a window apart) become windows centred on them;
* summaries — the most central caption of each recording ("C ..."), aggregated per period with
  the same offline aggregator the references use for structure (not content);
* counting — the listed actions counted among the captions of the asked sub-window;
* ordering — each shown summary placed at the time of the recording whose captions share most
  words with it.
Replies are written as a model would write them, and go through the same parsers.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.eval.metrics import rouge_l
from xlebench.eval.parse import clock_seconds, clock_spans, grounded_reply
from xlebench.library.language import at_place, join_and, third_person
from xlebench.systems.base import Made, SystemKind, Systems
from xlebench.systems.baselines.captions import Caption
from xlebench.systems.baselines.grounded_events import answer_event
from xlebench.systems.baselines.in_time import in_time
from xlebench.systems.baselines.short_answers import answer_short
from xlebench.systems.baselines.words import QUERY_FRAME, similar_words, word_set, words
from xlebench.tasks.language.actions import parse_narration
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.language.wording import (
    counting_actions,
    counting_answer,
    counting_window,
    ordering_answer,
)

NO_INFO = "There is no information available in the provided records."
_CLOCK = r"\d{1,2}:\d{2}:\d{2}"


@dataclass(frozen=True)
class BaselineParams:
    top_k: int = 5
    nlq_window_s: float = 8.0
    #: Matching captions closer than this belong to one run of an activity (moments).
    run_gap_s: float = 25.0
    #: A query word no caption of the period holds ("timber") also matches the captions'
    #: words whose MiniLM vectors are at least this close ("wood"), weighted by closeness:
    #: NLQ queries are written by other annotators than the narrations. 0 turns it off.
    synonyms: float = 0.55


class TextRetrievalBaseline:
    """Word overlap over the narrations: an oracle, since the answers come from the same
    annotations (and always named so)."""

    name = "oracle_text_retrieval"
    reads = "the Ego4D narrations as captions"
    #: Part of its respond fingerprint: bump when its replies change (3: multiple choice; 4:
    #: summaries from the main actions, moments as runs of captions, event verbs and roles
    #: apart; 6: short answers, MultiHop's places and events; 7: ordering by IDF-weighted
    #: one-to-one assignment of texts to records; 8: multiple choice through the short answer
    #: where the question has one of Neptune's forms; 9: EgoSchema's offline forms read in
    #: time, the order of acts and what lies between two of them; 10: the clips of one record
    #: ordered by when the captions say them, a short answer's acts matched as narrated).
    version = "10"
    #: The reply when the library holds no narration of a log's videos at all: a subtask
    #: answered only so is "not applicable" for this oracle (the evaluate stage).
    no_source = ("There is no information available: the library has no narrations of "
                 "this life log's videos.")

    def __init__(self, captions: Any, params: BaselineParams | None = None) -> None:
        self.captions = captions  # the oracle narrations
        self.p = params or BaselineParams()

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        caps = self.captions.captions(log)
        if not caps:  # no narration of any of its videos: nothing to read, nothing to guess
            return {it["item_id"]: self.no_source for it in items}
        return {it["item_id"]: self.answer(it, recipes[it["subtask"]], log, caps)
                for it in items}

    def answer(self, item: dict, recipe: Any, log: dict, captions: Sequence[Caption]) -> str:
        """A reply in the recipe's answer format, chosen by the kind of answer its scorer
        reads (so any recipe with a known answer kind is answered)."""
        kind = recipe.scorer.kind
        if kind == "spans":
            return self._localise(item, captions)
        if kind == "text":
            return self._text(item, log, captions)
        if kind == "counts":
            return self._count(item, captions)
        if kind == "order":
            return self._order(item, log, captions)
        if kind == "grounded":
            return self._grounded(item, captions)
        if kind in ("events", "roles"):
            return self._events(item, captions, roles=kind == "roles")
        if kind == "choice":
            return self._choose(item, captions, lambda lo, hi: self._summary(captions, lo, hi))
        if kind == "short":
            return answer_short(item, captions, word_set,
                                lambda lo, hi: self._summary(captions, lo, hi))
        return NO_INFO  # an answer kind this baseline does not know: counted as unanswered

    # -- localisation -------------------------------------------------------------------------

    def _localise(self, item: dict, captions: Sequence[Caption]) -> str:
        query = item["query"].split(" in the record provided")[0]
        moment = query.startswith("When did I (")  # an activity: runs of captions
        if moment:
            query = query.replace("When did I (", "").rstrip(")")
        q = Counter(words(query))
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        pool = [c for c in captions if lo <= c.virtual_s <= hi]
        if not q or not pool:
            return NO_INFO
        df = Counter(w for c in pool for w in word_set(c.text))
        idf = {w: math.log(1 + len(pool) / df[w]) for w in df}
        weight = {w: (v, idf[w]) for w, v in
                  similar_words(set(q) - QUERY_FRAME, df, self.p.synonyms).items()}
        score = [sum(idf.get(w, 0.0) for w in q if w in word_set(c.text))
                 + sum(v * i for w, (v, i) in weight.items() if w in word_set(c.text))
                 for c in pool]
        spans = (self._runs(pool, score, lo, hi) if moment
                 else self._points(pool, score, lo, hi))
        if not spans:
            return NO_INFO
        return ", ".join(f"[{fmt_hhmmss(a)} - {fmt_hhmmss(b)}]" for a, b in spans)

    def _points(self, pool: Sequence[Caption], score: Sequence[float], lo: float, hi: float
                ) -> list[tuple[float, float]]:
        """Windows centred on the best-matching captions, at least a window apart."""
        width = self.p.nlq_window_s
        picked: list[float] = []
        for k in sorted(range(len(pool)), key=lambda k: (-score[k], k)):
            if score[k] <= 0 or len(picked) == self.p.top_k:
                break
            if all(abs(pool[k].virtual_s - t) >= width for t in picked):
                picked.append(pool[k].virtual_s)
        return [(max(lo, t - width / 2), min(hi, t + width / 2)) for t in picked]

    def _runs(self, pool: Sequence[Caption], score: Sequence[float], lo: float, hi: float
              ) -> list[tuple[float, float]]:
        """An activity lasts: consecutive matching captions (no gap over ``run_gap_s``) make
        one window from the first to the last, best runs (total match) first."""
        runs: list[list[int]] = []
        for k in (k for k in range(len(pool)) if score[k] > 0):
            if runs and pool[k].virtual_s - pool[runs[-1][-1]].virtual_s <= self.p.run_gap_s:
                runs[-1].append(k)
            else:
                runs.append([k])
        ranked = sorted(runs, key=lambda r: (-sum(score[k] for k in r), r[0]))[: self.p.top_k]
        return [(max(lo, pool[r[0]].virtual_s - 2.0), min(hi, pool[r[-1]].virtual_s + 5.0))
                for r in ranked]

    def _grounded(self, item: dict, captions: Sequence[Caption]) -> str:
        """The captions of the period that hold the question's content words, each grounding
        the span until the next caption; the answer text strings them together."""
        question = item["query"].split(" in the record provided")[0]
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        event = answer_event(question, [c for c in captions if lo <= c.virtual_s <= hi],
                             word_set, self.p.nlq_window_s)
        if event is not None:
            return event
        q = word_set(question) - {"time", "many", "do", "did"}
        if question.startswith("Where did I handle the "):  # MultiHop D: the object's places
            q -= {"handle"}
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        pool = [c for c in captions if lo <= c.virtual_s <= hi]
        hits = [(c, pool[k + 1].virtual_s if k + 1 < len(pool) else hi)
                for k, c in enumerate(pool) if q and q <= word_set(c.text)]
        if not hits:
            return NO_INFO
        spans = [(c.virtual_s, min(end, c.virtual_s + self.p.nlq_window_s)) for c, end in hits]
        text = " ".join(dict.fromkeys(c.text.rstrip(".") + "." for c, _ in hits))
        return grounded_reply(text, clock_spans(spans))

    @staticmethod
    def _events(item: dict, captions: Sequence[Caption], roles: bool) -> str:
        """Each event's captions (the events' times are in the query), read as narrations:
        their verbs, or (``roles``) the first one's roles."""
        from xlebench.tasks.vidsitu.srl import parse_roles

        times = re.findall(rf"event (\d+)(?::| \() ?({_CLOCK}) - ({_CLOCK})", item["query"])
        if not times:
            return NO_INFO
        lines = []
        for k, a, b in times:
            lo, hi = clock_seconds(a), clock_seconds(b)
            parsed = [p for c in captions if lo <= c.virtual_s < hi
                      if (p := parse_roles("#C " + c.text if c.text.startswith("C ") else
                                           "#O " + c.text, ""))]
            if roles:
                found = parsed[0][1] if parsed else {}
                lines.append(f"Event {k}: " + "; ".join(f"{r}: {v}" for r, v in found.items()))
            else:
                verbs = list(dict.fromkeys(v for v, _ in parsed))
                lines.append(f"Event {k}: verbs: {', '.join(verbs)}")
        return "\n".join(lines)

    # -- summaries ----------------------------------------------------------------------------

    @staticmethod
    def _summary(captions: Sequence[Caption], lo: float, hi: float) -> str:
        """What the record's captions say C did most: its three most frequent actions on
        objects and the place named most, as one sentence ("C cuts the onion, stirs the pot
        and washes the pan in the kitchen.")."""
        texts = [c.text for c in captions if lo <= c.virtual_s <= hi and c.text.startswith("C ")]
        parsed = [p for t in texts if (p := parse_narration("#C " + t)) and p.dobj]
        if not parsed:
            return NO_INFO
        counts = Counter((p.verb, p.dobj) for p in parsed)
        first = {a: i for i, a in reversed(list(enumerate((p.verb, p.dobj) for p in parsed)))}
        top = sorted(counts, key=lambda a: (-counts[a], first[a]))[:3]
        places = Counter(p.pobj for p in parsed if p.pobj)
        acts = [f"{third_person(v.split()[0])} {' '.join(v.split()[1:] + ['the', o])}".replace(
            "  ", " ") for v, o in top]
        where = f" {at_place(places.most_common(1)[0][0])}" if places else ""
        return f"C {join_and(acts)}{where}."

    def _text(self, item: dict, log: dict, captions: Sequence[Caption]) -> str:
        """One record's period: its most central caption; several: one per record, joined."""
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        segs = [s for s in log["segments"] if lo <= s["start_s"] <= hi]
        if len(segs) <= 1:
            return self._summary(captions, lo, hi)
        parts = [self._summary(captions, s["start_s"], s["end_s"]) for s in segs]
        parts = [p for p in parts if p != NO_INFO]
        return offline_aggregate(parts, "during this time") if parts else NO_INFO

    @staticmethod
    def _choose(item: dict, captions: Sequence[Caption], summary: Any) -> str:
        """EgoSchema's offline forms read in time (`_in_time`); else the option nearest
        (ROUGE-L over words, so order counts) the short answer the question's form reads off
        the captions (`answer_short`, Neptune's forms); for other questions, the option whose
        words the period's captions hold most (share of the option's distinct words, so a
        long option gains nothing from its length)."""
        options = item["answer"]["options"]
        question = item["query"].split(" Option 0: ")[0]
        lo, hi = item["period"]["start_s"], item["period"]["end_s"]
        timed = in_time(question, options, [(c.virtual_s, word_set(c.text)) for c in captions
                                             if lo <= c.virtual_s <= hi])
        if timed is not None:
            return _pick(item, timed)
        opened = answer_short({**item, "query": question}, captions, word_set, summary)
        if opened != NO_INFO:
            near = [rouge_l(_stems(opened), _stems(o)) for o in options]
            return _pick(item, near) if max(near) > 0 else NO_INFO
        seen = frozenset(w for c in captions if lo <= c.virtual_s <= hi for w in words(c.text))
        if not seen:
            return NO_INFO

        def share(k: int) -> float:
            ws = word_set(options[k]) - {"c"}
            return len(ws & seen) / len(ws) if ws else 0.0
        return _pick(item, [share(k) for k in range(len(options))])

    # -- counting and ordering -----------------------------------------------------------------

    @staticmethod
    def _count(item: dict, captions: Sequence[Caption]) -> str:
        window, actions = counting_window(item["query"]), counting_actions(item["query"])
        if not window or not actions:
            return NO_INFO
        start, end = (item["period"]["start_s"] + s for s in window)
        window = [word_set(c.text) for c in captions
                  if start <= c.virtual_s < end and c.text.startswith("C ")]
        # Word matching, not the annotator's parser: a caption counts for an action when it
        # holds every content word of it ("pick up cup" ~ "C picks the cup up").
        found = {a: sum(1 for ws in window if word_set(a) <= ws) for a in actions}
        return counting_answer(actions, found)

    @staticmethod
    def _order(item: dict, log: dict, captions: Sequence[Caption]) -> str:
        shown = re.findall(r"Summary (\d+): (.*?)(?= Summary \d+: |$)", item["query"])
        if not shown:
            return NO_INFO
        period = item.get("period") or {"start_s": -math.inf, "end_s": math.inf}
        segs = [s for s in log["segments"]
                if s["start_s"] < float(period["end_s"]) and float(period["start_s"]) < s["end_s"]]
        if len(segs) < len(shown):  # the parts of fewer records (one record's clips)
            return ordering_answer(_in_time_order(shown, segs, captions))
        bags = [frozenset(w for c in captions if s["start_s"] <= c.virtual_s <= s["end_s"]
                          for w in words(c.text)) for s in segs]
        at = assign_texts([word_set(text) for _, text in shown], bags)

        def when(k: int) -> float:
            return segs[at[k]]["start_s"] if at[k] is not None else math.inf
        ranked = sorted(range(len(shown)), key=lambda k: (when(k), int(shown[k][0])))
        return ordering_answer([int(shown[k][0]) for k in ranked])


def _in_time_order(shown: Sequence[tuple[str, str]], segs: Sequence[dict],
                   captions: Sequence[Caption]) -> list[int]:
    """Texts about parts of the same records, ordered by when the captions say what each
    says: a window as long as the records' time over the number of texts, centred on each
    caption, matched by the IDF weight (over the windows) of the words it shares with a text;
    each text goes to its best window's centre (ties: the earliest)."""
    inside = sorted((c for c in captions if any(s["start_s"] <= c.virtual_s <= s["end_s"]
                                                for s in segs)), key=lambda c: c.virtual_s)
    if not inside:
        return [int(k) for k, _ in shown]
    half = sum(s["end_s"] - s["start_s"] for s in segs) / len(shown) / 2
    times = [c.virtual_s for c in inside]
    bags = [frozenset(w for c in inside if abs(c.virtual_s - t) <= half for w in words(c.text))
            for t in times]
    df = Counter(w for bag in bags for w in bag)
    idf = {w: math.log(len(bags) / n) for w, n in df.items()}

    def when(text: str) -> float:
        mine = word_set(text)
        scores = [sum(idf[w] for w in sorted(mine & bag)) for bag in bags]
        return times[scores.index(max(scores))]
    at = {k: when(text) for k, text in shown}
    return [int(k) for k in sorted(at, key=lambda k: (at[k], int(k)))]


def _stems(text: str) -> str:
    """A text's content words, stemmed (a bare number, a count's option, as it is)."""
    return " ".join(words(text)) or text.strip()


def _pick(item: dict, scores: Sequence[float]) -> str:
    """``Option k`` of the best score; ties broken by a generator seeded by the item, not by
    position (a first-option rule would show up as a position bias, and as accuracy wherever
    labels lean to it)."""
    best = [k for k, v in enumerate(scores) if v == max(scores)]
    return f"Option {random.Random(item['item_id']).choice(best)}"


def assign_texts(texts: Sequence[frozenset[str]], bags: Sequence[frozenset[str]]
                 ) -> list[int | None]:
    """Each shown text placed at one record, the best-matching (text, record) pairs first:
    a pair's match is the IDF weight (over the day's records) of the words they share, so a
    word every record holds ("c", "kitchen") decides nothing and two texts never claim one
    record. A text left without a record (more texts than records) gets None."""
    df = Counter(w for bag in bags for w in bag)
    idf = {w: math.log(len(bags) / n) for w, n in df.items()}
    pairs = sorted(((sum(idf.get(w, 0.0) for w in sorted(t & bags[r])), k, r)
                    for k, t in enumerate(texts) for r in range(len(bags))),
                   key=lambda x: (-x[0], x[1], x[2]))
    at: list[int | None] = [None] * len(texts)
    taken: set[int] = set()
    for _, k, r in pairs:
        if at[k] is None and r not in taken:
            at[k] = r
            taken.add(r)
    return at


def make(name: str, cfg: Any, out: Systems) -> Made:
    return TextRetrievalBaseline(out.oracle), {
        "system": name, "version": TextRetrievalBaseline.version}, None


SYSTEMS = (SystemKind("oracle_text_retrieval", make),)
