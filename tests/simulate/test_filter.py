"""The scene / time compatibility tables of the rule filter, as configuration."""

from __future__ import annotations

import numpy as np
import pytest
from omegaconf import OmegaConf

from xlebench.config.schema import CompatibilityConfig
from xlebench.errors import ConfigError
from xlebench.library.records import LibraryVideo
from xlebench.simulate.filter import AUTHORS, CandidateFilter, Level, compatibility
from xlebench.stages.simulate import _matcher_identity

STRICT = Level("strict", 0.0, False, True)


def _videos() -> list[LibraryVideo]:
    rows = [("in-day", "daytime", "indoor"), ("out-day", "daytime", "outdoor"),
            ("mix-unc", "uncertain", "mixed"), ("in-night", "nighttime", "indoor"),
            ("out-twi", "twilight", "outdoor")]
    return [LibraryVideo(uid, 600.0, "Italy", None, ("Cooking",), time, scene, "C.")
            for uid, time, scene in rows]


def _matches(table, scene: str, time: str) -> list[str]:
    videos = _videos()
    f = CandidateFilter(videos, table)
    ids = f.mask(scenarios=("Cooking",), scene=scene, time_class=time, country="Italy",
                 used=np.zeros(len(videos), dtype=bool), level=STRICT)
    return [videos[i].video_uid for i in np.flatnonzero(ids)]


def test_the_default_tables_are_the_authors_rule() -> None:
    tables = OmegaConf.to_container(OmegaConf.structured(CompatibilityConfig))
    assert compatibility(tables) == AUTHORS
    assert _matches(AUTHORS, "indoor", "daytime") == ["in-day", "mix-unc"]
    assert _matches(AUTHORS, "mixed", "nighttime") == ["mix-unc"]
    assert _matches(AUTHORS, "outdoor", "twilight") == ["mix-unc", "out-twi"]


def test_a_configured_table_changes_what_a_chunk_accepts() -> None:
    tables = OmegaConf.to_container(OmegaConf.structured(CompatibilityConfig))
    tables["scene"]["mixed"] = ["indoor", "outdoor", "mixed"]  # a mixed chunk takes any scene
    tables["time"]["twilight"] = ["twilight", "nighttime"]  # and dusk is dusk or night, never
    table = compatibility(tables)  # uncertain
    assert _matches(table, "mixed", "daytime") == ["in-day", "out-day", "mix-unc"]
    assert _matches(table, "mixed", "twilight") == ["in-night", "out-twi"]
    assert _matches(table, "indoor", "twilight") == ["in-night"]


def test_a_configured_table_is_part_of_the_simulation_identity() -> None:
    tables = OmegaConf.to_container(OmegaConf.structured(CompatibilityConfig))
    matcher = {"ladder": [], "top_k_sample": 1, "compatible": tables}
    assert "compatible" not in _matcher_identity(matcher), "caches before the knob stay valid"
    tables["scene"]["mixed"] = ["indoor", "mixed"]
    assert _matcher_identity(matcher)["compatible"]["scene"]["mixed"] == ["indoor", "mixed"]


@pytest.mark.parametrize("change, says", [
    ({"time": {"daytime": ["day"]}}, "'day' is not a library time value"),
    ({"scene": {"indoors": ["indoor"]}}, "'indoors' is not a library scene value"),
])
def test_a_misspelt_value_is_named(change, says) -> None:
    tables = OmegaConf.to_container(OmegaConf.structured(CompatibilityConfig))
    for kind, rows in change.items():
        tables[kind].update(rows)
    with pytest.raises(ConfigError, match=says):
        compatibility(tables)
