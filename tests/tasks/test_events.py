"""VidSitu recipes: roles by rule, the macro verb recall by hand, CIDEr-D sanity, relation
labels through the loopback LLM, and how few windows real-density narrations allow."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from tests.conftest import make_client
from xlebench.eval.metrics.cider import cider_d
from xlebench.eval.metrics.corpus import class_averaged_accuracy, verb_recall_macro
from xlebench.eval.scorers import ScoreSettings, parse_events
from xlebench.library.annotations import AnnotationIndex, Narration
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.vidsitu.event_relation import RECIPE as RELATION
from xlebench.tasks.vidsitu.event_srl import RECIPE as SRL
from xlebench.tasks.vidsitu.srl import coreference, events_in, parse_roles
from xlebench.testing.loopback import LoopbackLLMServer
from xlebench.testing.scripted_llm import ScriptedModel


def _metrics(recipe: object, items: list[dict], replies: list[str]) -> dict[str, float]:
    """The recipe's metrics (all corpus metrics for VidSitu) over these items' replies."""
    scorer = recipe.scorer  # type: ignore[attr-defined]
    details = [scorer.details(it, r) for it, r in zip(items, replies, strict=True)]
    return {name: fn(details) for name, fn in scorer.corpus().items()
            if not (fn.unavailable and fn.unavailable())}


def scorer_of(scorer: object) -> object:
    """A stand-in recipe holding ``scorer`` (what `_metrics` reads)."""
    return type("R", (), {"scorer": scorer})()


def test_roles_by_rule() -> None:
    assert parse_roles("#C C cuts the onion with a knife on the board", "indoor") == (
        "cut", {"Arg0": "C", "Arg1": "onion", "Arg2": "knife", "ALoc": "board"})
    assert parse_roles("#O man X opens the door", "indoor") == (
        "open", {"Arg0": "man X", "Arg1": "door", "AScn": "indoor"})
    assert parse_roles("#C C picks up a cup #unsure", "indoor") is None
    # "with" someone is the comitative, not an instrument; "to" someone the recipient
    assert parse_roles("#C C walks with woman Y", "") == ("walk", {"Arg0": "C",
                                                              "ACom": "woman y"})
    assert parse_roles("#C C gives the cup to man X", "") == (
        "give", {"Arg0": "C", "Arg1": "cup", "Arg2": "man x"})


def test_macro_verb_recall_by_hand() -> None:
    """An event's true verbs are every annotator's, a verb once per annotator naming it; the
    recall counts the verbs two or more name (VidSitu's ``Counter(gt1)`` entries >= 2)."""
    details = [{"events": [[["cut", "cut"], ["cut"]],
                           [["cut", "slice", "cut", "slice"], ["wash"]],
                           [["wash", "wash"], ["wash"]]]}]
    # R_cut = 1/2, R_slice = 0, R_wash = 1
    assert verb_recall_macro(details) == pytest.approx(0.5)
    # a frequent verb does not outweigh a rare one (micro would say 3/4), and a right verb in
    # second place counts (Recall@5, not @1): R_cut = 3/3, R_stir = 0
    skewed = [{"events": [[["cut", "cut"], ["wash", "cut"]], [["cut", "cut"], ["cut"]],
                          [["cut", "cut"], ["cut"]], [["stir", "stir"], ["wash"]]]}]
    assert verb_recall_macro(skewed) == pytest.approx(0.5)
    # a verb one annotator names feeds no recall: "chop" here is no key
    one = [{"events": [[["cut", "cut", "chop"], ["chop"]]]}]
    assert verb_recall_macro(one) == 0.0


def test_cider_d_sanity() -> None:
    same, other = cider_d(["the red cup", "a blue door"], [["the red cup"], ["the green box"]])
    assert same > 1.0 and other == 0.0


def test_cider_d_equals_the_reference_implementation() -> None:
    """pycocoevalcap's CiderScorer (CIDEr-D: clipping and the length penalty) on the same
    pre-tokenised text, candidates and references of different lengths, several references."""
    from pycocoevalcap.cider.cider_scorer import CiderScorer

    rng = random.Random(4)
    vocab = "c the a cup onion knife table pan cuts holds washes on with red blue".split()
    cands, refs = [], []
    for _ in range(40):
        cands.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9))))
        refs.append([" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
                     for _ in range(rng.randint(1, 3))])
    ref = CiderScorer(n=4, sigma=6.0)
    for c, r in zip(cands, refs, strict=True):
        ref += (c, r)
    _, expected = ref.compute_score()
    assert cider_d(cands, refs) == pytest.approx(list(expected), abs=1e-8)


