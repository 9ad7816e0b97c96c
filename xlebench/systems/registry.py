"""The systems ``eval.systems`` names, each declared once in its own module, built from the
config here.

A system has a ``name`` (its results folder; ``oracle_`` when it reads ground truth), what it
``reads`` of the annotations (None for none), a ``fingerprint`` of what its replies depend on,
and ``respond(items, recipes, log) -> {item_id: reply}`` for one life log at a time, so the
``respond`` stage can cache, resume and shard them per (system, log). A module of
`xlebench.systems.baselines` declares its systems as ``SYSTEMS = (SystemKind(name, make), ...)``
(`xlebench.systems.base.SystemKind`: the factory, whether it answers from frames); they are
found here, as recipes are, so adding a system is its module and a test. A plug-in calls
`register_system`.

The systems table of docs/evaluation.md lists them; each module's docstring says what its systems read.
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
from functools import cache

from omegaconf import DictConfig, open_dict

from xlebench.config.declared import check_name
from xlebench.errors import ConfigError
from xlebench.split import split_logs
from xlebench.systems.base import SystemKind, Systems, result_key

_REGISTERED: dict[str, SystemKind] = {}


@cache
def _built_in() -> dict[str, SystemKind]:
    """The declarations of the modules of `xlebench.systems.baselines`, by name."""
    import xlebench.systems.baselines as pkg

    found: dict[str, SystemKind] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for kind in getattr(module, "SYSTEMS", ()):
            check_name(f"{info.name}: system", kind.name)
            if kind.name in found:
                raise ConfigError(f"system {kind.name!r} is declared twice ({info.name})")
            found[kind.name] = kind
    return found


def kinds() -> dict[str, SystemKind]:
    """Every declared system, by name (built-in, then registered)."""
    return {**_built_in(), **_REGISTERED}


def register_system(kind: SystemKind) -> None:
    """Declare a system from outside the package (a plug-in, a test): ``eval.systems``
    accepts its name from then on."""
    check_name("eval.systems: system", kind.name)
    if kind.name in kinds():
        raise ConfigError(f"eval.systems: {kind.name!r} is declared already")
    _REGISTERED[kind.name] = kind


def frame_systems() -> tuple[str, ...]:
    """Systems that answer from frames: ``eval.frames_sweep`` runs each at every count."""
    return tuple(k.name for k in kinds().values() if k.frames)


def build_systems(cfg: DictConfig) -> Systems:
    """The systems of ``cfg.eval.systems``; a misspelt one is a one-line error."""
    out, declared = Systems(), kinds()
    for name in cfg.eval.systems:
        if name not in declared:
            hint = " (renamed: it reads the narrations, so it is oracle_text_retrieval)" \
                if name == "text_retrieval" else ""
            raise ConfigError(f"eval.systems: {name!r} is not a system{hint}; choose from "
                              f"{list(declared)} (or give eval.predictions=<file.jsonl>)")
        for frames in _frame_counts(cfg, name):
            made = cfg if frames is None else _with_frames(cfg, frames)
            system, fp, model = declared[name].make(name, made, out)
            key = result_key(system.name, model) + (f"@frames={frames}" if frames else "")
            key = split_key(key, str(cfg.eval.split))
            out.by_name[key] = system
            out.fingerprints[key] = fp
            out.models[key] = model
    return out


def _frame_counts(cfg: DictConfig, name: str) -> list[int | None]:
    sweep = [int(n) for n in cfg.eval.get("frames_sweep") or []]
    frames = frame_systems()
    if sweep and not any(s in frames for s in cfg.eval.systems):
        raise ConfigError(f"eval.frames_sweep={sweep} needs a system that sees frames in "
                          f"eval.systems: {', '.join(frames)}")
    return sorted(set(sweep)) if sweep and name in frames else [None]


def _with_frames(cfg: DictConfig, frames: int) -> DictConfig:
    made = copy.deepcopy(cfg)
    with open_dict(made):
        made.eval.e2e_frames = frames
    return made


def split_key(key: str, split: str) -> str:
    """A system's results folder for one split (``oracle_text_retrieval@split=test``):
    scoring a split never replaces the whole benchmark's results."""
    return key if split == "all" else f"{key}@split={split}"


def selected_logs(all_ids: list[str], max_logs: int | None, lifelogs: list[str],
                  split: tuple[int, float, str] = (0, 0.0, "all")) -> list[str]:
    """The life logs an evaluation covers: those of its split (``(seed, heldout, which)``,
    `xlebench.split`), of them the listed ones, else the first N by id, else all."""
    all_ids = split_logs(all_ids, *split)
    if lifelogs:
        missing = sorted(set(lifelogs) - set(all_ids))
        if missing:
            raise ConfigError(f"eval.lifelogs: {missing} are not life logs of this benchmark "
                              f"(e.g. {', '.join(sorted(all_ids)[:3])})")
        return sorted(lifelogs)
    ids = sorted(all_ids)
    return ids[:max_logs] if max_logs else ids
