"""The line for a recipe that compiled no item names the cause this run had."""

from __future__ import annotations

from pathlib import Path

from xlebench.tasks.recipe.configured import empty_subtask_line
from xlebench.tasks.recipe.registry import load_recipe


def test_a_synthetic_library_is_not_told_to_download_ego4d() -> None:
    """The synthetic corpus carries NLQ: 0 items there means too few logs, not no Ego4D."""
    recipe = load_recipe("people_retrieval")
    reasons = {"segments without matching NLQ queries": 2}
    small = empty_subtask_line("people_retrieval", recipe, reasons, None, corpus=True)
    assert "annotations_root" not in small and "more life logs" in small
    bare = empty_subtask_line("people_retrieval", recipe, reasons, None, corpus=False)
    assert "library.annotations_root=" in bare
    local = empty_subtask_line("people_retrieval", recipe, reasons, Path("/data/ego4d"))
    assert "require_nlq" in local