def test_relations_class_averaged_and_the_majority_floor() -> None:
    labels = ["Caused By", "Enabled By", "Reaction To", "No Relation"]
    gt = [[label, "Enabled By"] for label in labels * 3]
    assert class_averaged_accuracy([{"relations": gt}]) == pytest.approx(0.25)
    assert class_averaged_accuracy([{"relations": [[g, g] for g, _ in gt]}]) == 1.0
    # classes of unequal size: each class weighs the same (9 of 10 right overall, but the
    # one "Caused By" is wrong: (1 + 0) / 2, not 0.9)
    skewed = [["No Relation", "No Relation"]] * 9 + [["Caused By", "No Relation"]]
    assert class_averaged_accuracy([{"relations": skewed}]) == pytest.approx(0.5)


SEG = {"index": 0, "video_uid": "v", "start_s": 36000, "end_s": 36600, "source_start_s": 0.0,
       "source_end_s": 60.0}
LOG = {"lifelog_id": "uk-intj-000000-short", "category": "short", "segments": [SEG]}


def _ctx(narrations: list[Narration], llm=None, name: str = "event_srl",
         passes: int = 1) -> Context:
    ann = AnnotationIndex(narration_file="narration.json")
    ann.narrations["v"] = [narrations] * passes
    return Context(name, "event_understanding", LOG, {}, ann, random.Random(0),
                   offline_aggregate, llm=llm)


DENSE = [Narration(t + 0.5, text, "x") for t, text in enumerate(
    ["#C C cuts the onion", "#C C holds the knife", "#C C cuts the onion",
     "#C C washes the pan", "#O man X opens the door", "#C C stirs the soup"] * 10)]


def test_an_event_window_has_five_events_with_verbs_and_coreference() -> None:
    items = SRL.build(_ctx(DENSE, passes=2), SRL.params({"max_windows_per_source": 1})).items
    (item,) = items
    events = item["answer"]["events"]
    assert len(events) == 5 and all(e["verbs_gt"] for e in events)
    starts = [e["interval"][0] for e in events]
    assert all(e["interval"][1] - e["interval"][0] == 2.0 for e in events)
    assert starts == [starts[0] + 2.0 * k for k in range(5)]
    assert any(c["entity"] == "onion" for c in item["provenance"]["coreference"])
    perfect = _metrics(SRL, [item], [item["answer"]["text"]])
    assert perfect["acc@1"] == perfect["acc@5"] == perfect["verb_r5"] == 1.0
    assert set(parse_events(item["answer"]["text"])) == {1, 2, 3, 4, 5}
    # a wrong verb first, the right ones after it: Acc@1 reads the first verb only, Acc@5
    # the first five (the second event's right verbs only at sixth place)
    late = {1: ["fly", *events[0]["verbs_gt"]], 2: ["fly", "x1", "x2", "x3", "x4",
                                                    *events[1]["verbs_gt"]]}
    reply = "\n".join(f"Event {k}: verbs: " + ", ".join(late.get(k, e["verbs_gt"]))
                      for k, e in enumerate(events, start=1))
    scored = _metrics(SRL, [item], [reply])
    assert scored["acc@1"] == pytest.approx(3 / 5) and scored["acc@5"] == pytest.approx(4 / 5)
    # an event no narration names a verb for is a miss (VidSitu's Per_Ev_Top_k)
    unlabelled = {k: v for k, v in events[0].items() if k != "verbs_by_annotator"}
    verbless = {**item, "answer": {**item["answer"], "events": [
        {**unlabelled, "verbs_gt": [], "annotators": 0}, *events[1:]]}}
    assert _metrics(SRL, [verbless], [item["answer"]["text"]])["acc@1"] == pytest.approx(4 / 5)


