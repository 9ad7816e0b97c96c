"""Every ``xlebench`` command in the README and the docs pages composes and validates as
written: a renamed
group or key, or a value out of range, fails here before a reader meets it. (Network and
media are not needed to compose; sweeps, placeholders with ``...`` and flags other than
overrides are left to their own tests.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.test_config import _compose
from xlebench.commands.validate import validate_config

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The README and the pages its map links to.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def readme_commands() -> list[str]:
    text = "\n".join(p.read_text("utf-8") for p in PAGES)
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            if line.startswith("xlebench ") or line.strip() == "xlebench":
                out.append(line)
    return out


def _overrides(command: str) -> list[str] | None:
    words = shlex.split(command, comments=True)[1:]
    if any(w.startswith("-") for w in words) or "..." in words or any(
            w.startswith("hydra.searchpath") for w in words):
        return None
    return [w.replace("$PWD", "/tmp") for w in words]


COMMANDS = readme_commands()


def test_the_readme_has_commands() -> None:
    assert len(COMMANDS) >= 30 and sum(_overrides(c) is not None for c in COMMANDS) >= 25


@pytest.mark.parametrize("command", [c for c in COMMANDS if _overrides(c) is not None])
def test_each_readme_command_composes_and_validates(command: str) -> None:
    cfg = _compose(_overrides(command))
    validate_config(cfg)


def test_the_readme_is_a_map_of_at_most_400_lines_linking_every_docs_page() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 400
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in text, page.name


def test_every_relative_link_of_the_docs_resolves() -> None:
    for page in PAGES:
        for target in re.findall(r"\]\((?!https?:|#|mailto:)([^)#\s]+)", page.read_text("utf-8")):
            assert (page.parent / target).exists(), (page.name, target)


def _coverage_marks() -> dict[str, tuple[int, int, int, int]]:
    """Per seed of docs/coverage.md: (done, partial, missing, rows) as its table's marks count
    them, and as its heading states them (asserted equal)."""
    text = (ROOT / "docs" / "coverage.md").read_text()
    parts = re.split(r"(?m)^## (.*)$", text)
    out = {}
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        marks = re.findall(r"(?m)^\| \d+ \|.*?\| (✓|◐|✗) \|", body)
        counted = (marks.count("✓"), marks.count("◐"), marks.count("✗"), len(marks))
        stated = re.search(r"— (\d+) done, (\d+) partial, (\d+) missing of (\d+)$", head)
        assert stated and tuple(map(int, stated.groups())) == counted, head
        out[head.split(" (")[0]] = counted
    return out


def test_the_coverage_figures_are_the_tables_marks_and_the_readme_says_the_same() -> None:
    seeds = _coverage_marks()
    assert set(seeds) == {"EgoSchema", "Neptune", "VidSitu", "MultiHop-EgoQA"}
    readme = (ROOT / "README.md").read_text()
    for seed, (done, partial, missing, _) in seeds.items():
        assert f"{seed} {done} / {partial} / {missing}" in readme, seed


def test_every_coverage_row_names_a_test_that_exists() -> None:
    """Each row of docs/coverage.md ends with the tests that fail when its feature breaks
    (one or more, comma-separated): each file exists and defines its test."""
    text = (ROOT / "docs" / "coverage.md").read_text()
    rows = re.findall(r"(?m)^\| (\d+) \|.*\| ((?:`tests/[\w/]+\.py::test_\w+`(?:, )?)+) \|$",
                      text)
    marks = re.findall(r"(?m)^\| \d+ \|.*?\| (?:✓|◐|✗) \|", text)
    assert len(rows) == len(marks) > 0, "a row without its test"
    for number, cell in rows:
        for path, name in re.findall(r"`(tests/[\w/]+\.py)::(test_\w+)`", cell):
            source = (ROOT / path).read_text("utf-8")
            assert re.search(rf"(?m)^def {name}\(", source), (number, path, name)


def test_the_readme_states_at_most_four_durations() -> None:
    """A map, not a diary: one current figure per command; the history of every measurement
    lives in docs/performance.md."""
    import re

    text = README.read_text("utf-8")
    durations = re.findall(r"\b\d+(?:\.\d+)? ?(?:min(?:utes?)?|s|seconds?|hours?)\b"
                           r"|\babout (?:one|two|three|a few) (?:minutes?|hours?)\b", text)
    # "2 min 58 s" is one figure: count minutes that carry their seconds once
    figures = len(durations) - len(re.findall(r"\d+ min \d+ s", text))
    assert figures <= 4, durations
