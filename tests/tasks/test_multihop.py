"""Multi-hop grounded QA: the paper's metric on its Fig. 1 numbers, the mining rules on a
hand-built narration pass, the validator on the paper's own malformed example, the LLM path
over the loopback server, and the oracle between chance and perfect through the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.conftest import make_client, run_inprocess
from xlebench.eval.metrics import grounding_overlap, recall_grid
from xlebench.eval.scorers import ScoreSettings, split_evidence
from xlebench.library.annotations import AnnotationIndex, Narration
from xlebench.library.records import LibraryVideo
from xlebench.tasks.language.aggregate import offline_aggregate
from xlebench.tasks.multihop.multihop_llm import validate_generated
from xlebench.tasks.multihop.multihop_qa import RECIPE
from xlebench.tasks.recipe.context import Context
from xlebench.testing.loopback import LoopbackLLMServer
from xlebench.testing.scripted_llm import UNBALANCED, Fault, ScriptedModel

GT = [[0, 13], [26, 32], [44, 55], [145, 168]]  # the paper's Fig. 1 evidence, |U_g| = 53 s


def test_grounding_metrics_on_the_papers_numbers() -> None:
    m = grounding_overlap([[0, 10], [150, 170]], GT)
    assert m["iou_merged"] == pytest.approx(28 / 55) and m["iop_merged"] == pytest.approx(28 / 30)
    assert m["iog_merged"] == pytest.approx(28 / 53) and m["iou_merged@0.3"] == 1.0
    one_hop = [[0, 13]]
    assert recall_grid(one_hop, GT, [5], [0.3])["R@5,0.3"] == 1.0, "retrieval: a hit"
    m = grounding_overlap(one_hop, GT)
    assert m["iou_merged"] == pytest.approx(13 / 53) and m["iou_merged@0.3"] == 0.0, "a miss"
    # exactly 0.3 is not a hit: the threshold is strict (IoU = 3 / 10)
    at = grounding_overlap([[0, 3]], [[0, 10]])
    assert at["iou_merged"] == pytest.approx(0.3) and at["iou_merged@0.3"] == 0.0
    assert grounding_overlap([], GT)["iou_merged"] == 0.0


SEG = {"index": 0, "video_uid": "v", "start_s": 36000, "end_s": 36600, "source_start_s": 0.0,
       "source_end_s": 600.0}
LOG = {"lifelog_id": "uk-intj-000000-short", "category": "short", "segments": [SEG]}


def _pass(fridge_at: list[float], total: int) -> list[Narration]:
    """``total`` narrations in [0, 180): 'opens the fridge' at the given times, every other
    one a distinct action on a distinct object (nothing else recurs)."""
    fillers = [t for t in (0.5 + 6 * k for k in range(60)) if t < 180][: total - len(fridge_at)]
    lines = [(t, "#C C opens the fridge") for t in fridge_at]
    lines += [(t, f"#C C verb{k}s the thing{k}") for k, t in enumerate(fillers)]
    return [Narration(t, text, f"n{t}") for t, text in sorted(lines)]


def _build(narrations: list[Narration], **params) -> list[dict]:
    ann = AnnotationIndex(narration_file="narration.json")
    ann.narrations["v"] = [narrations]
    video = LibraryVideo("v", 600.0, "UK", "bristol", ("Cooking",), "daytime", "indoor", "C.")
    ctx = Context("multihop_qa", "grounded_qa", LOG, {"v": video}, ann, random.Random(0),
                  offline_aggregate)
    p = RECIPE.params({"time_only_share": 0.0, **params})
    return RECIPE.build(ctx, p).items


def test_a_node_recurring_three_times_makes_one_grounded_item() -> None:
    narrs = _pass([10, 70, 150], 30)
    (item,) = _build(narrs)
    # Each narration lasts until the next one (10 -> 12.5, 70 -> 72.5, 150 -> 150.5), remapped
    # to the clock (+36000), on whole seconds; the 0.5-s one widened to min_span_s first.
    expect = [[36010.0, 36013.0], [36070.0, 36073.0], [36149.0, 36151.0]]
    assert item["answer"]["grounding"] == {"T1": expect} and item["hops"] == 3
    assert item["hop_category"] == "A" and item["answer"]["spans"] == expect
    assert split_evidence(item["answer"]["text"])[0] == "You opened the fridge 3 times."
    assert item["query"] == ("How many times did I open the fridge in the record provided for "
                             "the 10:00 - 10:03 time period?")


@pytest.mark.parametrize("times,total", [([10, 150], 30), ([10, 50, 90, 130, 170], 30),
                                         ([10, 70, 150], 29),
                                         ([10, 13, 16], 30)])  # spread 6 s, not over 10 s
def test_strict_bounds_and_the_density_rule(times, total) -> None:
    assert _build(_pass(times, total)) == []


def test_a_window_whose_narrations_span_under_150_s_asks_nothing() -> None:
    """The clip rule's second half: 30 narrations that all fall within 110 s (first to last
    under 150 s) give no item, though a node recurs three times among them; spread over the
    window the same narrations do."""
    def narrations(step: float) -> list[Narration]:
        times = [0.5 + step * k for k in range(30)]
        lines = [(t, "#C C opens the fridge") for t in times[3:12:4]]
        lines += [(t, f"#C C verb{k}s the thing{k}") for k, t in enumerate(
            t for j, t in enumerate(times) if j not in (3, 7, 11))]
        return [Narration(t, text, f"n{t}") for t, text in sorted(lines)]
    assert narrations(3.7)[-1].t - narrations(3.7)[0].t < 150
    assert _build(narrations(3.7)) == []
    assert narrations(6.0)[-1].t - narrations(6.0)[0].t >= 150
    assert len(_build(narrations(6.0))) == 1


def test_the_validator_catches_the_papers_unbalanced_example() -> None:
    with pytest.raises(ValueError, match="balanced pairs"):
        validate_generated(UNBALANCED, 180)
    good = {"Question": "Where did I put it?", "Answer": "On <T1>the table</T1>.",
            "Timespan": {"<T1>": [[3, 5], [40, 41]]}}
    assert validate_generated(good, 180)[2] == {"<T1>": [[3.0, 5.0], [40.0, 41.0]]}
    with pytest.raises(ValueError, match="not inside 0..180"):
        validate_generated({**good, "Timespan": {"<T1>": [170, 190]}}, 180)
    with pytest.raises(ValueError, match="one entry per token pair"):
        validate_generated({**good, "Timespan": {}}, 180)
    with pytest.raises(ValueError, match="timestamp"):
        validate_generated({**good, "Question": "What did I do at 10:05?"}, 180)


def test_llm_generation_is_validated_re_asked_and_judged(tmp_path: Path) -> None:
    narrs = _pass([10, 70, 150], 30)
    model = ScriptedModel([Fault("multihop_generate", "unbalanced")])
    with LoopbackLLMServer(model) as srv:
        client = make_client(srv, tmp_path / "llm")
        ann = AnnotationIndex(narration_file="narration.json")
        ann.narrations["v"] = [narrs]
        ctx = Context("multihop_qa", "grounded_qa", LOG, {}, ann, random.Random(0),
                      offline_aggregate, llm=client)
        p = RECIPE.params({"generator": "llm", "llm_filter": True})
        (item,) = RECIPE.build(ctx, p).items
    assert model.by_task["multihop_generate"] == 2, "the unbalanced answer was sent back"
    assert item["provenance"]["generator"] == "llm"
    assert item["provenance"]["filter"]["judgement"] == 0
    assert item["answer"]["grounding"]["T1"] == [[36010.0, 36012.0]], "as the model said"
    assert item["answer"]["text"].startswith("###Answer: You <T1>opens the fridge</T1> and then <T2>")
    # the paper's prompt of the node's attribute (an action node: the verb's)
    assert item["provenance"]["prompt_ids"]["generate"] == "tasks/multihop_generate_verb.v1"


@pytest.mark.parametrize("attribute", ["verb", "dobj", "pobj"])
def test_each_attribute_prompt_has_seven_examples_that_parse(attribute: str) -> None:
    """MultiHop-EgoQA (A.3): seven in-context examples per attribute; every example output
    is an answer the validator accepts."""
    import json
    import re

    from xlebench.llm.prompts import load_prompt
    from xlebench.tasks.multihop.multihop_llm import validate_generated

    prompt = load_prompt(f"tasks/multihop_generate_{attribute}.v1")
    outputs = re.findall(r"^Example \d+ output:\n(.+)$", prompt.user, re.MULTILINE)
    assert len(outputs) == 7
    for out in outputs:
        validate_generated(json.loads(out), 180.0)
    assert prompt.render(window_s="180", node="knife", descriptions="1,2,C cuts.")


def test_log_scope_asks_about_hops_in_different_records() -> None:
    seg2 = {**SEG, "index": 1, "video_uid": "w", "start_s": 50000, "end_s": 50600}
    log = {**LOG, "segments": [SEG, seg2]}
    ann = AnnotationIndex(narration_file="narration.json")
    ann.narrations["v"] = [_pass([10, 70], 30)]
    ann.narrations["w"] = [_pass([20, 90, 140], 30)]
    ctx = Context("multihop_qa", "grounded_qa", log, {}, ann, random.Random(0),
                  offline_aggregate)
    items = RECIPE.build(ctx, RECIPE.params({"scope": "log", "time_only_share": 0.0})).items
    fridge = [it for it in items if it["provenance"]["node"] == "open fridge"]
    assert len(fridge) == 1 and fridge[0]["hops"] == 5
    assert {v["video_uid"] for v in fridge[0]["evidence"]} == {"v", "w"}
    assert fridge[0]["period"] == {"start_s": 36000.0, "end_s": 50600.0}


def test_scoring_reads_the_evidence_line() -> None:
    item = _build(_pass([10, 70, 150], 30))[0]
    s = ScoreSettings(bertscore=False)
    perfect = RECIPE.scorer.score(item, item["answer"]["text"], s)
    assert perfect["iou"] == 1.0 and perfect["rougeL"] == 1.0
    no_spans = RECIPE.scorer.score(item, "You opened the fridge.", s)  # its text still counts
    assert no_spans["iou"] != no_spans["iou"] and no_spans["iou_merged"] == 0.0  # NaN: left out


@pytest.mark.slow  # a compile and evaluation of the recipe (20 s): the slow tier CI runs
def test_the_oracle_sits_between_chance_and_perfect(tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, "tasks=[multihop_qa]", "library.n_videos=120",
                        "matcher/embedder=hashing", "persona.locations=[Japan,UK]",
                        "persona.mbti=[INTJ,ESFP]", "render=none", "eval.bertscore=false",
                        "eval.bootstrap=20")
    assert ran.rc == 0, ran.text[-3000:]
    table = json.loads((tmp_path / "benchmarks" / "demo" / "results" /
                        "oracle_text_retrieval" / "table.json").read_text())
    cell = table["rows"]["multihop_qa"]["all"]
    assert cell["n"] > 10 and 2 * cell["floor"]["mean"] < cell["mean"] < 1.0


def _onion_pass() -> list[Narration]:
    """'onion' taken by three verbs (category B), every other narration distinct."""
    base = _pass([], 27)
    lines = [(10, "#C C cuts the onion"), (70, "#C C washes the onion"),
             (150, "#C C peels the onion")]
    return sorted(base + [Narration(t, x, f"o{t}") for t, x in lines], key=lambda n: n.t)


def test_category_b_names_every_verb_and_its_oracle_agrees(monkeypatch) -> None:
    """The question asks what C did with the object: the answer lists all three verbs, each
    grounded, and the full-information oracle (re-reading the window) scores it perfect; an
    answer that keeps two of the three (the old rule) falls below the 95% check."""
    from xlebench.tasks.multihop import multihop_qa as M

    ann = AnnotationIndex(narration_file="narration.json")
    ann.narrations["v"] = [_onion_pass()]
    ctx = Context("multihop_qa", "grounded_qa", LOG, {}, ann, random.Random(0),
                  offline_aggregate)
    p = RECIPE.params({"time_only_share": 0.0})
    (item,) = [it for it in RECIPE.build(ctx, p).items if it["hop_category"] == "B"]
    assert split_evidence(item["answer"]["text"])[0] == \
        "You cut the onion, peeled it and washed it."
    assert sorted(item["answer"]["grounding"]) == ["T1", "T2", "T3"]
    s = ScoreSettings(bertscore=False)
    reply = RECIPE.oracle(ctx, p, item)
    assert RECIPE.scorer.score(item, reply, s)["iou"] == 1.0
    assert RECIPE.scorer.score(item, reply, s)["rougeL"] == 1.0
    real = M.Mined.verbs_of
    monkeypatch.setattr(M.Mined, "verbs_of", lambda self, obj: real(self, obj)[:2])
    (short,) = [it for it in RECIPE.build(ctx, p).items if it["hop_category"] == "B"]
    assert RECIPE.scorer.score(short, RECIPE.oracle(ctx, p, short), s)["iou_merged"] < 0.95


def test_category_c_names_every_object_of_a_verb_and_its_oracle_agrees() -> None:
    """Category C (multiple objects, a verb node): one verb done to three objects asks what
    C did it to; the answer names all three, each grounded, and the full-information oracle
    scores it perfect."""
    ann = AnnotationIndex(narration_file="narration.json")
    base = _pass([], 27)
    lines = [(10, "#C C washes the cup"), (70, "#C C washes the plate"),
             (150, "#C C washes the pan")]
    ann.narrations["v"] = [sorted(base + [Narration(t, x, f"w{t}") for t, x in lines],
                                  key=lambda n: n.t)]
    ctx = Context("multihop_qa", "grounded_qa", LOG, {}, ann, random.Random(0),
                  offline_aggregate)
    p = RECIPE.params({"time_only_share": 0.0})
    (item,) = [it for it in RECIPE.build(ctx, p).items if it["hop_category"] == "C"]
    answer = split_evidence(item["answer"]["text"])[0]
    assert all(o in answer for o in ("cup", "plate", "pan")), answer
    assert sorted(item["answer"]["grounding"]) == ["T1", "T2", "T3"]
    s = ScoreSettings(bertscore=False)
    reply = RECIPE.oracle(ctx, p, item)
    assert RECIPE.scorer.score(item, reply, s)["iou"] == 1.0
    assert RECIPE.scorer.score(item, reply, s)["rougeL"] == 1.0


def test_the_papers_reply_format_is_read() -> None:
    """MultiHop-EgoQA's ``###Answer`` / ``###Evidence`` / ``###Rationale`` reply (its Table
    10's example): evidence in seconds from the clip's start, or on the clock; the rationale is
    not part of the answer; a reply in this format scores like the same reply in ours."""
    from xlebench.eval.scorers import GroundedAnswer

    paper = ("###Question:\nHow many times did I open the tap?\n###Answer:\nYou opened the tap "
             "twice.\n###Evidence:\n[[9,15],[120,135]]\n###Rationale:\nAccording to the frames "
             "from 9s to 15s and from 120s to 135s, you opened the tap twice.")
    text, spans = split_evidence(paper, 28800.0)
    assert text == "You opened the tap twice." and spans == [(28809.0, 28815.0),
                                                             (28920.0, 28935.0)]
    assert split_evidence("###Answer\nYou did.\n###Evidence\n[08:00:09 - 08:00:15]")[1] == \
        [(28809.0, 28815.0)]
    item = {"period": {"start_s": 28800.0, "end_s": 28980.0},
            "answer": {"text": "You opened the tap two times. <T1> <T2>",
                       "spans": [[28809.0, 28815.0], [28920.0, 28935.0]]}}
    ours = "You opened the tap twice.\nEvidence: [08:00:09 - 08:00:15], [08:02:00 - 08:02:15]"
    s = ScoreSettings(bertscore=False)
    assert GroundedAnswer().score(item, paper, s) == GroundedAnswer().score(item, ours, s)
    assert GroundedAnswer().score(item, paper, s)["iou"] == 1.0


def test_train_and_test_split_by_source_video_and_test_items_are_refined() -> None:
    """MultiHop-EgoQA's sets: a video's items all fall on one side (the same in every
    benchmark); a test item is kept only where the oracle, re-reading the narrations,
    reproduces its evidence and (for a template) its text."""
    from collections import Counter

    from xlebench.tasks.multihop.multihop_split import keep_split, refined, video_split

    sides = [video_split(f"video-{k}", 0.3) for k in range(2000)]
    assert 0.25 < sides.count("test") / 2000 < 0.35
    assert video_split("video-7", 0.3) == sides[7]
    item = {"period": {"start_s": 28800.0, "end_s": 28980.0}, "provenance": {},
            "evidence": [{"video_uid": "video-7"}],
            "answer": {"text": "You opened the fridge twice. <T1> <T2>",
                       "spans": [[28809.0, 28815.0], [28920.0, 28935.0]]}}
    same = ("You opened the fridge twice.\nEvidence: [08:00:09 - 08:00:15], "
            "[08:02:00 - 08:02:15]")
    assert refined(item, same)
    assert not refined(item, same.replace("08:02:00", "08:02:05"))  # other evidence
    assert not refined(item, same.replace("twice", "three times"))  # other text
    items = [dict(item, provenance={}, evidence=[{"video_uid": f"video-{k}"}])
             for k in range(20)]
    stats: Counter = Counter()
    test = keep_split([dict(it, provenance={}) for it in items], "test", 0.3,
                      lambda it: same, stats)
    train = keep_split([dict(it, provenance={}) for it in items], "train", 0.3,
                       lambda it: same, Counter())
    assert {it["evidence"][0]["video_uid"] for it in test}.isdisjoint(
        {it["evidence"][0]["video_uid"] for it in train})
    assert len(test) + len(train) == 20 and stats["items of train videos (split=test)"] == \
        len(train)
    assert all(it["provenance"]["hop_split"] == "test" for it in test)
    # an oracle that does not reproduce the evidence keeps no test item, and says how many
    moved = same.replace("08:02:00", "08:02:05")
    stats = Counter()
    assert keep_split([dict(it, provenance={}) for it in items], "test", 0.3,
                      lambda it: moved, stats) == []
    assert stats["test items the full-information oracle does not reproduce"] == len(test) > 0
    assert len(keep_split([dict(it, provenance={}) for it in items], "train", 0.3,
                          lambda it: moved, Counter())) == len(train), "train is not refined"


def test_category_d_asks_who_over_people_and_its_oracle_agrees() -> None:
    """D over people (Table 6): a verb done with two people in one record asks who, each
    person grounded by the narrations that name them; the oracle re-reads them perfectly;
    rooms stay apart from spots in D over places."""
    from xlebench.tasks.multihop.hop_people import people, person, wording
    from xlebench.tasks.multihop.hops import Occurrence
    from xlebench.tasks.multihop.multihop_items import past_phrase, same_kind_places

    talk = [(20.5, "#C C talks with man X"), (80.5, "#C C talks with woman Y"),
            (150.5, "#C C talks with man X")]
    fillers = [(t, f"#C C verb{k}s the thing{k}") for k, t in
               enumerate(t for t in (0.5 + 6 * k for k in range(30)) if t not in (20.5, 80.5))]
    narrs = [Narration(t, text, f"n{t}") for t, text in sorted(talk + fillers)]
    ann = AnnotationIndex(narration_file="narration.json")
    ann.narrations["v"] = [narrs]
    ctx = Context("multihop_qa", "grounded_qa", LOG, {}, ann, random.Random(0),
                  offline_aggregate)
    p = RECIPE.params({"time_only_share": 0.0})
    (item,) = [it for it in RECIPE.build(ctx, p).items
               if it["provenance"]["node_kind"] == "person"]
    assert item["hop_category"] == "D" and item["query"].startswith("Who did I talk with ")
    assert split_evidence(item["answer"]["text"])[0] == "You talked with man X and woman Y."
    assert [len(v) for _, v in sorted(item["answer"]["grounding"].items())] == [2, 1]
    s = ScoreSettings(bertscore=False)
    got = RECIPE.scorer.score(item, RECIPE.oracle(ctx, p, item), s)
    assert got["iou"] == 1.0 and got["rougeL"] == 1.0
    o = Occurrence(0, 1, "pass", "plate", None, "#C C passes the plate to woman x")
    assert person(o) == ("to", "woman X")
    assert people([o, Occurrence(0, 1, "pass", "cup", None, "#C C passes the cup to man Y")])[:2] \
        == ("to", "something")
    assert wording("look at", "", "at", ["man X", "woman Y"], past_phrase) == (
        "Who did I look at", "You looked at <T1>man X</T1> and <T2>woman Y</T2>.")
    assert same_kind_places({"kitchen", "counter", "restaurant"}) == ["kitchen", "restaurant"]


def test_answer_text_is_also_scored_on_content_words() -> None:
    """A template's skeleton ("You ... the ...") earns ROUGE-L but no content ROUGE-L."""
    item = {"period": {"start_s": 0.0}, "answer": {
        "spans": [[10.0, 20.0]], "time_only": False,
        "text": "###Answer: You <T1>opened the fridge</T1>.\n###Evidence: [00:00:10 - 00:00:20]"}}
    got = RECIPE.scorer.score(item, "###Answer: You did it to the door.\n###Evidence: "
                              "[00:00:10 - 00:00:20]", ScoreSettings(bertscore=False))
    assert got["rougeL"] > 0.2 and got["rougeL_content"] == 0.0 and got["iou"] == 1.0


