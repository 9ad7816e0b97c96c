"""Per-option likelihood scoring (EgoSchema): a local VLM sees the day's frames and the
question, and each option is scored by the mean log-probability of its tokens as the model's
reply; the most likely option is the answer. It needs no instruction following — a model that
cannot name an option is still scored — and no parsing; it is printed as its own system,
``end_to_end_likelihood``, beside the generative ``end_to_end``. Items without options
(open-ended recipes) get the no-information reply and count as unanswered."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xlebench.errors import ConfigError
from xlebench.eval.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.eval.captioners import evenly
from xlebench.vlm.messages import Frame

NO_OPTIONS = "There is no information available: likelihood scoring needs options."
#: The instruction the question ends with: the options are scored as the reply itself.
ANSWER_FORMAT = "Answer with the correct option's text."


class Likelihood:
    name = "end_to_end_likelihood"
    reads = None
    version = "2"  # 2: an option is the tokens after those it shares with the prompt alone

    def __init__(self, vlm: Any, frames: Callable[[dict], list[Frame]]) -> None:
        if not hasattr(vlm, "option_logprobs"):
            raise ConfigError("eval.systems=[end_to_end_likelihood] scores options by their "
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
            messages = _with_frames(PROMPT, parts, question=question, answer_format=ANSWER_FORMAT)
            scores = self.vlm.option_logprobs(messages, list(options))
            best = max(range(len(options)), key=lambda k: (scores[k], -k))
            out[it["item_id"]] = f"Option {best}"
        return out
