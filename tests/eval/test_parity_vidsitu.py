"""VidSitu's metrics under its names equal its official evaluator on the same predictions
(TheShadow29/VidSitu @ b794988a2de9 ``vidsitu_code/evl_fns.py``, with its pinned
TheShadow29/coval @ 2be2d074657b and TheShadow29/coco-caption @ ba713bf015f2, Meteor 1.5 from
PyPI's pycocoevalcap 1.2). The expected values are what that code printed for the fixtures of
`parity_fixtures` (``python benchmarks/parity_official.py vidsitu ...``): perfect, corrupted,
constant and one-word replies over 24 windows with two and with three annotators, events
without verbs among them. Where the official code stops (a window with fewer annotators than
the first, an annotator without a slot another gave), xlebench's rule is tested by itself."""

from __future__ import annotations

import numpy as np
import pytest

from tests.eval import parity_fixtures as fx
from xlebench.eval.metrics import meteor15
from xlebench.eval.scorers.events import EventRoles, EventVerbs
from xlebench.eval.table import _corpus_estimate

#: official key -> (scorer, xlebench's name)
NAMES = {"Per_Ev_Top_1": ("verbs", "acc@1"), "Per_Ev_Top_5": ("verbs", "acc@5"),
         "recall_macro_1_th_0": ("verbs", "verb_r5"),
         "recall_macro_1_th_9": ("verbs", "verb_r5_th9"), "cider": ("roles", "cider_d"),
         "MacroArg_cider": ("roles", "cider_d_arg"), "MacroVb_cider": ("roles", "cider_d_verb"),
         "bleu_1": ("roles", "bleu1_args"), "bleu_2": ("roles", "bleu2_args"),
         "rouge": ("roles", "rouge_args"), "meteor": ("roles", "meteor_args"),
         "lea": ("roles", "lea"), "lea_soft": ("roles", "lea_soft"), "muc": ("roles", "muc"),
         "bcub": ("roles", "b3"), "ceafe": ("roles", "ceafe")}
SCORERS = {"verbs": EventVerbs(), "roles": EventRoles()}

