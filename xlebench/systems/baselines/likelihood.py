"""Per-option likelihood scoring (EgoSchema): a local VLM sees the day's frames and the
question, and each option gets a score; the best one is the answer. It needs no instruction
following — a model that cannot name an option is still scored — and no parsing. Two rules,
each its own system beside the generative ``end_to_end``:

* ``end_to_end_likelihood``: the mean log-probability of the option's tokens as the model's
  reply (the FrozenBiLM-style rule).
* ``end_to_end_yes``: the log-probability of "Yes" as the reply to "Is the answer "<option>"
  correct?", one prompt per option (EgoSchema's rule for mPLUG-Owl, appendix).

Ties are broken at random, by a generator seeded by the item (EgoSchema's rule), never by
position. Items without options (open-ended recipes without decoys) get the no-information
reply and count as unanswered."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from xlebench.errors import ConfigError
from xlebench.systems.base import Made, SystemKind, Systems, frames_system
from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.systems.captioners import evenly
from xlebench.vlm.messages import Frame

NO_OPTIONS = "There is no information available: likelihood scoring needs options."
#: The instruction the question ends with: the options are scored as the reply itself.
ANSWER_FORMAT = "Answer with the correct option's text."


#: EgoSchema's per-option question for the P("Yes") rule.
YES_QUESTION = '{question}\nIs the answer "{option}" correct?'
YES_FORMAT = "Answer Yes or No."


def best_option(item: dict, scores: list[float]) -> str:
    """``Option k`` of the highest score, ties broken at random (seeded by the item)."""
    top = [k for k, v in enumerate(scores) if v == max(scores)]
    return f"Option {random.Random(item['item_id']).choice(top)}"


class Likelihood:
    name = "end_to_end_likelihood"
    reads = None
    # 2: an option is the tokens after those it shares with the prompt alone; 3: ties at
    # random
    version = "3"

    def __init__(self, vlm: Any, frames: Callable[[dict], list[Frame]]) -> None:
        if not hasattr(vlm, "option_logprobs"):
            raise ConfigError(f"eval.systems=[{self.name}] scores options by their "
                              "log-likelihood: set vlm=transformers (an API model returns no "
                              "option likelihoods)")
        self.vlm, self.frames = vlm, frames

    def respond(self, items: Sequence[dict], recipes: dict, log: dict) -> dict[str, str]:
        shown = evenly(self.frames(log), self.vlm.max_images)
        parts = blocks(shown, log)
        out = {}
        for it in items:
            options = it["answer"].get("options")
            if not options:
                out[it["item_id"]] = NO_OPTIONS
                continue
            question = it.get("provenance", {}).get("question") or it["query"]
            out[it["item_id"]] = best_option(it, self.scores(parts, question, list(options)))
        return out

    def scores(self, parts: list, question: str, options: list[str]) -> list[float]:
        messages = _with_frames(PROMPT, parts, question=question, answer_format=ANSWER_FORMAT)
        return self.vlm.option_logprobs(messages, options)


class YesLikelihood(Likelihood):
    """Each option asked about in its own prompt; its score is log P("Yes")."""

    name = "end_to_end_yes"
    version = "1"

    def scores(self, parts: list, question: str, options: list[str]) -> list[float]:
        return [self.vlm.option_logprobs(_with_frames(
            PROMPT, parts, question=YES_QUESTION.format(question=question, option=o),
            answer_format=YES_FORMAT), ["Yes"])[0] for o in options]


def scoring_system(kind: Any) -> Callable[[str, Any, Systems], Made]:
    """The factory of a system reading a local model's scores (per-option likelihoods, hidden
    states) over the day's frames."""
    def make(name: str, cfg: Any, out: Systems) -> Made:
        from xlebench.systems.frames import log_frames

        return frames_system(name, cfg, out, kind, lambda media, root, n, spec: (
            lambda log: log_frames(log, n, media, root, spec)), PROMPT)
    return make


SYSTEMS = (SystemKind("end_to_end_likelihood", scoring_system(Likelihood), frames=True),
           SystemKind("end_to_end_yes", scoring_system(YesLikelihood), frames=True))
