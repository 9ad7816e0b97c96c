"""A configured recipe: what its items depend on (the key in its units' ids), which filters it
runs, whether it may ask a model, and the line printed when it compiled no item."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from xlebench.errors import ConfigError
from xlebench.llm.setup import prompt_files
from xlebench.runner.fingerprint import file_digest
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import MODEL_FILTERS


def recipe_key(recipe: Recipe, params: Any, raw: dict[str, Any]) -> str:
    """What a recipe's items depend on besides the log: its declaration, parameters (filters
    included), prompt files and where it comes from (8 hex digits, part of the unit id)."""
    target = raw.get("_target_")
    filters = raw.get("filters") or []
    files = _filter_files(filters)
    blob = json.dumps({"name": recipe.name, "task": recipe.task, "params": asdict(params),
                       "filters": filters, **({"filter_files": files} if files else {}),
                       "prompts": {p: file_digest(f) for p, f in
                                   zip(recipe.prompts, prompt_files(list(recipe.prompts)),
                                       strict=True)},
                       "target": target}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:8]


def _filter_files(filters: list) -> dict[str, str]:
    """Digests of the files filters read (rater sheets, transcripts): a new verdict
    recompiles the recipe's units."""
    return {str(f[k]): file_digest(Path(f[k])) for f in filters if isinstance(f, dict)
            for k in ("verdicts", "transcripts") if k in f and Path(str(f[k])).is_file()}


def derived_key(keys: dict[str, str], name: str) -> str:
    """A derived recipe's key: its own and every other configured recipe's (its sources)."""
    blob = json.dumps({"own": keys[name], "others": {n: k for n, k in keys.items()
                                                     if n != name}}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:8]


def _asks_model(params: Any) -> str | None:
    """The parameter that makes a recipe generate with a model (``generator: llm``, nested
    ``decoys.generator: llm``), if any."""
    for name in ("generator", "decoys"):
        value = getattr(params, name, None)
        if value == "llm":
            return name
        if getattr(value, "generator", None) == "llm":
            return f"{name}.generator"
    return None


def recipe_filters(task: dict, with_llm: bool) -> list:
    """A recipe's filters: ``filters``, then ``model_filters`` when a model is configured."""
    return [*(task.get("filters") or []), *((task.get("model_filters") or []) if with_llm
                                            else [])]


def refuse_model_use(recipes: dict[str, tuple[Recipe, Any]], tasks: dict) -> None:
    """Under ``llm=offline``, a recipe or filter that asks a model is refused before any work."""
    for name, (_, params) in recipes.items():
        knob = _asks_model(params)
        if knob:
            raise ConfigError(f"tasks.{name}.{knob}=llm asks a model: set llm=litellm (or "
                              "llm=replay), or choose the offline generator")
        for i, spec in enumerate((tasks[name] or {}).get("filters") or []):
            if spec.get("kind") in MODEL_FILTERS:
                raise ConfigError(f"tasks.{name}.filters[{i}]: the {spec['kind']} filter asks "
                                  "a text-only model: set llm=litellm (or llm=replay)")


def empty_subtask_line(sub: str, recipe: Recipe, reasons: dict[str, int],
                       root: Path | None, corpus: bool = False) -> str:
    """One line for a recipe that compiled no item: why, and what gives it items. Empty
    subtasks are left out of every table and export. A library that carries its own
    annotations (``corpus``) had them; too few life logs met them."""
    why = max(reasons.items(), key=lambda kv: kv[1])[0] if reasons else "no candidate"
    ego4d = recipe.answer_source.startswith("Ego4D")
    if ego4d and root is None and corpus:
        fix = ("the library carries its source, but none of it fell in these life logs' "
               "records (or other logs asked it first): compile more life logs "
               "(persona.locations, persona.mbti, simulation.days) or a larger library "
               "(library.n_videos)")
    elif ego4d and root is None:
        fix = ("its items come from Ego4D annotations, which this library does not carry: "
               "add library.annotations_root=<your Ego4D download, the folder holding v2/>")
    elif ego4d:
        fix = (f"the matched videos carry none of its source ({recipe.answer_source}) under "
               f"{root}; library.require_nlq=true / require_moments=true keeps only videos "
               "that do")
    else:
        fix = f"see stats/tasks.json (skipped.{sub}) and its parameters in conf/tasks/{sub}.yaml"
    return f"{sub}: 0 items ({why}); left out of the tables and exports. To get items: {fix}"