def test_the_llm_judge_drops_what_it_finds_unreasonable(tmp_path: Path) -> None:
    """The reasonableness filter keeps what the judge accepts (0) and drops, counted, what it
    rejects (1): the scripted judge rejects "what objects did I ..." as too vague."""
    from xlebench.llm.client import Usage
    from xlebench.tasks.multihop.multihop_llm import reasonable
    from xlebench.tasks.recipe.context import Built

    model = ScriptedModel()
    with LoopbackLLMServer(model) as srv:
        ctx = Context("multihop_qa", "grounded_qa", LOG, {}, AnnotationIndex(), random.Random(0),
                      offline_aggregate, llm=make_client(srv, tmp_path / "llm"))
        p, out = RECIPE.params({"llm_filter": True}), Built()

        def item(q: str) -> dict:
            return {"query": q + " in the record provided?", "provenance": {},
                    "answer": {"text": "###Answer: You <T1>opened the fridge</T1>."}}
        vague, fine = item("What objects did I open"), item("What did I open after the tap")
        assert not reasonable(ctx, p, vague, Usage(), out)
        assert reasonable(ctx, p, fine, Usage(), out)
    assert vague["provenance"]["filter"]["judgement"] == 1
    assert out.stats["dropped as unreasonable by the LLM judge"] == 1


def test_the_validator_wants_pairs_in_order_and_one_span_each() -> None:
    """Crossed pairs (``<T1> <T2> </T1> </T2>``) and a Timespan naming another pair than the
    answer's are refused, with what to mend."""
    ok = {"Question": "What did I open?", "Answer": "You <T1>opened the fridge</T1>.",
          "Timespan": {"<T1>": [[1, 2]]}}
    validate_generated(ok, 180.0)
    crossed = {**ok, "Answer": "You <T1>opened <T2>the fridge</T1> twice</T2>.",
               "Timespan": {"<T1>": [[1, 2]], "<T2>": [[3, 4]]}}
    with pytest.raises(ValueError, match="balanced pairs"):
        validate_generated(crossed, 180.0)
    with pytest.raises(ValueError, match="one entry per token pair"):
        validate_generated({**ok, "Timespan": {"<T2>": [[1, 2]]}}, 180.0)
