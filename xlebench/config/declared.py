"""Declarations read from modules' source, without importing the modules.

An extension point whose implementations live above the config floor (VLM backends, export
formats) declares each one in its own module, ``NAME = Class(<literals>)`` at the module's top
level. The config needs only their names and flags (the schema's choices and defaults), so it
reads them here from the source: composing a config never loads a backend's or an exporter's
dependencies, and this floor imports nothing above it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, TypeVar

from xlebench.errors import ConfigError

T = TypeVar("T")
#: What a declared name may be: it becomes a folder or file name (``results/<system>@...``,
#: ``export/<format>/``) and a config value, so no path separators, no dots leading.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


#: What to say of a name that is not one.
NAME_RULE = ("use letters, digits, '_', '-' and '.' (at most 64, starting with a letter or "
             "digit, no '..')")


def is_name(name: Any) -> bool:
    """A plain name: one path component that cannot leave its folder (no ``/``, no ``..``,
    not absolute, not hidden)."""
    return isinstance(name, str) and bool(_NAME.fullmatch(name)) and ".." not in name


def check_name(what: str, name: Any) -> None:
    """Refuse a declared name that is not a plain name (``../../PWN``, ``a b``, ``""``): one
    line, at declaration, before it names a folder."""
    if not is_name(name):
        raise ConfigError(f"{what} {name!r} is not a name: {NAME_RULE}")


#: What a system's name may not hold: it is shown in tables and becomes a folder name
#: (`xlebench.eval.predictions.folder_slug`), so no control characters, no path that climbs.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_system_name(what: str, name: Any) -> None:
    """A name a user gives the system whose replies are scored (``eval.name``, the API's
    ``system``): text of 1 to 200 characters without control characters, and no path
    (``../x``, ``/x``); a model's name with ``/`` (``openai/Qwen/Qwen2-VL-7B``) is one. The
    CLI and the API check it here, before it names anything."""
    if not isinstance(name, str) or not name.strip() or len(name) > 200 \
            or _CONTROL.search(name):
        raise ConfigError(f"{what}={name!r} is not a system name: give text of 1 to 200 "
                          "characters without control characters (e.g. the model's name)")
    if name.startswith(("/", "\\")) or ".." in re.split(r"[/\\]", name) \
            or "." in re.split(r"[/\\]", name):
        raise ConfigError(f"{what}={name!r} is not a system name: it reads as a path; name "
                          "the system (e.g. my-model or org/model), not a file")


def read_declarations(folder: Path, variable: str, cls: type[T]) -> list[tuple[str, T]]:
    """``(module name, declaration)`` of every ``<variable> = <cls>(<literals>)`` in the
    modules of ``folder``, in module name order; a name declared twice is an error."""
    marker = f"{variable} = {cls.__name__}("
    found: list[tuple[str, T]] = []
    names: set[Any] = set()
    for path in sorted(folder.glob("*.py")):
        text = path.read_text("utf-8")
        if marker not in text:
            continue
        for node in ast.parse(text).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    [getattr(t, "id", None) for t in node.targets] == [variable]:
                value = cls(*(ast.literal_eval(a) for a in node.value.args),
                            **{k.arg: ast.literal_eval(k.value)
                               for k in node.value.keywords if k.arg})
                name = getattr(value, "name", None)
                check_name(f"{path.name}: {variable}", name)
                if name in names:
                    raise ConfigError(f"{name!r} is declared twice ({path.name})")
                names.add(name)
                found.append((path.stem, value))
    return found
