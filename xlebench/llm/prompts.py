"""Versioned prompt files and a strict renderer.

A prompt lives in ``xlebench/prompts/<group>/<name>.v<N>.txt`` and is referred to by
``<group>/<name>.v<N>``. The file holds a ``### system`` and a ``### user`` section; ``{{name}}``
placeholders are filled from keyword arguments. Rendering is strict both ways: a placeholder
without a value and a value without a placeholder are errors, so a renamed variable can never
silently produce a prompt with a hole in it. A new wording is a new file (``v2``), never an
edit of a released one: the file's digest is part of every stage fingerprint that uses it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
_NAME = re.compile(r"^[a-z0-9_]+/[a-z0-9_]+\.v[0-9]+$")
_SLOT = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^### (system|user)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    """A parsed prompt file: its id, path and the two message templates."""

    name: str
    path: Path
    system: str
    user: str

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(_SLOT.findall(self.system) + _SLOT.findall(self.user))

    def render(self, **values: Any) -> list[dict[str, str]]:
        """Chat messages with every slot filled; dicts and lists are written as JSON."""
        missing = sorted(self.slots - values.keys())
        unused = sorted(values.keys() - self.slots)
        if missing or unused:
            raise ValueError(
                f"prompt {self.name}: "
                + "; ".join(p for p in (
                    f"no value for {missing}" if missing else "",
                    f"values {unused} have no {{{{slot}}}} in the file" if unused else "",
                ) if p)
            )
        text = {k: _as_text(v) for k, v in values.items()}

        def fill(template: str) -> str:
            return _SLOT.sub(lambda m: text[m.group(1)], template)

        return [{"role": "system", "content": fill(self.system)},
                {"role": "user", "content": fill(self.user)}]


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)


def prompt_path(name: str) -> Path:
    """Path of a prompt id such as ``planner/persona.v1``; clear error when it does not exist."""
    if not _NAME.match(name):
        raise ConfigError(f"prompt {name!r}: expected '<group>/<name>.v<N>' e.g. planner/persona.v1")
    path = PROMPT_DIR / f"{name}.txt"
    if not path.is_file():
        have = sorted(str(p.relative_to(PROMPT_DIR))[:-4] for p in PROMPT_DIR.rglob("*.txt"))
        raise ConfigError(f"prompt {name!r}: no file {path}; available: {', '.join(have)}")
    return path


@cache
def load_prompt(name: str) -> Prompt:
    path = prompt_path(name)
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    # parts = [preamble, role, body, role, body]
    sections = {parts[i]: parts[i + 1].strip("\n") for i in range(1, len(parts) - 1, 2)}
    if set(sections) != {"system", "user"}:
        raise ConfigError(f"{path}: a prompt file needs one '### system' and one '### user' section")
    return Prompt(name, path, sections["system"], sections["user"])