OFFICIAL = {
    "three_annotators": {
        "constant": {
            "Per_Ev_Top_1": 0.0833333, "Per_Ev_Top_5": 0.3166667,
            "recall_macro_1_th_0": 0.2777778, "recall_macro_1_th_9": 0.3333333,
            "cider": 0.2346938, "MacroArg_cider": 0.0832433, "MacroVb_cider": 0.239687,
            "bleu_1": 0.2721823, "bleu_2": 0.0, "rouge": 0.2544243, "meteor": 0.0725784,
            "lea": 0.1399532, "lea_soft": 0.0349333, "muc": 0.6110807, "bcub": 0.2318944,
            "ceafe": 0.0665252,
        },
        "corrupted": {
            "Per_Ev_Top_1": 0.5333333, "Per_Ev_Top_5": 0.5333333,
            "recall_macro_1_th_0": 0.6398489, "recall_macro_1_th_9": 0.609596,
            "cider": 1.8890429, "MacroArg_cider": 1.6377445, "MacroVb_cider": 1.8926279,
            "bleu_1": 0.6095979, "bleu_2": 0.5378668, "rouge": 0.6225, "meteor": 0.3419686,
            "lea": 0.4346026, "lea_soft": 0.5815811, "muc": 0.4976265, "bcub": 0.768621,
            "ceafe": 0.6773779,
        },
        "one_word": {
            "Per_Ev_Top_1": 0.8583333, "Per_Ev_Top_5": 0.8583333, "recall_macro_1_th_0": 1.0,
            "recall_macro_1_th_9": 1.0, "cider": 1.8872319, "MacroArg_cider": 1.7945723,
            "MacroVb_cider": 1.8490219, "bleu_1": 0.5036613, "bleu_2": 0.0005037,
            "rouge": 0.7401373, "meteor": 0.344156, "lea": 0.7431513, "lea_soft": 0.9997131,
            "muc": 0.8065135, "bcub": 0.8966243, "ceafe": 0.8308742,
        },
        "perfect": {
            "Per_Ev_Top_1": 0.8583333, "Per_Ev_Top_5": 0.8583333, "recall_macro_1_th_0": 1.0,
            "recall_macro_1_th_9": 1.0, "cider": 3.9261623, "MacroArg_cider": 4.1973914,
            "MacroVb_cider": 3.9185462, "bleu_1": 1.0, "bleu_2": 1.0, "rouge": 1.0,
            "meteor": 1.0, "lea": 0.7904307, "lea_soft": 1.2528573, "muc": 0.8328206,
            "bcub": 0.9153403, "ceafe": 0.8712094,
        },
    },
    "two_annotators": {
        "constant": {
            "Per_Ev_Top_1": 0.1, "Per_Ev_Top_5": 0.3416667, "recall_macro_1_th_0": 0.2777778,
            "recall_macro_1_th_9": 0.3333333, "cider": 0.1597739, "MacroArg_cider": 0.0847298,
            "MacroVb_cider": 0.168419, "bleu_1": 0.264631, "bleu_2": 0.0, "rouge": 0.2483976,
            "meteor": 0.0632547, "lea": 0.1549831, "lea_soft": 0.0267291, "muc": 0.6394915,
            "bcub": 0.2502199, "ceafe": 0.0735147,
        },
        "corrupted": {
            "Per_Ev_Top_1": 0.525, "Per_Ev_Top_5": 0.525, "recall_macro_1_th_0": 0.5827722,
            "recall_macro_1_th_9": 0.6429293, "cider": 1.8809523, "MacroArg_cider": 1.5865658,
            "MacroVb_cider": 1.9378372, "bleu_1": 0.5914894, "bleu_2": 0.4848496,
            "rouge": 0.6093748, "meteor": 0.3125869, "lea": 0.4417634, "lea_soft": 0.5835439,
            "muc": 0.5115331, "bcub": 0.7730739, "ceafe": 0.6723585,
        },
        "one_word": {
            "Per_Ev_Top_1": 0.825, "Per_Ev_Top_5": 0.825, "recall_macro_1_th_0": 1.0,
            "recall_macro_1_th_9": 1.0, "cider": 1.9739661, "MacroArg_cider": 1.8479137,
            "MacroVb_cider": 1.9610392, "bleu_1": 0.4830016, "bleu_2": 0.000483,
            "rouge": 0.7353658, "meteor": 0.3425443, "lea": 0.8036955, "lea_soft": 1.0994099,
            "muc": 0.8593965, "bcub": 0.9202681, "ceafe": 0.866278,
        },
        "perfect": {
            "Per_Ev_Top_1": 0.825, "Per_Ev_Top_5": 0.825, "recall_macro_1_th_0": 1.0,
            "recall_macro_1_th_9": 1.0, "cider": 4.0924022, "MacroArg_cider": 4.4366666,
            "MacroVb_cider": 4.0515288, "bleu_1": 1.0, "bleu_2": 1.0, "rouge": 1.0,
            "meteor": 1.0, "lea": 0.8389674, "lea_soft": 1.3550207, "muc": 0.8804035,
            "bcub": 0.9346124, "ceafe": 0.8969393,
        },
    },
}

def _details(windows: list[list[dict]], case: str, kind: str) -> list[dict]:
    items = [{"answer": {"events": events}} for events in windows]
    return [SCORERS[kind].details(it, fx.reply(fx.predictions(it["answer"]["events"], case, i)))
            for i, it in enumerate(items)]


@pytest.mark.parametrize("corpus", list(fx.CORPORA))
@pytest.mark.parametrize("case", fx.CASES)
@pytest.mark.parametrize("official", list(NAMES))
def test_each_metric_equals_vidsitus_evaluator(corpus: str, case: str, official: str) -> None:
    kind, name = NAMES[official]
    if name == "meteor_args" and meteor15.unavailable():
        pytest.skip(meteor15.unavailable())
    got = SCORERS[kind].corpus()[name](_details(fx.windows(fx.CORPORA[corpus]), case, kind))
    assert got == pytest.approx(OFFICIAL[corpus][case][official], abs=1e-6)


def test_the_headline_recall_keeps_only_verbs_of_more_than_nine_events() -> None:
    """The fixtures' verbs straddle the threshold: th_9 and th_0 differ somewhere."""
    assert any(v["recall_macro_1_th_9"] != v["recall_macro_1_th_0"]
               for cases in OFFICIAL.values() for v in cases.values())


