"""Values a Python caller sets: data laid into the composed configuration, never override text.

An override is Hydra grammar: ``eval.name=${oc.env:API_KEY}`` resolves an environment
variable, ``a,b`` is a sweep, quotes are eaten, a space needs quoting. A user's string given to
the Python door (`xlebench.api`) is none of that; it is the value. So the API composes the
groups from overrides and sets its values afterwards, each string escaped so that OmegaConf
reads it back exactly (``\\${`` is OmegaConf's literal ``${``) and checked to read back so.
A key that is not a setting, or a value of the wrong type, is one line, as an override's is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from xlebench.errors import ConfigError

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
#: an interpolation's opening, with the backslashes before it (OmegaConf escapes with them)
_OPEN = re.compile(r"(\\*)\$\{")


def literal(value: Any) -> Any:
    """``value`` as OmegaConf stores it so that reading it gives ``value`` back: a string's
    ``${`` escaped (and the backslashes before one doubled), containers element by element."""
    if isinstance(value, PurePath):
        value = str(value)
    if isinstance(value, str):
        return _OPEN.sub(lambda m: "\\" * (2 * len(m.group(1))) + "\\${", value)
    if isinstance(value, Mapping):
        return {str(k): literal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [literal(v) for v in value]
    return value


def check_values(values: Any, conf_dir: Path) -> dict[str, Any]:
    """``values`` as a dict of dotted setting -> value; a key that is not a dotted name, or
    names a config group (chosen by an override, e.g. ``"vlm=litellm"``), is one line."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise ConfigError(f"values=<{type(values).__name__}>: expected a dict of setting -> "
                          "value, e.g. {\"eval.name\": \"my model\"}")
    for key in values:
        if not isinstance(key, str) or not _KEY.match(key):
            raise ConfigError(f"values[{key!r}]: not a setting's dotted name; give e.g. "
                              "\"eval.name\" or \"seed\"")
        if (conf_dir / key.replace(".", "/")).is_dir():
            raise ConfigError(f"values[{key!r}]: {key} is a config group; choose its option "
                              f"with an override (e.g. \"{key}=<option>\")")
    return dict(values)


def set_values(cfg: DictConfig, values: Mapping[str, Any]) -> None:
    """Set each value as data (`literal`); it must read back as given."""
    for key, value in values.items():
        try:
            OmegaConf.update(cfg, key, literal(value), merge=False)
            back = OmegaConf.select(cfg, key, throw_on_missing=True)
            if OmegaConf.is_config(back):
                back = OmegaConf.to_container(back, resolve=True)
        except OmegaConfBaseException as exc:
            raise ConfigError(f"values[{key!r}]={value!r}: {_reason(exc)}") from None
        if back != _plain(value):
            raise ConfigError(f"values[{key!r}]={value!r}: the configuration reads it back as "
                              f"{back!r}; give the value as {type(back).__name__}")


def _plain(value: Any) -> Any:
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _reason(exc: OmegaConfBaseException) -> str:
    text = str(exc).splitlines()[0]
    if "Key" in type(exc).__name__ or re.search(r"not in struct|Missing key|Key '.*' not in",
                                                 text):
        return "not a setting (xlebench --cfg job lists them)"
    return text
