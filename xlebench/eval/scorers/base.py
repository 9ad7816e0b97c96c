"""What every scorer shares: settings, the scorer protocol, and the blind-strategy record.

A scorer reads, scores and pools one kind of answer, and declares its **blind panel**: the
strategies that answer its items without seeing any video — from the query, the options, or
the answers of *other* life logs — whose strongest member is the floor printed beside every
score (`xlebench.eval.panel.blind` runs them, cross-fitted by source video).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class ScoreSettings:
    ks: tuple[int, ...] = (1, 5)
    tious: tuple[float, ...] = (0.3, 0.5)
    refusal_patterns: tuple[str, ...] = ()
    no_information_patterns: tuple[str, ...] = ()
    bertscore: bool = True

    @classmethod
    def from_eval(cls, ec: Mapping[str, Any]) -> ScoreSettings:
        """From an ``eval`` config mapping (the evaluate stage's, or the one exported with
        lmms-eval tasks)."""
        return cls(ks=tuple(ec["ks"]), tious=tuple(ec["tious"]),
                   refusal_patterns=tuple(ec["refusal_patterns"]),
                   no_information_patterns=tuple(ec["no_information_patterns"]),
                   bertscore=bool(ec["bertscore"]))


@dataclass(frozen=True)
class BlindContext:
    """What a blind strategy may use besides the item: the metric settings, a generator seeded
    by (seed, strategy, item), how many draws a random strategy averages, and what the whole
    benchmark prints (`xlebench.eval.panel.public.Public`; for members that read it)."""

    settings: ScoreSettings
    rng: np.random.Generator
    draws: int
    public: Any = None


#: A reply to score like any other, or the expected metric values of a random strategy.
BlindAnswer = str | dict[str, float]


@dataclass(frozen=True)
class Blind:
    """One video-blind strategy.

    ``fit(train)`` learns from items of *other* life logs (their queries and answers) and
    returns a model; strategies without ``fit`` read only the item itself (its query and
    options). ``answer(item, model, ctx)`` never reads ``item["answer"]`` beyond what a model
    is shown (the options of a multiple-choice item), so no strategy sees the answer of an
    item it is scored on.
    """

    name: str
    sees: str  # printed with the panel: what the strategy reads
    answer: Callable[[dict, Any, BlindContext], BlindAnswer]
    fit: Callable[[Sequence[dict]], Any] | None = None
    #: Picks an option by its position alone (not by reading anything): it measures a skew
    #: of the labels, which shuffling removes, so the panel filter never drops an item on
    #: its word — dropping the items whose label sits where it points would create the skew.
    positional: bool = False
    #: Reads the whole benchmark's public view: ``fit(train, public)``, and ``ctx.public``
    #: when answering (`xlebench.eval.scorers.learned`).
    public: bool = False
    #: Balanced by the panel filter (`xlebench.tasks.screening.panel_filter`). A member that
    #: is not is still a floor member, measured on what is published (docs/validity.md, round
    #: 8: balancing the reader of the plan's pick cost neptune_mcq 124 of its 211 items and
    #: left the learned member outside chance's interval, where unbalanced it sits inside it).
    screens: bool = True


class Scorer(Protocol):
    kind: str

    def score(self, item: dict, reply: str, s: ScoreSettings) -> dict[str, float] | None: ...

    def worst(self, item: dict, s: ScoreSettings) -> dict[str, float]: ...

    def weights(self, item: dict) -> dict[str, float]: ...

    def blind(self) -> Sequence[Blind]: ...

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None: ...

    def warm(self, items: Sequence[dict]) -> None: ...

    def model_metrics(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
                      bertscorer: Any) -> None: ...


class Base:
    """Defaults: every item weighs 1, no corpus-wide metric to finish, no blind strategy."""

    def weights(self, item: dict) -> dict[str, float]:
        return {}

    def finish(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
               bertscorer: Any) -> None:
        return None

    def warm(self, items: Sequence[dict]) -> None:
        """Build here what `finish` would build for ``items`` in each forked child that
        scores them (every panel member scores a subtask's items): the children inherit it."""
        return None

    def model_metrics(self, rows: list[dict], items: Sequence[dict], s: ScoreSettings,
                      bertscorer: Any) -> None:
        """The metrics a model computes (BERTScore, Sent.Sim) of ``ok`` rows, apart from
        `finish` so that a caller may compute the rest in forked processes and these in one
        batched pass where the model's threads run (`xlebench.eval.panel.blind`). Each row's
        value reads only its own reply and item."""
        return None

    def blind(self) -> Sequence[Blind]:
        return ()


def most_common(values: Sequence[Any], default: Any) -> Any:
    """The most frequent value; ties go to the smallest (never to iteration order)."""
    counts: dict[Any, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    if not counts:
        return default
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def query_question(item: dict) -> str:
    """The question a model is shown, without the options of a multiple-choice item."""
    return item.get("provenance", {}).get("question") or item["query"]


#: The key under which a multiple-choice member's answer names the options it picks (ties
#: kept): the panel moves it out of the scores into the row's ``picks``, so that a filter can
#: read each member's pick and its agreement with the others without knowing the label
#: (`xlebench.tasks.screening.balance`).
PICKS = "_picks"


def picked(item: dict, tied: Sequence[int]) -> dict[str, Any]:
    """Accuracy of picking uniformly among ``tied`` options (its exact expectation), and the
    options picked."""
    return {"acc": float(item["answer"]["label"] in tied) / len(tied),
            PICKS: tuple(sorted(tied))}