def test_a_window_with_fewer_annotators_uses_its_first_annotators_key() -> None:
    """VidSitu's code takes the annotator count from the first window and raises IndexError
    on a later window with fewer; xlebench scores such a window against its first
    annotator's key for every missing one, which equals listing that annotator again."""
    mixed = fx.windows(2, n=6) + fx.windows(1, n=6, seed=8)
    padded = [[{**ev, "roles_by_annotator": [ev["roles"]] * 2} if ev["roles"] and
               "roles_by_annotator" not in ev else ev for ev in events] for events in mixed]
    for name in ("lea", "lea_soft", "muc", "b3", "ceafe", "cider_d"):
        fn = EventRoles().corpus()[name]
        assert fn(_details(mixed, "corrupted", "roles")) == pytest.approx(
            fn(_details(padded, "corrupted", "roles")), abs=1e-12), name


def test_an_annotator_without_a_slot_gives_it_no_reference_and_no_mention() -> None:
    """VidSitu's code raises KeyError when a second annotator lacks a slot of the first:
    xlebench's references are the values of the annotators who gave one, and that
    annotator's key has no mention there (the reply's value at that slot is no mention)."""
    events = [{"verbs_gt": ["cut"], "annotators": 2, "roles": {"Arg0": "C", "Arg1": "onion"},
               "roles_by_annotator": [{"Arg0": "C", "Arg1": "onion"}, {"Arg0": "C"}]},
              {"verbs_gt": ["wash"], "annotators": 2, "roles": {"Arg0": "C"},
               "roles_by_annotator": [{"Arg0": "C"}, {"Arg0": "C"}]}]
    item = {"answer": {"events": events}}
    d = EventRoles().details(item, "Event 1: Arg0: C; Arg1: onion\nEvent 2: Arg0: C")
    assert [s[4] for s in d["roles"]] == [["C"], [], ["C"]]  # Arg0, Arg1, then event 2
    from xlebench.eval.metrics.lea import COUNTS, clusters, f1
    # annotator 1: {C: (1,Arg0), (2,Arg0)}, {onion: (1,Arg1)}; annotator 2: {C: both Arg0}
    a1 = COUNTS["lea"](clusters({(1, "Arg0"): "C", (1, "Arg1"): "onion", (2, "Arg0"): "C"}),
                       clusters({(1, "Arg0"): "C", (1, "Arg1"): "onion", (2, "Arg0"): "C"}))
    a2 = COUNTS["lea"](clusters({(1, "Arg0"): "C", (2, "Arg0"): "C"}),
                       clusters({(1, "Arg0"): "C", (2, "Arg0"): "C"}))
    assert EventRoles().corpus()["lea"]([d]) == pytest.approx((f1(*a1) + f1(*a2)) / 2)


@pytest.mark.parametrize("name", ["lea_soft", "ceafe", "bleu2_args", "rouge_args"])
def test_the_interval_resamples_windows_and_recomputes_the_corpus_score(name: str) -> None:
    """A bootstrap of summed counts equals recomputing the metric on each resample."""
    windows = fx.windows(2, n=16)
    details = _details(windows, "corrupted", "roles")
    rows = [{"lifelog_id": f"log{i % 5}", "details": d} for i, d in enumerate(details)]
    fn = EventRoles().corpus()[name]
    est = _corpus_estimate(rows, fn, n_boot=50, seed=3)
    keys = sorted({r["lifelog_id"] for r in rows})
    picks = np.random.default_rng(3).integers(0, len(keys), size=(50, len(keys)))
    if name in ("bleu2_args", "rouge_args"):  # CIDEr-free: recomputing is exact
        boots = [fn([r["details"] for i in p for r in rows if r["lifelog_id"] == keys[i]])
                 for p in picks]
        lo, hi = np.nanpercentile(boots, [2.5, 97.5])
        assert est["ci95"] == (round(float(lo), 4), round(float(hi), 4))
    assert est["mean"] == round(fn(details), 4)
    assert est["ci95"][0] <= est["mean"] <= est["ci95"][1]



#: VidSitu's ``EvlFn_EvRel.simple_acc_evrel`` on `parity_fixtures.relation_windows` (three
#: labellers, each event with a majority), one label per annotator as its predictions hold
RELATIONS = {"perfect": (1.0, 1.0), "corrupted": (0.4918032786885246, 0.480993917377714),
             "constant": (0.22950819672131148, 0.25)}