def test_roles_are_asked_given_the_true_verbs() -> None:
    """VidSitu scores roles given the ground-truth verbs: the query names each event's verbs,
    the reference holds the roles only, and the same windows as the verb task are used."""
    from xlebench.tasks.vidsitu.event_roles import RECIPE as ROLES

    params = {"max_windows_per_source": 1}
    (verbs,) = SRL.build(_ctx(DENSE), SRL.params(params)).items
    (roles,) = ROLES.build(_ctx(DENSE, name="event_roles"), ROLES.params(params)).items
    assert roles["period"] == verbs["period"]
    assert "cut, hold" in roles["query"] and "cut" not in verbs["query"]
    assert "verbs:" not in roles["answer"]["text"] and "Arg1: onion" in roles["answer"]["text"]
    s = ScoreSettings(bertscore=False)
    exact = _metrics(ROLES, [roles], [roles["answer"]["text"]])
    # an exact reply: every text score and co-reference score is 1 (VidSitu's corpus BLEU
    # and METEOR of one-word values too: pycocoevalcap's, not a sentence score)
    assert {k: v for k, v in exact.items() if not k.startswith(("cider", "lea_soft"))} == {
        k: pytest.approx(1.0) for k in exact if not k.startswith(("cider", "lea_soft"))}
    assert {"rouge_args", "bleu1_args", "bleu2_args", "lea", "muc", "b3", "ceafe"} <= set(exact)
    from xlebench.eval.score import corpus_metrics, score_items

    rows = score_items([roles], {roles["item_id"]: roles["answer"]["text"]},
                       {"event_roles": ROLES}, s)
    cider = corpus_metrics({"event_roles": ROLES})["event_roles"]
    assert {"cider_d", "cider_d_arg", "cider_d_verb", "lea_soft"} <= set(cider)
    assert cider["cider_d_verb"]([r["details"] for r in rows]) > 0
    assert cider["lea_soft"]([r["details"] for r in rows]) > 0


def test_real_density_leaves_few_windows_and_says_so() -> None:
    sparse = [Narration(4.5 * k, "#C C cuts the onion", "x") for k in range(13)]
    out = SRL.build(_ctx(sparse), SRL.params({}))
    kept, seen = out.stats["windows with enough narrated events"], out.stats["candidate windows"]
    assert seen == 11 and kept < seen / 2
    assert events_in([sparse], 0.0, 2.0, 5, "")[1].narrated is False


def test_relations_are_labelled_by_the_llm_and_absent_without_one(tmp_path: Path) -> None:
    none = RELATION.build(_ctx(DENSE), RELATION.params({"max_windows_per_source": 1}))
    assert none.items == [] and sum(none.stats.values()) == 1
    with LoopbackLLMServer(ScriptedModel()) as srv:
        ctx = _ctx(DENSE, llm=make_client(srv, tmp_path))
        (item,) = RELATION.build(ctx, RELATION.params({"max_windows_per_source": 1})).items
    assert item["answer"]["relations"] == {"1": "Enabled By", "2": "No Relation",
                                           "4": "Caused By", "5": "Reaction To"}
    score = RELATION.scorer.score(item, item["answer"]["text"], ScoreSettings())
    assert score == {"relation_item_acc": 1.0}
    # the query gives times only; the labeller read both passes around the window
    assert "onion" not in item["query"] and "cut" not in item["query"]
    assert "(event 3: 10:00:06 - 10:00:08)" not in item["query"] and "event 3: " in item["query"]
    assert item["provenance"]["labeller_saw"]["narrations_s"][1] - \
        item["provenance"]["labeller_saw"]["narrations_s"][0] == 30.0
    assert item["provenance"]["labellers"] == 3 and item["provenance"]["agreement"] == 1.0


def test_relation_labels_are_the_majority_of_three() -> None:
    """VidSitu keeps the label most annotators give: 2 of 3 decide, a three-way split leaves
    the window out; agreement is the share of events all samples labelled alike."""
    from xlebench.tasks.vidsitu.event_relation import majority

    a = {"1": "Caused By", "2": "No Relation", "4": "Enabled By", "5": "Reaction To"}
    b = {**a, "1": "Enabled By"}
    c = {**a, "1": "Reaction To", "2": "Caused By"}
    assert majority([a, a, b]) == (a, 0.75)
    assert majority([a, b, c]) == (None, 0.0)  # event 1: three labels, no majority
    assert majority([a]) == (a, 1.0)


