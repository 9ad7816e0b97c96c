"""Scorers: how one kind of answer is read, scored, pooled, and answered without the video.

A recipe declares the scorer of its answers (`xlebench.tasks.recipe.registry.Recipe.scorer`); the
evaluation walks items through their recipe's scorer and never branches on subtask names, so a
new recipe with a known answer kind is scored, pooled, given its blind panel and answered by
the offline baseline with no change here. One module per answer kind, each beside its panel:

==============  ==============================================================================
``spans``       temporal localisation (`SpanRecall`)
``text``        free text against a reference (`TextSimilarity`)
``counts``      counts per listed action (`CountAccuracy`)
``order``       an order of shown items (`OrderAccuracy`)
``choice``      multiple choice (`ChoiceAccuracy`)
``grounded``    grounded answers with evidence spans (`GroundedAnswer`)
``short``       short open-ended answers, one equivalence rule per shape (`ShortAnswer`)
``events``      verbs of short events (`EventVerbs`), their roles given the verbs (`EventRoles`)
``relations``   relations between events (`RelationAccuracy`)
==============  ==============================================================================

A scorer (`Scorer`): ``kind`` (what baselines dispatch on); ``score(item, reply, s)`` — metric
values of a parseable reply, or None; ``worst(item, s)`` — what a wrong answer scores;
``weights(item)`` — pooling weights other than 1; ``blind()`` — its video-blind strategies
(`Blind`), run cross-fitted by `xlebench.eval.panel.blind`; ``finish(rows, items, s, bertscorer)``
— metrics computed over all rows at once (BERTScore).
"""

from xlebench.eval.scorers.base import Blind, BlindContext, Scorer, ScoreSettings
from xlebench.eval.scorers.choice import ChoiceAccuracy, position_histograms
from xlebench.eval.scorers.counts import CountAccuracy
from xlebench.eval.scorers.events import ROLE_NAMES, EventRoles, EventVerbs, parse_events
from xlebench.eval.scorers.grounded import GroundedAnswer, split_evidence
from xlebench.eval.scorers.order import OrderAccuracy
from xlebench.eval.scorers.relations import RELATIONS, RelationAccuracy, parse_relations
from xlebench.eval.scorers.short import ShortAnswer
from xlebench.eval.scorers.spans import SpanRecall
from xlebench.eval.scorers.text import GENERIC_SUMMARY, TextSimilarity, strip_tokens

__all__ = ["GENERIC_SUMMARY", "RELATIONS", "ROLE_NAMES", "Blind", "BlindContext",
           "ChoiceAccuracy", "CountAccuracy", "EventRoles", "EventVerbs", "GroundedAnswer",
           "OrderAccuracy",
           "RelationAccuracy", "ScoreSettings", "Scorer", "ShortAnswer", "SpanRecall", "TextSimilarity",
           "parse_events", "parse_relations", "position_histograms", "split_evidence",
           "strip_tokens"]
