"""Systems declare themselves once, in their own module (``SYSTEMS = (SystemKind(...),)``), and
are found as recipes are: every list of them is read from the declarations, each module's
docstring and docs/evaluation.md name its systems, and a system declared in a test answers through
the CLI with no file of the package touched."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import xlebench.systems.baselines as baselines
from tests.conftest import run_inprocess
from xlebench.errors import ConfigError
from xlebench.systems import registry
from xlebench.systems.base import Made, SystemKind, Systems

SMALL = ("stages=[library,persona,plan,simulate,annotate,respond,evaluate]",
         "library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
         "persona.mbti=[INTJ,ENFP]", "tasks=[single_summary]", "eval.bertscore=false",
         "eval.bootstrap=10", "render=none", "progress=false")


def _declaring_modules() -> dict[str, object]:
    out = {}
    for info in pkgutil.iter_modules(baselines.__path__):
        module = importlib.import_module(f"{baselines.__name__}.{info.name}")
        for kind in getattr(module, "SYSTEMS", ()):
            out[kind.name] = module
    return out


def test_every_list_of_systems_is_read_from_the_declarations() -> None:
    declared = _declaring_modules()
    assert set(registry.kinds()) == set(declared) and len(declared) == 11
    assert set(registry.frame_systems()) == {
        k.name for k in registry.kinds().values() if k.frames}
    assert "end_to_end_grounding" in registry.frame_systems()
    assert "oracle_annotations" not in registry.frame_systems()


def test_the_docs_name_every_declared_system() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "evaluation.md").read_text()
    for name, module in _declaring_modules().items():
        assert f"``{name}``" in (module.__doc__ or ""), (name, module.__name__)
        assert f"`{name}`" in readme, name


class _Echo:
    """A system of the test's own: every item answered with one sentence."""

    name = "echo_system"
    reads = None
    calls = 0

    def respond(self, items: list[dict], recipes: dict, log: dict) -> dict[str, str]:
        _Echo.calls += len(items)
        return {it["item_id"]: "C cooked and ate." for it in items}


def _make(name: str, cfg, out: Systems) -> Made:
    return _Echo(), {"system": name, "version": "1"}, None


@pytest.fixture
def echo():
    registry.register_system(SystemKind("echo_system", _make))
    yield
    registry._REGISTERED.pop("echo_system")


def test_a_system_declared_in_a_test_answers_through_the_cli(echo, tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *SMALL, "eval.systems=[echo_system]")
    assert ran.rc == 0, ran.text[-3000:]
    assert _Echo.calls > 0
    assert list((tmp_path / "benchmarks").glob("*/results/echo_system/scores.jsonl"))


def test_unknown_and_duplicate_systems_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="declared already"):
        registry.register_system(SystemKind("end_to_end", _make))
    # a system's name becomes results/<name>@<model>/: a path in it is refused where it is
    # declared, in one line, and nothing is registered
    for bad in ("../../../PWN_SYS", "a/b", "", "..", "with space", "-lead"):
        with pytest.raises(ConfigError, match="is not a name"):
            registry.register_system(SystemKind(bad, _make))
        assert bad not in registry.kinds()
    ran = run_inprocess(tmp_path, *SMALL, "eval.systems=[nope]")
    assert ran.rc == 2 and "'nope' is not a system" in ran.text


def test_tied_options_are_broken_at_random_never_by_position() -> None:
    """EgoSchema's rule for per-option scoring: among options tied at the top, a draw seeded
    by the item — the same pick for the same item on every run, and across items every tied
    position picked, never always the first."""
    from collections import Counter

    from xlebench.systems.baselines.likelihood import best_option

    picks = Counter(best_option({"item_id": f"item-{k}"}, [0.5, 0.5, 0.5, 0.1, 0.5])
                    for k in range(200))
    assert set(picks) == {"Option 0", "Option 1", "Option 2", "Option 4"}
    assert min(picks.values()) > 30  # about 50 each
    again = [best_option({"item_id": f"item-{k}"}, [0.5, 0.5, 0.5, 0.1, 0.5]) for k in range(5)]
    assert again == [best_option({"item_id": f"item-{k}"}, [0.5, 0.5, 0.5, 0.1, 0.5])
                     for k in range(5)]
    assert best_option({"item_id": "x"}, [0.1, 0.9, 0.2]) == "Option 1"
