"""The library view: the planner's scenario vocabulary read from its column alone is the one
read from fully decoded rows."""

from __future__ import annotations

from pathlib import Path

from xlebench.library.records import LibraryVideo
from xlebench.library.view import TABLE, LibraryView


def test_scenario_vocabulary_from_the_column_equals_the_decoded_rows(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    scenarios = [("Cooking",), ("Cooking", "Cleaning"), ("Gardening",), (), ("Cleaning",),
                 ("Cooking",)]
    videos = [LibraryVideo(f"v{k}", 600.0, "UK", None, s, "daytime", "indoor", "C.")
              for k, s in enumerate(scenarios)]
    pq.write_table(pa.Table.from_pylist([v.to_row() for v in videos]), tmp_path / TABLE)
    column = LibraryView(tmp_path).scenario_vocabulary
    decoded = LibraryView(tmp_path)
    assert decoded.videos and "videos" in decoded.__dict__
    assert column == decoded.scenario_vocabulary == ["Cooking", "Cleaning", "Gardening"]
