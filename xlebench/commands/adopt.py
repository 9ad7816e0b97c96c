"""``benchmark=<name or folder>``: evaluate a published benchmark without repeating its
configuration.

A benchmark is compiled once and evaluated many times, often from another shell, another
week or another machine; asking the user to retype every compile override (and refusing the
run when one is missed) invites the one thing that must never happen, ``overwrite=true``.
With ``benchmark=``, the config groups it was composed from (``manifest.json`` ``choices``)
are composed again and its published configuration is laid over them; only the evaluation's
own settings (``eval``, ``vlm``, ``answerer``, ``judge``), the exports it writes (``export``)
and machine-local ones come from the command line. An override of the benchmark's
configuration is refused in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.commands.values import literal
from xlebench.errors import ConfigError
from xlebench.manifest import EVALUATION_SECTIONS, VIEW_SECTIONS

KEY = "benchmark"
#: Groups whose option is the ``kind`` (``backend``) their config names: manifests written
#: before ``choices`` were recorded are composed from these.
_KIND_GROUPS = {"library": "kind", "persona": "kind", "planner": "kind", "render": "kind",
                "llm": "backend"}


def adopt_args(args: list[str], conf_dir: Path) -> list[str]:
    """The command line with the published benchmark's composition added (unchanged without
    ``benchmark=``)."""
    given = [a.split("=", 1)[1] for a in args if a.startswith(f"{KEY}=")]
    if not given or not given[-1] or given[-1] == "null":
        return args
    groups, values = adoption(given[-1], args, conf_dir)
    return [*args, *groups, *(f"{k}={v}" for k, v in values.items())]


def adoption(ref: str, args: list[str], conf_dir: Path,
             values: Mapping[str, Any] | None = None) -> tuple[list[str], dict[str, Any]]:
    """What ``benchmark=<ref>`` adds: the overrides choosing its config groups and recipes,
    and the values naming its folder (``name``, ``paths.benchmarks``: data, which the Python
    door sets as such, never as override text). An override or value (``values``, the API's)
    of its published configuration is refused in one line."""
    values = values or {}
    folder = resolve(ref, [*args, *(f"{k}={v}" for k, v in values.items())])
    manifest = _manifest(folder)
    content = manifest.get("config", {})
    given = [(a, a.split("=", 1)[0].lstrip("+~")) for a in args
             if "=" in a and not a.startswith("-")]
    for said, key in [*given, *((f"values[{k!r}]", k) for k in values)]:
        top = key.split("/", 1)[0].split(".", 1)[0]
        if top not in VIEW_SECTIONS and (top in content or top == "experiment"):
            raise ConfigError(f"{said}: benchmark={ref} is evaluated as published "
                              f"({folder}), its configuration read from its manifest; drop "
                              f"{key}, or compile another benchmark with name=<new name>")
    choices = manifest.get("choices") or _guessed_choices(content, conf_dir)
    tasks = ",".join(content.get("tasks", {}))
    return ([*(f"{g}={o}" for g, o in choices.items()), f"tasks=[{tasks}]"],
            {"name": folder.name, "paths.benchmarks": str(folder.parent)})


def resolve(ref: str, args: list[str]) -> Path:
    """A folder holding ``manifest.json``, or a name under ``paths.benchmarks``."""
    as_path = Path(ref).expanduser()
    if (as_path / "manifest.json").is_file():
        return as_path.resolve()
    last = {a.split("=", 1)[0]: a.split("=", 1)[1] for a in args if "=" in a}
    root = Path(last.get("paths.benchmarks")
                or Path(last.get("paths.outputs", "outputs")) / "benchmarks")
    if (root / ref / "manifest.json").is_file():
        return (root / ref).resolve()
    raise ConfigError(f"benchmark={ref}: no published benchmark there (no manifest.json in "
                      f"{as_path} or {root / ref}); give its folder, or compile it first "
                      f"with name={ref}")


def adopt_config(cfg: DictConfig) -> None:
    """Lay the published configuration over ``cfg`` (composed from its choices)."""
    if not cfg.get(KEY):
        return
    folder = Path(str(cfg.paths.benchmarks)) / str(cfg.name)
    for key, value in _manifest(folder).get("config", {}).items():
        if key == "name" or key in EVALUATION_SECTIONS or key in VIEW_SECTIONS:
            continue  # this run's own: from its command line
        try:
            value = literal(value)  # published values are data: a "${" in one stays text
            if isinstance(value, dict) and OmegaConf.is_dict(cfg.get(key)):
                cfg[key] = OmegaConf.merge(cfg[key], value)
            else:
                cfg[key] = value
        except Exception as exc:  # a manifest from another version of the schema
            raise ConfigError(f"{folder / 'manifest.json'}: config.{key} cannot be composed "
                              f"by this version of xlebench ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0]}); evaluate it with the version "
                              "that compiled it (manifest xlebench_version)") from None


def _manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc}); give a published benchmark's "
                          "folder") from None


def _guessed_choices(content: dict[str, Any], conf_dir: Path) -> dict[str, str]:
    out = {}
    for group, field in _KIND_GROUPS.items():
        option = (content.get(group) or {}).get(field)
        if option and (conf_dir / group / f"{option}.yaml").is_file():
            out[group] = str(option)
    return out