@pytest.mark.parametrize("case", list(RELATIONS))
def test_relation_accuracy_equals_vidsitus_evaluator(case: str) -> None:
    """Each event counts once per labeller who gave its majority label (Top_1 over events,
    Macro_Top_1 over classes): offline compiles have no relation items, so the scorer is
    checked on the fixtures' votes."""
    from xlebench.eval.scorers.relations import RelationAccuracy
    from xlebench.tasks.vidsitu.event_relation import majority_votes

    scorer, details = RelationAccuracy(), []
    for votes in fx.relation_windows():
        labels, counts = majority_votes(votes)
        item = {"answer": {"relations": labels, "votes": counts}}
        reply = "\n".join(f"Event {e}: {lab}" for e, lab in
                          sorted(fx.relation_predictions(labels, case).items()))
        details.append(scorer.details(item, reply))
    top1, macro = RELATIONS[case]
    assert scorer.corpus()["relation_top1"](details) == pytest.approx(top1, abs=1e-12)
    assert scorer.corpus()["relation_acc"](details) == pytest.approx(macro, abs=1e-12)


#: What VidSitu @ b794988's ``EvlFn_Vb.vb_classf_metrics_all`` printed for
#: `parity_fixtures.verb_windows` (annotators who disagree, events one pass narrates, events
#: none narrates), each annotator's verbs as its pass names them
#: (``python benchmarks/parity_official.py vidsitu ...``, ``verbs_disagreeing``).
OFFICIAL_VERBS = {
    "union": {"Per_Ev_Top_1": 0.82, "Per_Ev_Top_5": 0.82, "recall_macro_1_th_0": 1.0,
              "recall_macro_1_th_9": 1.0},
    "first_pass": {"Per_Ev_Top_1": 0.82, "Per_Ev_Top_5": 0.82, "recall_macro_1_th_0": 1.0,
                   "recall_macro_1_th_9": 1.0},
    "agreed": {"Per_Ev_Top_1": 0.7333333, "Per_Ev_Top_5": 0.7333333,
               "recall_macro_1_th_0": 1.0, "recall_macro_1_th_9": 1.0},
    "corrupted": {"Per_Ev_Top_1": 0.4866667, "Per_Ev_Top_5": 0.4866667,
                  "recall_macro_1_th_0": 0.6042929, "recall_macro_1_th_9": 0.6113636},
    "constant": {"Per_Ev_Top_1": 0.1933333, "Per_Ev_Top_5": 0.5533333,
                 "recall_macro_1_th_0": 0.5, "recall_macro_1_th_9": 0.75},
}


@pytest.mark.parametrize("case", fx.VERB_CASES)
@pytest.mark.parametrize("official", ["Per_Ev_Top_1", "Per_Ev_Top_5", "recall_macro_1_th_0",
                                      "recall_macro_1_th_9"])
def test_verbs_of_annotators_who_disagree_equal_vidsitus_evaluator(case: str,
                                                                  official: str) -> None:
    """Acc@k is a hit on any annotator's verb; the recalls count only verbs two annotators
    name for an event: a reply naming one pass's verb where passes disagree is a hit, and
    an event one pass narrates feeds no recall."""
    windows = fx.verb_windows()
    details = [EventVerbs().details({"answer": {"events": events}}, fx.reply(
        [{"verbs": v, "roles": {}} for v in fx.verb_predictions(events, case, i)]))
        for i, events in enumerate(windows)]
    got = EventVerbs().corpus()[NAMES[official][1]](details)
    assert got == pytest.approx(OFFICIAL_VERBS[case][official], abs=1e-6)


def test_the_disagreeing_fixture_disagrees() -> None:
    events = [ev for w in fx.verb_windows() for ev in w]
    assert any(len({tuple(p) for p in ev.get("verbs_by_annotator", [])}) > 1 for ev in events)
    assert any(ev["annotators"] == 1 for ev in events)
    assert any(ev["annotators"] == 0 for ev in events)
    assert OFFICIAL_VERBS["first_pass"]["Per_Ev_Top_1"] > OFFICIAL_VERBS["agreed"][
        "Per_Ev_Top_1"], "a pass's own verb where passes disagree is a hit"
