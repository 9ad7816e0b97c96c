"""LEA, the link-based entity-aware co-reference metric (Moosavi and Strube, 2016), as VidSitu
scores co-reference across the roles of a window's events (seed 002, section 6.1).

Mentions are role slots (event, role); an entity is the set of slots one value fills —
exactly the same string, as VidSitu links predicted arguments. For key entities K (the
annotation's) and response entities R (the reply's)::

    link(e)        = |e| (|e| - 1) / 2        (a singleton links to itself: 1)
    resolution(k)  = sum over r of link(k & r) / link(k)
    recall         = sum over k of |k| resolution(k) / sum over k of |k|
    precision      = the same with K and R swapped;  F1 their harmonic mean

A singleton key is resolved when the response holds the same singleton. **LEA-soft**
(VidSitu's Lea-S, supplement E.1) keeps recall and weighs each response entity's importance
in the precision by the mean CIDEr-D of its mentions ("the sum of cider scores in the
numerator and len of cider scores in the denominator")::

    precision_soft = sum over r of |r| mean_C(r) resolution(r) / sum over r of |r|

so a response that links the right slots with wrong words no longer scores as if it were
right. C is each slot's sentence CIDEr-D against its references, in pycocoevalcap's units
(as VidSitu's evaluator reads ``cider_sent``): a mean above 1 can lift precision above LEA's.
The per-slot scores need the corpus's document frequencies, so LEA-soft is a corpus metric
(`xlebench.eval.corpus.lea_soft_cider`).

Beside LEA, the three scores of the CoNLL scorer VidSitu's co-reference table sits beside:
**MUC** (links: a key entity of n mentions split into p parts by the response loses p - 1 of
its n - 1 links), **B³** (per mention, the share of its entity the other side's entity
holds) and **CEAFe** (entities aligned one to one for the most φ4 = 2|k ∩ r| / (|k| + |r|),
over the number of key / response entities), each an F1 of recall (key against response) and
precision (the reverse). Luo's (2005) example scores MUC 94.7, B³ 86.5, CEAFe 73.3
(tests/eval/test_coref.py).
"""

from __future__ import annotations

from collections.abc import Mapping

Slot = tuple[int, str]


def entities(values: Mapping[Slot, str]) -> dict[str, frozenset[Slot]]:
    """Slots grouped by the value that fills them (scene roles left out: a place shared by a
    whole window is not an entity)."""
    out: dict[str, set[Slot]] = {}
    for slot, value in values.items():
        if value and slot[1] != "AScn":
            out.setdefault(value.strip().lower(), set()).add(slot)
    return {v: frozenset(s) for v, s in out.items()}


def _link(n: int) -> float:
    return n * (n - 1) / 2


def _side(a: Mapping[str, frozenset[Slot]], b: Mapping[str, frozenset[Slot]],
          importance: Mapping[str, float] | None = None) -> float:
    """LEA's recall of ``a`` by ``b`` (swap them for precision); ``importance`` scales each
    entity of ``a`` in the numerator only (LEA-soft)."""
    total = sum(len(e) for e in a.values())
    if not total:
        return 0.0
    score = 0.0
    for va, ea in a.items():
        if len(ea) == 1:
            res = float(any(eb == ea for eb in b.values()))
        else:
            res = sum(_link(len(ea & eb)) for eb in b.values()) / _link(len(ea))
        score += len(ea) * res * (1.0 if importance is None else importance[va])
    return score / total


def lea(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
    """LEA F1 of the response's co-reference against the key's."""
    k, r = entities(key), entities(response)
    return _f1(_side(k, r), _side(r, k))


def lea_soft(key: Mapping[Slot, str], response: Mapping[Slot, str],
             cider: Mapping[Slot, float]) -> float:
    """LEA-soft F1: LEA's recall, the precision with each response entity's importance
    times the mean of ``cider`` (per slot) over its mentions. Only the key's slots are
    mentions of the response, as VidSitu's evaluator builds them."""
    k = entities(key)
    r = entities({slot: v for slot, v in response.items() if slot in key})
    mean_c = {v: sum(cider.get(m, 0.0) for m in e) / len(e) for v, e in r.items()}
    return _f1(_side(k, r), _side(r, k, mean_c))


def _f1(recall: float, precision: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _muc_side(a: Mapping[str, frozenset[Slot]], b: Mapping[str, frozenset[Slot]]) -> float:
    links = sum(len(e) - 1 for e in a.values())
    if not links:
        return 0.0
    owner = {m: v for v, e in b.items() for m in e}
    kept = 0
    for e in a.values():
        parts = {owner.get(m, ("alone", m)) for m in e}  # a mention b lacks is its own part
        kept += len(e) - len(parts)
    return kept / links


def muc(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
    """MUC F1 (Vilain et al., 1995): the links kept."""
    k, r = entities(key), entities(response)
    return _f1(_muc_side(k, r), _muc_side(r, k))


def _b3_side(a: Mapping[str, frozenset[Slot]], b: Mapping[str, frozenset[Slot]]) -> float:
    total = sum(len(e) for e in a.values())
    if not total:
        return 0.0
    return sum(len(ea & eb) ** 2 / len(ea) for ea in a.values() for eb in b.values()) / total


def b_cubed(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
    """B³ F1 (Bagga and Baldwin, 1998), as the CoNLL scorer sums it over entity pairs."""
    k, r = entities(key), entities(response)
    return _f1(_b3_side(k, r), _b3_side(r, k))


def ceaf_e(key: Mapping[Slot, str], response: Mapping[Slot, str]) -> float:
    """Entity CEAF F1 (Luo, 2005) with φ4, the entities aligned by a maximum-weight matching."""
    import networkx as nx

    k, r = list(entities(key).values()), list(entities(response).values())
    if not k or not r:
        return 0.0
    graph = nx.Graph()
    for i, ek in enumerate(k):
        for j, er in enumerate(r):
            if ek & er:
                graph.add_edge(("k", i), ("r", j), weight=2 * len(ek & er) / (len(ek) + len(er)))
    best = sum(graph.edges[a, b]["weight"] for a, b in nx.max_weight_matching(graph))
    return _f1(best / len(k), best / len(r))

