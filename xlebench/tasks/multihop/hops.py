"""Mining multi-hop evidence from narrations (MultiHop-EgoQA, Stage I).

Each ``#C C`` narration is parsed into a verb, a direct object and a place
(`xlebench.tasks.language.actions.parse_narration`) and lasts until the next narration's timestamp. A
node — an action (verb + object), an object, or a verb — recurs when it occurs in several
narrations; its occurrences are the hops of a question about it. An action-scene graph
(networkx: verbs, objects and places, joined when a narration names them together) tells
which objects were handled with several verbs (category B) and which verbs applied to several
objects (category C).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xlebench.library.annotations import Narration
from xlebench.tasks.language.actions import Narrated, parse_narration

if TYPE_CHECKING:
    import networkx as nx


def _graph() -> nx.Graph:
    """An empty graph; networkx (0.1 s) is imported when a recipe mines, not at start-up."""
    import networkx

    return networkx.Graph()


@dataclass(frozen=True)
class Occurrence:
    start: float  # source seconds
    end: float
    verb: str
    dobj: str | None
    pobj: str | None
    text: str = ""


@dataclass
class Mined:
    """Occurrences by node, and the graph joining verbs, objects and places."""

    occurrences: dict[tuple[str, str], list[Occurrence]] = field(default_factory=dict)
    graph: nx.Graph = field(default_factory=_graph)

    def verbs_of(self, obj: str) -> list[str]:
        node = ("dobj", obj)
        return sorted(n[1] for n in self.graph.neighbors(node) if n[0] == "verb") \
            if node in self.graph else []

    def objects_of(self, verb: str) -> list[str]:
        node = ("verb", verb)
        return sorted(n[1] for n in self.graph.neighbors(node) if n[0] == "dobj") \
            if node in self.graph else []


def occurrences(narrations: Sequence[Narration], end_s: float) -> list[Occurrence]:
    """Parsed ``#C C`` narrations, each lasting until the next narration (or ``end_s``)."""
    out = []
    for i, n in enumerate(narrations):
        parsed: Narrated | None = parse_narration(n.text)
        if parsed is None:
            continue
        nxt = narrations[i + 1].t if i + 1 < len(narrations) else end_s
        out.append(Occurrence(n.t, min(max(nxt, n.t), end_s), parsed.verb, parsed.dobj,
                              parsed.pobj, n.text))
    return out


def mine(occs: Sequence[Occurrence]) -> Mined:
    """Index occurrences by node (action, dobj, verb) and build the action-scene graph."""
    by: dict[tuple[str, str], list[Occurrence]] = defaultdict(list)
    graph = _graph()
    for o in occs:
        by[("verb", o.verb)].append(o)
        if o.dobj:
            by[("action", f"{o.verb} {o.dobj}")].append(o)
            by[("dobj", o.dobj)].append(o)
            graph.add_edge(("verb", o.verb), ("dobj", o.dobj))
        if o.pobj:
            graph.add_edge(("dobj", o.dobj or o.verb), ("place", o.pobj))
    return Mined(dict(by), graph)


def recurring(occs: Sequence[Occurrence], gt: int, lt: int, min_span_s: float) -> bool:
    """MultiHop-EgoQA's rule: strictly gt < count < lt occurrences, first to last more than
    ``min_span_s`` apart."""
    return gt < len(occs) < lt and occs[-1].start - occs[0].start > min_span_s