def test_relations_are_never_asked_about_an_empty_reference_event(tmp_path: Path) -> None:
    """Narrations every second except 4-6 s of every 10: windows starting on a multiple of
    10 s have four narrated events but an empty event 3, and are left out, counted (with
    ``min_narrated_events=4``; by default a window has every event narrated)."""
    gaps = [Narration(t + 0.5, "#C C cuts the onion", f"g{t}") for t in range(60)
            if t % 10 not in (4, 5)]
    with LoopbackLLMServer(ScriptedModel()) as srv:
        ctx = _ctx(gaps, llm=make_client(srv, tmp_path))
        built = RELATION.build(ctx, RELATION.params({"max_windows_per_source": 5,
                                                     "max_items_per_log": None,
                                                     "min_narrated_events": 4}))
    assert built.stats["windows whose reference event has no narration"] >= 1
    assert all((it["period"]["start_s"] - 36000) % 10 != 0 for it in built.items)


def test_coreference_is_exact_string_match() -> None:
    events = events_in([DENSE], 0.0, 2.0, 5, "indoor")
    assert [e.verbs for e in events] == [["cut", "hold"], ["cut", "wash"], ["open", "stir"],
                                         ["cut", "hold"], ["cut", "wash"]]
    assert coreference(events) == [{"entity": "C", "events": [0, 1, 3, 4]},
                                   {"entity": "onion", "events": [0, 1, 3, 4]}]


def test_references_are_other_annotators_and_verbs_need_two_of_them() -> None:
    """VidSitu's ground truth: a second narration of the *same* pass is another action, never
    a reference ("pours the salt" is not another description of "stirs the onion"); verbs
    are kept where two annotators agree, and one annotator's event says it has one."""
    from xlebench.tasks.vidsitu.event_windows import _event

    one_pass = [[Narration(0.2, "#C C pours the salt into the stove", "a"),
                 Narration(1.1, "#C C stirs the onion in the sink", "b")]]
    ev = events_in(one_pass, 0.0, 2.0, 1, "kitchen")[0]
    assert ev.other_roles == [] and ev.annotators == 1 and ev.verbs == ["pour", "stir"]
    assert "references" not in _event(ev, (0.0, 2.0), ["Arg0", "Arg1"])
    two = [one_pass[0], [Narration(0.4, "#C C stirs the onion in the pan", "c"),
                         Narration(1.5, "#C C wipes the counter", "d")]]
    ev = events_in(two, 0.0, 2.0, 1, "kitchen")[0]
    assert ev.annotators == 2 and ev.verbs == ["stir"], "pour and wipe: one annotator each"
    assert ev.other_roles == [{"Arg0": "C", "Arg1": "onion", "ALoc": "pan"}]
    made = _event(ev, (0.0, 2.0), ["Arg0", "Arg1", "ALoc"])
    assert made["references"] == [{"Arg0": "C", "Arg1": "onion", "ALoc": "pan"}], \
        "the other annotator's roles only, never the event's own"
    assert made["roles"] not in made["references"]


