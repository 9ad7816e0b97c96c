"""Fixed predictions on which xlebench's metrics and the papers' official evaluators are run
side by side (`tests/eval/test_parity_vidsitu.py`, `tests/eval/test_parity_multihop.py`).
`benchmarks/parity_official.py` feeds the same fixtures to the official code, fetched at its
published commits, and prints the expected values the tests keep.

VidSitu windows: five events each, one to three annotators per window, every scored role
(Arg0, Arg1, Arg2, ALoc, AScn), values drawn from a small vocabulary so that values repeat
across events (co-reference), events no narration names a verb for (no roles either), and
annotators who disagree on some values. Replies: the first annotator's values (``perfect``),
every other slot and verb wrong (``corrupted``), one value and one verb list for everything
(``constant``), and each value's last word only (``one_word``).
"""

from __future__ import annotations

import random

ROLE_NAMES = ("Arg0", "Arg1", "Arg2", "ALoc", "AScn")
#: VidSitu's annotation keys (``arg_mapper`` maps them back to the short names)
OFFICIAL_KEYS = {"Arg0": "Arg0 (agent)", "Arg1": "Arg1 (thing acted upon)",
                 "Arg2": "Arg2 (instrument)", "ALoc": "ArgM (location)",
                 "AScn": "Scene of the Event"}
VALUES = {"Arg0": ["C", "C", "man X", "woman Y"],
          "Arg1": ["the onion", "a knife", "the cup", "onion", "the red cup", "dough"],
          "Arg2": ["a knife", "the spoon", "a brush"],
          "ALoc": ["on the table", "in the sink", "on the counter"],
          "AScn": ["kitchen", "the kitchen", "garden"]}
VERBS = ["cut", "wash", "pick", "put", "hold", "open", "stir", "pour", "take", "wipe", "knead",
         "fold", "sweep", "rinse", "grab", "drop", "peel", "scrub"]
CASES = ("perfect", "corrupted", "constant", "one_word")


#: annotators per window of each fixture corpus (VidSitu's code needs every window to have as
#: many as its first: it raises IndexError on a window with fewer)
CORPORA = {"two_annotators": 2, "three_annotators": 3}


def windows(annotators: int, n: int = 24, seed: int = 7) -> list[list[dict]]:
    """``n`` windows of five events in xlebench's item layout (``answer.events``)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        scene = rng.choice(VALUES["AScn"])
        events = []
        for _ in range(5):
            if rng.random() < 0.15:  # unnarrated: no verb, no roles
                events.append({"verbs_gt": [], "roles": {}, "annotators": 0})
                continue
            verbs = rng.sample(VERBS, rng.choice([1, 1, 2]))
            slots = ["Arg0", "Arg1", *sorted(rng.sample(["Arg2", "ALoc"], rng.randint(0, 2)))]
            first = {r: rng.choice(VALUES[r]) for r in slots} | {"AScn": scene}
            by = [first] + [{r: v if rng.random() < 0.7 else rng.choice(VALUES[r])
                             for r, v in first.items()} for _ in range(annotators - 1)]
            event = {"verbs_gt": verbs, "roles": first, "annotators": annotators}
            if annotators > 1:
                event["roles_by_annotator"] = by
                event["verbs_by_annotator"] = [verbs] * annotators
            events.append(event)
        out.append(events)
    return out


def predictions(events: list[dict], case: str, seed: int) -> list[dict]:
    """Per event: ``{"verbs": top-5 list, "roles": {role: value}}`` for one reply case."""
    rng = random.Random(f"{case}-{seed}")
    out = []
    for k, ev in enumerate(events):
        if case == "constant":
            out.append({"verbs": ["take", "put", "hold", "pick", "cut"],
                        "roles": dict.fromkeys(ev["roles"], "the man")})
            continue
        wrong = case == "corrupted" and k % 2 == 1
        verbs = [rng.choice(VERBS)] if wrong or not ev["verbs_gt"] else list(ev["verbs_gt"])
        roles = {}
        for j, (r, v) in enumerate(sorted(ev["roles"].items())):
            if case == "corrupted" and j % 2 == 0:
                v = rng.choice([x for x in VALUES[r] if x != v])
            roles[r] = v.split()[-1] if case == "one_word" else v
        out.append({"verbs": verbs[:5], "roles": roles})
    return out


def reply(preds: list[dict]) -> str:
    """The reply a system writes for ``preds`` (``Event k: verbs: ...; Arg0: ...``)."""
    lines = []
    for k, p in enumerate(preds, start=1):
        parts = [f"verbs: {', '.join(p['verbs'])}", *(f"{r}: {v}" for r, v in p["roles"].items())]
        lines.append(f"Event {k}: " + "; ".join(parts))
    return "\n".join(lines)


#: The verb task on annotators who disagree (VidSitu's ``vb_classf_metrics_all`` receives every
#: annotator's verb): a small vocabulary so that some verbs are named by two or more
#: annotators in more than nine events (its headline threshold).
PASS_VERBS = ["cut", "wash", "pick up", "put down", "hold", "open", "stir", "pour"]
VERB_CASES = ("union", "first_pass", "agreed", "corrupted", "constant")


def verb_windows(n: int = 30, seed: int = 5) -> list[list[dict]]:
    """``n`` windows of five events in xlebench's item layout whose annotators (one to three
    narration passes an event) often name different verbs: the stored ``verbs_gt`` is what
    xlebench's windows store (the verbs two passes agree on, or the one pass's), and
    ``verbs_by_annotator`` every pass's, where two or more narrate the event. A few events
    no pass narrates."""
    from xlebench.tasks.vidsitu.srl import agreed_verbs

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        events = []
        for _ in range(5):
            passes = rng.choice([0, 1, 1, 2, 2, 2, 3])
            if passes == 0:
                events.append({"verbs_gt": [], "roles": {}, "annotators": 0})
                continue
            first = rng.sample(PASS_VERBS, rng.choice([1, 1, 2]))
            by = [first] + [first if rng.random() < 0.5 else
                            rng.sample(PASS_VERBS, rng.choice([1, 2])) for _ in range(passes - 1)]
            event = {"verbs_gt": agreed_verbs(by), "roles": {"Arg0": "C"}, "annotators": passes}
            if passes > 1:
                event["verbs_by_annotator"] = by
            events.append(event)
        out.append(events)
    return out


def passes_of(event: dict) -> list[list[str]]:
    """Each annotator's verbs for an event (one annotator: its stored verbs; none: none)."""
    return event.get("verbs_by_annotator") or ([event["verbs_gt"]] if event["verbs_gt"] else [])


