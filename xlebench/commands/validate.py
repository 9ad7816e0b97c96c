"""Check a composed config before any work: every knob's range, and the rules that tie
several knobs together (``simulation.n_chunks`` against ``planner.min_chunks``, known
locations and MBTI types).

Hydra already rejects unknown keys and wrong types while composing; this adds what a type
cannot say. A violation is one `ConfigError` line naming the key, the value, what was
expected and what to do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from xlebench.config.declared import NAME_RULE, check_system_name, is_name
from xlebench.config.knobs import check_of
from xlebench.config.schema import SimulationConfig
from xlebench.errors import ConfigError
from xlebench.persona.locations import unknown_location

#: Required values (``???`` in the YAML) and what to give them.
REQUIRED = {
    "library.root": "the folder of your Ego4D download (holding v2/ or ego4d.json), e.g. "
                    "library.root=/data/ego4d",
    "library.path": "the authors' video_info.json, e.g. "
                    "library.path=../shared/data/xlebench_video_info.json",
}


def validate_config(cfg: DictConfig) -> None:
    """Raise `ConfigError` naming every invalid knob (at most a few per message); a
    required value left unset is named with what to give it."""
    for key, what in REQUIRED.items():
        parent, _, leaf = key.rpartition(".")
        node = OmegaConf.select(cfg, parent)
        if isinstance(node, DictConfig) and leaf in node.keys() \
                and OmegaConf.is_missing(node, leaf):
            raise ConfigError(f"{key} is required here: give {what}")
    problems = list(_walk(cfg, "")) + list(_cross_checks(cfg))
    if problems:
        shown = "; ".join(problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ConfigError(f"invalid configuration: {shown}{more}")


def _walk(node: Any, path: str) -> Iterator[str]:
    if isinstance(node, ListConfig):
        for i, item in enumerate(node):
            yield from _walk(item, f"{path}[{i}]")
        return
    if not isinstance(node, DictConfig):
        return
    kind = OmegaConf.get_type(node)
    fields = {f.name: f for f in dataclasses.fields(kind)} \
        if dataclasses.is_dataclass(kind) else {}
    for key in node:
        sub = f"{path}.{key}" if path else str(key)
        if OmegaConf.is_missing(node, key):
            continue
        value = node[key]
        check = check_of(fields[key]) if key in fields else None
        if check is not None and check.nonempty and not _plain(value):
            yield f"{sub}=[]: expected at least one value (an empty list makes nothing)"
        if check is not None:
            values = _elements(value, sub) if check.each else [(sub, _plain(value))]
            for where, v in values:
                if (why := check.problem(v)) is not None:
                    yield f"{where}={_show(v)}: {why}"
        if key != "hydra":
            yield from _walk(value, sub)


def _elements(value: Any, path: str) -> list[tuple[str, Any]]:
    plain = _plain(value)
    if isinstance(plain, dict):
        return [(f"{path}.{k}", v) for k, v in plain.items()]
    if isinstance(plain, list):
        return [(f"{path}[{i}]", v) for i, v in enumerate(plain)]
    return [(path, plain)]


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


# -- rules across knobs --------------------------------------------------------------------------

def _cross_checks(cfg: DictConfig) -> Iterator[str]:
    yield from _name(cfg)
    yield from _lengths(cfg)
    yield from _persona(cfg)
    if int(cfg.shard.index) >= int(cfg.shard.count):
        yield (f"shard.index={cfg.shard.index}: expected below shard.count={cfg.shard.count} "
               "(jobs are numbered 0 .. count-1)")
    planner = cfg.planner
    if int(planner.gap_max_s) < int(planner.gap_min_s):
        yield (f"planner.gap_max_s={planner.gap_max_s}: expected >= planner.gap_min_s="
               f"{planner.gap_min_s}")
    for name, params in (cfg.get("tasks") or {}).items():
        if "min_actions" in params and "max_actions" in params \
                and int(params.min_actions) > int(params.max_actions):
            yield (f"tasks.{name}.min_actions={params.min_actions}: expected <= "
                   f"tasks.{name}.max_actions={params.max_actions}")


def _name(cfg: DictConfig) -> Iterator[str]:
    """``name`` becomes ``paths.benchmarks/<name>``: one plain folder name, never a path that
    leaves ``paths.benchmarks`` (``../../thesis``, ``/home/me``, ``..``). With ``benchmark=``
    the name is the published folder's own, already found holding a manifest."""
    name = (cfg.get("eval") or {}).get("name")
    if name is not None:
        try:
            check_system_name("eval.name", name)
        except ConfigError as exc:
            yield str(exc)
    if cfg.get("benchmark"):
        return
    name = cfg.get("name")
    if not is_name(str(name) if isinstance(name, int) and not isinstance(name, bool) else name):
        yield (f"name={name!r}: not a benchmark name ({NAME_RULE}); it names the "
               "folder paths.benchmarks/<name>, so choose another name, or set "
               "paths.benchmarks to publish somewhere else")


def _lengths(cfg: DictConfig) -> Iterator[str]:
    """A life log samples N chunks of each day's plan, which has at least
    planner.min_chunks; a length past its own range is named by that range alone."""
    sim, floor = cfg.simulation, int(cfg.planner.min_chunks)
    asked = ({"n_chunks": int(sim.n_chunks)} if sim.get("n_chunks") is not None
             else {f"lengths.{k}": int(v) for k, v in (sim.lengths or {}).items()})
    top, max_days = _bound(SimulationConfig, "n_chunks"), _bound(SimulationConfig, "days")
    for key, n in asked.items():
        if floor < n <= top:
            days = -(-n // floor)
            over = (f"set simulation.days={days} and simulation.{key}={-(-n // days)} (chunks "
                    "per day; each day keeps its own end), or " if days <= max_days else "")
            yield (f"simulation.{key}={n}: a day plan guarantees only planner.min_chunks="
                   f"{floor} chunks to sample from; for {n} chunks {over}choose at most "
                   f"{floor}, or add planner.min_chunks={n} (one day cut finer: its chunks "
                   "get shorter, it does not get longer)")


def _bound(kind: type, name: str) -> int:
    """A knob's upper bound, as its schema declares it."""
    field = next(f for f in dataclasses.fields(kind) if f.name == name)
    return int(check_of(field).le)


def _persona(cfg: DictConfig) -> Iterator[str]:
    from xlebench.persona.locations import LOCATIONS
    from xlebench.persona.profile import MBTI_TYPES

    if cfg.persona.get("kind") != "grid":
        return
    for key, example in (("locations", "Japan"), ("mbti", "INTJ")):
        if not cfg.persona.get(key):
            yield (f"persona.{key}=[]: the persona grid is locations x mbti, so an empty list "
                   f"makes no life log; give at least one (e.g. persona.{key}=[{example}]), or "
                   "drop the override for the paper's list")
    for i, loc in enumerate(cfg.persona.locations):
        if loc not in LOCATIONS:
            yield f"persona.locations[{i}]={loc!r}: {unknown_location(loc)}"
    for i, mbti in enumerate(cfg.persona.mbti):
        if str(mbti).upper() not in MBTI_TYPES:
            yield f"persona.mbti[{i}]={mbti!r}: expected one of the 16 MBTI types (e.g. INTJ)"