def test_every_annotators_roles_are_references() -> None:
    """Two narrations of one event (Ego4D's two passes) give two references for its roles:
    a reply with the second annotator's object scores as well as one with the first's, and
    the co-reference of a reply is scored by LEA."""
    from xlebench.eval.scorers import EventRoles
    from xlebench.tasks.vidsitu.event_windows import _event

    passes = [[Narration(0.5, "#C C cuts the onion with the knife", "a")],
              [Narration(0.7, "#C C cuts the vegetable with the knife", "b")]]
    ev = events_in(passes, 0.0, 2.0, 1, "kitchen")[0]
    assert ev.roles["Arg1"] == "onion" and ev.other_roles[0]["Arg1"] == "vegetable"
    answer = _event(ev, (0.0, 2.0), ["Arg0", "Arg1", "Arg2", "ALoc", "AScn"])
    assert answer["references"][0]["Arg1"] == "vegetable"
    item = {"answer": {"events": [answer]}}
    scorer = EventRoles()
    first = _metrics(scorer_of(scorer), [item], ["Event 1: Arg0: C; Arg1: onion; Arg2: knife"])
    second = _metrics(scorer_of(scorer), [item],
                      ["Event 1: Arg0: C; Arg1: vegetable; Arg2: knife"])
    # cut.01's Arg2 is "medium, source" (its instrument is Arg3): the knife is no slot; the
    # reply leaves the scene (AScn) out
    assert answer["sense"] == "cut.01" and "Arg2" not in answer["roles"]
    assert second["rouge_args"] == first["rouge_args"] == pytest.approx(2 / 3)
    assert second["bleu1_args"] == pytest.approx(first["bleu1_args"])
    assert first["bleu1_args"] == pytest.approx(math.exp(1 - 3 / 2))  # 2 words of 3: brevity
    details = scorer.details(item, "Event 1: Arg0: C; Arg1: vegetable; Arg2: knife")
    assert ["Arg1", "onion", "vegetable", "cut", ["vegetable"], 1] in details["roles"]
    assert "lea" in first and "lea_soft" in first


@pytest.mark.parametrize(("line", "roles"), [
    ("#C C walks with woman Y", {"Arg0": "C", "ACom": "woman y"}),
    ("#O man X walks with C", {"Arg0": "man X", "ACom": "c"}),
    ("#C C talks to man X", {"Arg0": "C", "Arg2": "man x"}),
    ("#C C gives the cup to woman X", {"Arg0": "C", "Arg1": "cup", "Arg2": "woman x"}),
    ("#C C cuts the onion using the knife", {"Arg0": "C", "Arg1": "onion", "Arg2": "knife"}),
    ("#C C stands near man X in the kitchen", {"Arg0": "C", "ALoc": "kitchen"}),
    ("#C C cuts the onion with the knife on the board",
     {"Arg0": "C", "Arg1": "onion", "Arg2": "knife", "ALoc": "board"}),
])
def test_prepositions_of_real_narrations_give_their_roles(line: str, roles: dict) -> None:
    """With someone is company, not an instrument; to someone is the recipient; near someone
    is no place."""
    assert parse_roles(line, "")[1] == roles


def test_the_human_row_scores_one_annotator_against_the_others() -> None:
    """VidSitu's human estimate: an event's first reference is the reply, scored against the
    item's roles with the remaining references; events nobody else described are not scored;
    an item of one annotator has no human reply."""
    from xlebench.eval.judges.human import human_agreement, human_lines
    from xlebench.eval.score import corpus_metrics
    from xlebench.tasks.vidsitu.event_roles import RECIPE as ROLES_RECIPE
    from xlebench.tasks.vidsitu.event_roles import human

    def item(k: int, refs: bool) -> dict:
        events = [{"interval": [0, 2], "verbs_gt": ["cut"], "annotators": 2 if refs else 1,
                   "roles": {"Arg0": "C", "Arg1": "onion", "ALoc": "kitchen"},
                   **({"references": [{"Arg0": "C", "Arg1": "onion", "ALoc": "counter"},
                                      {"Arg0": "C", "Arg1": "onions"}]} if refs else {})},
                  {"interval": [2, 4], "verbs_gt": ["wash"], "annotators": 1,
                   "roles": {"Arg0": "C", "Arg1": "plate"}}]
        return {"item_id": f"i{k}", "subtask": "event_roles", "lifelog_id": "l", "category": "short",
                "evidence": [{"video_uid": f"v{k}"}], "answer": {"events": events}}
    seen, reply = human(item(0, True))
    assert reply == "Event 1: Arg0: C; Arg1: onion; ALoc: counter\nEvent 2: "
    assert seen["answer"]["events"][0]["references"] == [{"Arg0": "C", "Arg1": "onions"}]
    assert seen["answer"]["events"][1]["roles"] == {}  # no second annotator: not scored
    assert human(item(1, False)) is None
    recipes = {"event_roles": ROLES_RECIPE}
    got = human_agreement([item(0, True), item(1, False), item(2, True)], recipes,
                          ScoreSettings(bertscore=False), {"event_roles": "cider_d"},
                          corpus_metrics(recipes), 20, 0)["event_roles"]
    assert got["n"] == 2 and got["of"] == 3 and got["mean"] > 0
    assert "on the 2 of 3 items with a second annotator" in human_lines({"event_roles": got})[0]