def verb_predictions(events: list[dict], case: str, seed: int) -> list[list[str]]:
    """Per event, a top-5 verb list for one reply case: every annotator's verbs (``union``),
    the first annotator's (``first_pass``), the agreed ones (``agreed``), every other event
    wrong (``corrupted``), one list for everything (``constant``)."""
    rng = random.Random(f"verbs-{case}-{seed}")
    out = []
    for k, ev in enumerate(events):
        every = list(dict.fromkeys(v for p in passes_of(ev) for v in p))
        if case == "constant":
            verbs = ["hold", "cut", "take", "open", "wash"]
        elif case == "union":
            verbs = every
        elif case == "first_pass":
            verbs = list(passes_of(ev)[0]) if every else []
        elif case == "agreed":
            verbs = list(ev["verbs_gt"])
        else:
            verbs = every if k % 2 == 0 else [rng.choice([v for v in PASS_VERBS
                                                          if v not in every] or ["nap"])]
        out.append((verbs or [rng.choice(PASS_VERBS)])[:5])
    return out


#: MultiHop-EgoQA answer texts: (reference, perfect, corrupted, constant) per item
ANSWERS = [
    ("C put the cup on the table.", "C put the cup on the table.",
     "C put the cup on the counter.", "C did it."),
    ("C washed the dishes in the sink twice.", "C washed the dishes in the sink twice.",
     "C washed dishes twice.", "C did it."),
    ("The man opened the fridge and took out milk.",
     "The man opened the fridge and took out milk.",
     "The man opened the door and took out a bottle.", "C did it."),
    ("C cut the onion with a knife.", "C cut the onion with a knife.",
     "cut onion", "C did it."),
    ("C picked up the phone from the counter.", "C picked up the phone from the counter.",
     "C picked the phone up from the counter near the sink.", "C did it."),
    ("Yes.", "Yes.", "No.", "C did it."),
]


RELATIONS = ("Caused By", "Enabled By", "Reaction To", "No Relation")


def relation_windows(n: int = 30, seed: int = 11) -> list[list[dict[str, str]]]:
    """``n`` windows' three labellers' votes on events 1, 2, 4, 5, each event with a
    majority (two or three alike), as xlebench keeps them."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        votes: list[dict[str, str]] = [{}, {}, {}]
        for event in ("1", "2", "4", "5"):
            label = rng.choice(RELATIONS)
            other = rng.choice([r for r in RELATIONS if r != label])
            picks = [label, label, label if rng.random() < 0.5 else other]
            rng.shuffle(picks)
            for v, pick in zip(votes, picks, strict=True):
                v[event] = pick
        out.append(votes)
    return out


def relation_predictions(majority: dict[str, str], case: str) -> dict[str, str]:
    """One reply case's labels for events 1, 2, 4, 5."""
    if case == "constant":
        return dict.fromkeys(majority, "No Relation")
    if case == "corrupted":
        return {e: (RELATIONS[(RELATIONS.index(lab) + 1) % 4] if e in ("2", "5") else lab)
                for e, lab in majority.items()}
    return dict(majority)
