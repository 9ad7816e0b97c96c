"""Versioned prompt files, the strict renderer and JSON extraction."""

from __future__ import annotations

import pytest

from xlebench.config.schema import PlannerConfig
from xlebench.errors import ConfigError
from xlebench.llm.prompts import PROMPT_DIR, load_prompt, prompt_path
from xlebench.llm.structured import extract_json


def _all_prompt_ids() -> list[str]:
    return sorted(str(p.relative_to(PROMPT_DIR))[:-4] for p in PROMPT_DIR.rglob("*.txt"))


@pytest.mark.parametrize("name", _all_prompt_ids())
def test_every_shipped_prompt_renders(name: str) -> None:
    prompt = load_prompt(name)
    messages = prompt.render(**{slot: f"<{slot}>" for slot in prompt.slots})
    assert [m["role"] for m in messages] == ["system", "user"]
    text = messages[0]["content"] + messages[1]["content"]
    assert "{{" not in text and all(f"<{s}>" in text for s in prompt.slots)
    assert "Task:" in messages[0]["content"], "the system message names its task"


def test_planner_config_points_at_existing_prompts() -> None:
    for name in PlannerConfig().prompts.values():
        assert prompt_path(name).is_file()


def test_renderer_is_strict_both_ways() -> None:
    prompt = load_prompt("planner/persona.v1")
    full = {s: "x" for s in prompt.slots}
    with pytest.raises(ValueError, match=r"no value for \['mbti'\]"):
        prompt.render(**{k: v for k, v in full.items() if k != "mbti"})
    with pytest.raises(ValueError, match="have no"):
        prompt.render(**full, surplus="y")


def test_structured_values_are_written_as_json() -> None:
    prompt = load_prompt("planner/daily_plan.v1")
    user = prompt.render(input={"b": 1, "a": [1, 2]})[1]["content"]
    assert '"a": [' in user and user.index('"a"') < user.index('"b"')


@pytest.mark.parametrize("name", ["planner/persona", "../etc/passwd.v1", "planner/nope.v9"])
def test_bad_prompt_ids_are_config_errors(name: str) -> None:
    with pytest.raises(ConfigError):
        prompt_path(name)


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('Sure! ```json\n{"a": [1, 2]}\n``` Hope this helps.', {"a": [1, 2]}),
    ('Here you go: {"a": {"b": 2}} -- done', {"a": {"b": 2}}),
    ("```\n[1, 2]\n```", [1, 2]),
])
def test_extract_json(text: str, expected: object) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", '{"a": 1', "{'a': 1}"])
def test_extract_json_rejects_non_json(text: str) -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        extract_json(text)
