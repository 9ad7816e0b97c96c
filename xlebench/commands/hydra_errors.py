"""Hydra's composition errors as one line with a suggestion, exit status 2.

Hydra reports a misspelt key or option in five to twelve lines (the search path, a hint
about ``HYDRA_FULL_ERROR``) and exits 1, the status of a failed run. A user error here is
like any other bad input: one line naming the override, what it should be ("did you mean"),
exit 2. ``HYDRA_FULL_ERROR=1`` still shows Hydra's own report; an error that is not
composition's goes to Hydra's handler unchanged.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from pathlib import Path
from typing import Any

from hydra.errors import ConfigCompositionException, MissingConfigException, OverrideParseException


def install(conf_dir: Path, fail: Any) -> None:
    """Wrap Hydra's ``run_and_report``: composition errors become ``fail(line)`` (exit 2)."""
    from hydra._internal import utils

    original = utils.run_and_report
    if getattr(original, "xlebench", False):  # once per process (tests call main() often)
        return

    def run_and_report(func: Any) -> Any:
        try:
            return func()
        except (ConfigCompositionException, MissingConfigException,
                OverrideParseException) as ex:
            if os.environ.get("HYDRA_FULL_ERROR") == "1":
                raise
            line, error = one_line(ex, conf_dir), ex
            if line is None:
                def again() -> Any:
                    raise error
                return original(again)
            sys.exit(fail(line))
    run_and_report.xlebench = True  # type: ignore[attr-defined]
    utils.run_and_report = run_and_report


def one_line(ex: Exception, conf_dir: Path, args: list[str] | None = None) -> str | None:
    """The error in one line, with the nearest valid name when there is one (``args``: the
    overrides given, the command line's by default)."""
    if isinstance(ex, MissingConfigException) and ex.missing_cfg_file:
        group, _, option = str(ex.missing_cfg_file).rpartition("/")
        options = list(ex.options or []) or sorted(
            p.stem for p in (conf_dir / group).glob("*.yaml"))
        if not group or not options:
            return None
        return (f"{group}={option}: no such option{_suggest(option, options)} (choose from "
                f"{', '.join(options)})")
    cause = ex.__cause__
    key = getattr(cause, "full_key", None)
    if isinstance(ex, ConfigCompositionException) and key:
        override = _override(str(ex), key, sys.argv[1:] if args is None else args)
        parent = getattr(cause, "parent_node", None)
        if type(cause).__name__ in ("ConfigAttributeError", "ConfigKeyError") and parent is not None:
            prefix = key.rpartition(".")[0]
            names = [f"{prefix}.{k}" if prefix else str(k) for k in parent.keys()]
            recipe = key.split(".")[1] if key.startswith("tasks.") and "." in key else ""
            if prefix == "tasks" and (conf_dir / "tasks" / f"{recipe}.yaml").is_file():
                chosen = ",".join(str(k) for k in parent.keys())
                return (f"{override}: {recipe} is a recipe not among tasks=[{chosen}]; add "
                        f"it to set its parameters (tasks=[{chosen},{recipe}]), or set them "
                        "where the composed config has them (--cfg job --package tasks)")
            return (f"{override}: {key} is not a setting{_suggest(key, names)} (list them with "
                    "--cfg job; a new key needs +" f"{override})")
        return f"{override}: {str(cause).splitlines()[0]}"
    if isinstance(ex, OverrideParseException):
        text = getattr(ex, "override", None) or "override"
        key, eq, value = str(text).partition("=")
        if eq and not value.isascii():
            return _non_ascii(key.lstrip("+~"), value)
        return (f"{text}: {str(ex).splitlines()[0]} "
                "(quote it for the shell, e.g. 'persona.locations=[Japan,UK]'; grammar: "
                "https://hydra.cc/docs/advanced/override_grammar/basic)")
    return None


def _non_ascii(key: str, value: str) -> str:
    """Hydra's grammar reads unquoted values in ASCII only; quoting for the shell is not
    what helps: the value needs quotes inside the override."""
    if key == "name":
        from xlebench.config.declared import NAME_RULE

        return (f"name={value}: not a benchmark name ({NAME_RULE}); it names the folder "
                "paths.benchmarks/<name>")
    quoted = (f"[{','.join(repr(v.strip()) for v in value[1:-1].split(','))}]"
              if value.startswith("[") and value.endswith("]") else repr(value))
    return (f"{key}={value}: Hydra reads a value with letters beyond ASCII only inside "
            f"quotes; write \"{key}={quoted}\" (quotes inside the override, and the whole "
            "override in shell quotes)")


def _override(message: str, key: str, args: list[str]) -> str:
    """The override that failed, as the user wrote it (the last one wins)."""
    for arg in reversed(args):
        if arg.split("=", 1)[0].lstrip("+~") == key:
            return arg
    found = re.search(r"override '?([^'\s]+)'?", message)
    return found.group(1) if found else key


def _suggest(name: str, choices: list[str]) -> str:
    near = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"; did you mean {near[0]}?" if near else ""


def check_group_options(args: list[str], conf_dir: Path) -> None:
    """A config group's option names a file of that group, never a path out of it: Hydra
    reads ``tasks=[../persona/grid]`` as the persona group's file laid under ``tasks``
    (which then failed as "tasks.: no such recipe"). One line naming the override instead."""
    from xlebench.config.declared import is_name
    from xlebench.errors import ConfigError

    for arg in args:
        key, eq, value = arg.lstrip("+~").partition("=")
        if not eq or arg.startswith("-") or not (conf_dir / key).is_dir():
            continue
        for option in (o.strip() for o in value.strip("[]").split(",")):
            if option and option != "null" and not is_name(option):
                options = sorted(p.stem for p in (conf_dir / key).glob("*.yaml"))
                raise ConfigError(f"{arg}: {option!r} is not an option of {key} (an option "
                                  f"is a name, not a path); choose from {', '.join(options)}")