def test_the_verb_human_row_scores_one_annotator_against_the_others_agreement() -> None:
    """event_srl's human estimate: annotator 1's verbs against the verbs annotators 2..N agree
    on (2 of N when N >= 2); events with one annotator are not scored; real passes keep each
    annotator's verbs on the answer."""
    from xlebench.eval.judges.human import human_agreement
    from xlebench.eval.score import corpus_metrics
    from xlebench.tasks.vidsitu.event_srl import RECIPE as VERBS_RECIPE
    from xlebench.tasks.vidsitu.event_srl import human

    def item(k: int, passes: list[list[str]]) -> dict:
        events = [{"interval": [0, 2], "verbs_gt": ["cut"], "annotators": len(passes),
                   **({"verbs_by_annotator": passes} if len(passes) > 1 else {})},
                  {"interval": [2, 4], "verbs_gt": ["wash"], "annotators": 1}]
        return {"item_id": f"i{k}", "subtask": "event_srl", "lifelog_id": "l",
                "category": "short", "evidence": [{"video_uid": f"v{k}"}],
                "answer": {"events": events}}
    seen, reply = human(item(0, [["cut"], ["cut", "slice"], ["slice", "hold"]]))
    assert reply == "Event 1: verbs: cut\nEvent 2: verbs: "
    assert [e["verbs_gt"] for e in seen["answer"]["events"]] == [["slice"], []]
    assert human(item(1, [["cut"]])) is None
    recipes = {"event_srl": VERBS_RECIPE}
    # the recall counts verbs two of the other annotators name: three passes an event
    items = [item(0, [["cut"], ["cut"], ["cut"]]), item(1, [["cut"]]),
             item(2, [["cut"], ["chop"], ["chop"]])]
    got = human_agreement(items, recipes, ScoreSettings(bertscore=False),
                          {"event_srl": "verb_r5"}, corpus_metrics(recipes), 20, 0)
    assert got["event_srl"]["n"] == 2 and got["event_srl"]["mean"] == 0.5  # cut 1/1, chop 0/1
    (real,) = events_in([[Narration(0.5, "#C C cuts the onion", "a")],
                         [Narration(0.7, "#C C slices the onion", "b")]], 0.0, 2.0, 1, "")
    assert real.verbs_by_pass == [["cut"], ["slice"]]


def test_role_values_score_against_their_best_reference() -> None:
    """ROUGE-L, BLEU and METEOR of a role value take its best reference: the window's own
    annotation or another annotator's (VidSitu's several references per role)."""
    from xlebench.eval.scorers.events import EventRoles

    item = {"item_id": "w", "answer": {"events": [
        {"verbs_gt": ["cut"], "roles": {"Arg0": "C", "Arg1": "onion"},
         "references": [{"Arg0": "C", "Arg1": "red onion"}]}]}}
    recipe = scorer_of(EventRoles())
    other = _metrics(recipe, [item], ["Event 1: Arg0: C; Arg1: red onion"])
    own = _metrics(recipe, [item], ["Event 1: Arg0: C; Arg1: onion"])
    assert other["rouge_args"] == own["rouge_args"] == 1.0
    assert other["bleu1_args"] == pytest.approx(1.0) == own["bleu1_args"]


def test_kept_windows_never_overlap() -> None:
    """Windows are tried every stride (5 s) but those kept lie a window (10 s) apart."""
    items = SRL.build(_ctx(DENSE), SRL.params({"max_windows_per_source": 5})).items
    starts = sorted(it["evidence"][0]["source_start_s"] for it in items)
    assert len(starts) >= 3
    assert all(b - a >= 10.0 for a, b in zip(starts, starts[1:], strict=False))


