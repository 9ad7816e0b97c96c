"""The authored activity taxonomy over real Ego4D scenario names, and name normalisation.

Real scenario strings contain an embedded newline, curly or straight apostrophes and a
``DEPRECATED :`` twin; `normalize_scenario` folds those so matching compares like with like,
while records keep the original spelling.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

_WS = re.compile(r"\s+")
_DEPRECATED = re.compile(r"^deprecated\s*:\s*", re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 16)
def normalize_scenario(name: str) -> str:
    """Matching key for a scenario name: NFKC, straight apostrophes, one space, casefolded.
    Cached: the rule filter asks for the same few hundred names on every chunk."""
    text = unicodedata.normalize("NFKC", name).replace("\u2019", "'").replace("\u2018", "'")
    text = _WS.sub(" ", text).strip()
    return _DEPRECATED.sub("", text).casefold()


@dataclass(frozen=True)
class Scenario:
    name: str
    weight: float
    scene: dict[str, float]
    time: dict[str, float]
    slot: str
    hobby: bool
    places: tuple[str, ...]
    objects: tuple[str, ...]
    verbs: tuple[str, ...]
    people: tuple[str, ...]
    moments: tuple[str, ...]
    plan: tuple[str, ...]
    aliases: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return normalize_scenario(self.name)

    @property
    def short(self) -> str:
        """A one-line label (the first line of names that span two)."""
        return self.name.splitlines()[0]


@dataclass(frozen=True)
class Taxonomy:
    scenarios: tuple[Scenario, ...]

    def by_key(self) -> dict[str, Scenario]:
        out = {s.key: s for s in self.scenarios}
        for s in self.scenarios:
            out.update({normalize_scenario(a): s for a in s.aliases})
        return out

    def get(self, name: str) -> Scenario | None:
        return self.by_key().get(normalize_scenario(name))

    def with_slot(self, *slots: str) -> list[Scenario]:
        return [s for s in self.scenarios if s.slot in slots]

    def hobbies(self) -> list[Scenario]:
        return [s for s in self.scenarios if s.hobby]


@lru_cache(maxsize=1)
def load_taxonomy() -> Taxonomy:
    """The packaged taxonomy (xlebench/data/taxonomy.yaml)."""
    text = resources.files("xlebench").joinpath("data/taxonomy.yaml").read_text("utf-8")
    rows = yaml.safe_load(text)["scenarios"]
    tuples = ("places", "objects", "verbs", "people", "moments", "plan", "aliases")
    scenarios = []
    for row in rows:
        row = dict(row)
        row.setdefault("hobby", False)
        for key in tuples:
            row[key] = tuple(row.get(key, ()))
        scenarios.append(Scenario(**row))
    return Taxonomy(tuple(scenarios))


@lru_cache(maxsize=1)
def load_object_aliases() -> dict[str, tuple[str, ...]]:
    """Other names for objects (xlebench/data/object_aliases.yaml), as a second annotator
    would write them."""
    text = resources.files("xlebench").joinpath("data/object_aliases.yaml").read_text("utf-8")
    return {str(k): tuple(v) for k, v in (yaml.safe_load(text) or {}).items()}


def scenario_iou(a: Sequence[str], b: Sequence[str]) -> float:
    """Jaccard overlap of two scenario lists, each label normalised."""
    sa = {normalize_scenario(x) for x in a}
    sb = {normalize_scenario(x) for x in b}
    return len(sa & sb) / len(sa | sb) if sa | sb else 0.0
