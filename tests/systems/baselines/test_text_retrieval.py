"""The narration-reading baseline: ordering by one-to-one IDF assignment, and localisation
that reads a query's other name for an object."""

from __future__ import annotations

from xlebench.eval.parse import parse_spans
from xlebench.systems.baselines.captions import Caption
from xlebench.systems.baselines.text_retrieval import (
    TextRetrievalBaseline,
    assign_texts,
    similar_words,
    word_set,
)


def cap(t: float, text: str) -> Caption:
    return Caption(t, "v", t, text)


def test_a_word_every_record_holds_decides_nothing_and_no_record_is_claimed_twice():
    bags = [word_set("C cuts the onion in the kitchen C washes the pan in the kitchen"),
            word_set("C stirs the soup in the kitchen C cuts the carrot in the kitchen")]
    texts = [word_set("C cuts vegetables in the kitchen and stirs the soup"),
             word_set("C cuts the onion in the kitchen")]
    # raw overlap puts both texts at the record holding "cuts" and "kitchen" first
    assert assign_texts(texts, bags) == [1, 0]
    assert assign_texts(texts + [word_set("C sleeps")], bags)[2] is None


def test_ordering_reply_follows_the_records_the_texts_match():
    log = {"segments": [{"start_s": 0.0, "end_s": 100.0}, {"start_s": 200.0, "end_s": 300.0},
                        {"start_s": 400.0, "end_s": 500.0}]}
    captions = [cap(10, "C drives the car on the road"), cap(210, "C kneads the dough"),
                cap(220, "C bakes the bread in the oven"), cap(410, "C waters the plants")]
    item = {"query": "Put these in order. Summary 0: C watered plants in the garden. "
                     "Summary 1: C drove a car. Summary 2: C baked bread in the oven."}
    reply = TextRetrievalBaseline._order(item, log, captions)
    assert reply.endswith(": 1, 2, 0.")


def test_the_clips_of_one_record_are_ordered_by_when_the_captions_say_them():
    """``across=record``: fewer records than texts in the period, so each text goes to the
    time its words are said, whatever record holds it."""
    log = {"segments": [{"start_s": 0.0, "end_s": 900.0}, {"start_s": 2000.0, "end_s": 2100.0}]}
    captions = [cap(t, "C walks around the kitchen") for t in range(0, 900, 30)]
    captions += [cap(100, "C washes the pot"), cap(110, "C rinses the pot"),
                 cap(420, "C chops the onion"), cap(430, "C chops the onion"),
                 cap(750, "C stirs the sauce"), cap(2050, "C stirs the sauce")]
    item = {"query": "Put these in order. Summary 0: C stirred the sauce. "
                     "Summary 1: C washed the pot. Summary 2: C chopped an onion.",
            "period": {"start_s": 0.0, "end_s": 960.0}}
    reply = TextRetrievalBaseline._order(item, log, sorted(captions, key=lambda c: c.virtual_s))
    assert reply.endswith(": 1, 2, 0.")


def test_a_query_naming_an_object_otherwise_finds_the_narrators_word():
    found = similar_words({"timber"}, {"wood", "kettl", "phone"}, 0.55)
    assert set(found) == {"wood"}
    assert similar_words({"wood"}, {"wood", "phone"}, 0.55) == {}  # present: nothing added
    assert similar_words({"timber"}, {"wood"}, 0.0) == {}  # turned off


def test_localisation_reads_the_other_name():
    captions = [cap(t, "C holds the phone") for t in range(0, 600, 20)]
    captions.append(cap(305.0, "C sands the wood"))
    item = {"query": "In what location did I see the timber in the record provided for the "
                     "00:00 - 00:10 time period?", "period": {"start_s": 0.0, "end_s": 600.0}}
    spans = parse_spans(TextRetrievalBaseline(None)._localise(item, sorted(
        captions, key=lambda c: c.virtual_s)))
    assert spans and spans[0][0] <= 305.0 <= spans[0][1]


def _choice(question: str, options: list[str], label: int) -> dict:
    return {"item_id": "w-egoschema_mcq-000", "period": {"start_s": 0.0, "end_s": 180.0},
            "query": question + " " + " ".join(f"Option {k}: {o}" for k, o in
                                               enumerate(options)),
            "answer": {"options": options, "label": label}}


#: A window's three phases: washing, then cutting, then stirring, with one other act between.
WINDOW = sorted([cap(t, "C washes the plate") for t in (5, 12, 20, 31)]
                + [cap(t, "C cuts the onion") for t in (60, 70, 84, 95)]
                + [cap(88, "C opens the drawer")]
                + [cap(t, "C stirs the pot") for t in (130, 141, 150, 166)],
                key=lambda c: c.virtual_s)


def test_egoschemas_offline_forms_are_read_in_time():
    """The same three acts in five orders: their words tie, their times do not; what C does
    between two phases is what the captions between them say."""
    orders = ["C cuts the onion, then washes the plate, then stirs the pot",
              "C washes the plate, then cuts the onion, then stirs the pot",
              "C stirs the pot, then cuts the onion, then washes the plate",
              "C washes the plate, then stirs the pot, then cuts the onion",
              "C washes the plate, then cuts the onion, then pours the milk"]
    item = _choice("Which of the following best describes the order of what C does in the "
                   "record provided for the 08:00 - 08:03 time period?", orders, 1)
    assert TextRetrievalBaseline(None)._choose(item, WINDOW, None) == "Option 1"
    between = ["C stirs the pot", "C washes the plate", "C cuts the onion",
               "C pours the milk", "C folds the towel"]
    item = _choice("What does C do after washing the plate and before stirring the pot in the "
                   "record provided for the 08:00 - 08:03 time period?", between, 2)
    assert TextRetrievalBaseline(None)._choose(item, WINDOW, None) == "Option 2"