@pytest.mark.parametrize("line", ["#C C the cup", "#C C C picks up a cup", "#C C 2 cups",
                                  "#C C up", "#C C", "#C C c", "#O man X the door",
                                  "#C C with a knife"])
def test_a_verb_slot_holding_no_verb_names_no_action(line: str) -> None:
    """Real narrations hold typos: a function word, a number or the wearer again where the
    verb goes is no verb ("the", "up" and "c" never become reference verbs)."""
    from xlebench.tasks.language.actions import parse_narration

    assert parse_roles(line, "kitchen") is None
    assert parse_narration(line) is None
    assert parse_roles("#C C picks up a cup", "kitchen")[0] == "pick up"


def test_the_share_of_narrations_that_lose_their_actor_is_counted() -> None:
    """stats/tasks.json counts the narrations read for the kept events and those whose actor
    has no role in their verb's sense (a sense without Arg0 taking an object)."""
    from xlebench.library.senses import loses_actor, sense_of

    built = SRL.build(_ctx(DENSE, passes=2), SRL.params({"max_windows_per_source": 1}))
    assert built.stats["narrations read for the kept events"] >= 10
    assert built.stats["narrations whose actor has no role in their verb's sense"] == 0
    verb, roles = parse_roles("#C C sits the baby on the chair", "")  # sit.01: no Arg0
    assert loses_actor(sense_of(verb), roles)


@pytest.mark.parametrize(("text", "verb", "arg1"), [
    ("#C C un-screws the cap from the bottle", "un-screw", "cap"),
    ("#C C stir-fries the onions", "stir-fry", "onion"),
    ("#C C ПИЛИТ wood", None, None),       # not the verb "wood": an unparsed line
    ("#C C 3 cups", None, None),
    ("#O man X re-arranges the books", "re-arrange", "book"),
])
def test_the_verb_slot_is_one_word_whole_and_in_english_letters(text: str, verb, arg1) -> None:
    from xlebench.tasks.language.actions import parse_narration

    parsed, narrated = parse_roles(text, ""), parse_narration(text)
    if verb is None:
        assert parsed is None and narrated is None
        return
    assert parsed[0] == verb and parsed[1].get("Arg1", "").rstrip("s") == arg1
    assert narrated is None if text.startswith("#O") else narrated.verb == verb


#: Narrated every second but in each 10-s window's last two seconds: every window's fifth
#: event has no narration, so no verb.
FIFTH_UNLABELLED = [Narration(t + 0.5, "#C C cuts the onion", f"n{t}") for t in range(60)
                    if t % 10 < 8]


@pytest.mark.parametrize("name", ["event_srl", "event_roles", "event_relation"])
def test_a_window_whose_fifth_event_no_one_labelled_is_not_asked(name: str) -> None:
    """VidSitu asks about no event no one labelled: with each recipe's configuration as
    composed (conf/tasks/<name>.yaml), a window missing one event's verb is never an item;
    allowing four narrated events (a setting) asks them."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from tests.conftest import CONF
    from xlebench.commands.configstore import register
    from xlebench.tasks.recipe.registry import load_recipe

    register()
    with initialize_config_dir(str(CONF), version_base="1.3"):
        given = OmegaConf.to_container(compose("config", [f"tasks=[{name}]"]).tasks[name],
                                       resolve=True)
    from xlebench.tasks.recipe.context import Built
    from xlebench.tasks.vidsitu.event_windows import windows

    recipe = load_recipe(name)
    params = {k: v for k, v in given.items() if k in vars(recipe.params({}))}
    out = Built()
    kept = windows(_ctx(FIFTH_UNLABELLED, name=name, passes=2),
                   recipe.params({**params, "stride_s": 10.0}), SEG, out)
    assert out.stats["candidate windows"] >= 5 and not kept
    four = windows(_ctx(FIFTH_UNLABELLED, name=name, passes=2),
                   recipe.params({**params, "stride_s": 10.0, "min_narrated_events": 4}),
                   SEG, Built())
    assert len(four) >= 1
    if name == "event_srl":  # and the recipe asks nothing of them
        assert not recipe.build(_ctx(FIFTH_UNLABELLED, name=name, passes=2),
                                recipe.params({**params, "stride_s": 10.0})).items
