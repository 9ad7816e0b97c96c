"""The open recipe registry: one declaration per recipe, found by name.

A recipe is one module that defines ``RECIPE = Recipe(...)``: its name, task family, typed
parameter schema (a dataclass — the same one Hydra checks at compose time), the function that
builds items, the scorer of its answers, the answer format a model is asked for, where its
answers come from, the prompt files it renders and the annotations it needs. Everything else
— the annotate stage, scoring, floors, the results table and its AVG rows, the Socratic
prompts, the offline baseline — reads these declarations; nothing branches on recipe names.

Where a recipe comes from, for ``tasks=[name]``:

1. ``_target_: package.module.ATTRIBUTE`` in its config (``conf/tasks/<name>.yaml`` or your own
   config folder on ``hydra.searchpath``): your recipe, from your package, no file of xlebench
   touched. Its parameters are checked against its schema before any work.
2. an entry point in the group ``xlebench.recipes`` (``name = "package.module:ATTRIBUTE"``):
   registered at start-up, so Hydra checks its keys at compose time like a built-in.
3. the built-in module ``xlebench.tasks.<name>``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from typing import Any

from xlebench.config.declared import check_name
from xlebench.errors import ConfigError

ENTRY_POINTS = "xlebench.recipes"


@dataclass(frozen=True)
class Recipe:
    name: str
    task: str  # the task family: temporal_localisation, summarisation, counting, ordering, ...
    schema: type  # dataclass of parameters; conf/tasks/<name>.yaml is typed by it
    build: Callable[[Any, Any], Any]  # (Context, params) -> Built
    scorer: Any  # xlebench.eval.scorers.Scorer
    primary: str  # the headline metric (a key the scorer returns)
    answer_format: str  # how a model is asked to answer (Socratic, end-to-end prompts)
    answer_source: str  # where answers come from, printed under every results table
    prompts: tuple[str, ...] = ()  # prompt ids it may render (their digests key its units)
    needs: tuple[str, ...] = ()  # annotations: nlq, moments, narrations, summaries
    group: str | None = None  # AVG row it pools into, with the other recipes of the group
    description: str = ""
    #: Reads other recipes' compiled items (``ctx.source_items``): its units are keyed by the
    #: other configured recipes' keys too, so changing a source recompiles it.
    derived: bool = False
    #: The full-information oracle: ``oracle(ctx, params, item) -> reply``, an answer to the
    #: item re-derived from exactly the annotations it was built from (a consistency check of
    #: the recipe's answers, never a baseline); None where no such source exists offline.
    oracle: Callable[[Any, Any, dict], str] | None = None
    #: The metric the oracle's consistency check reads (default: the primary metric).
    check: str | None = None
    #: What its query shows of the videos it is about, in words other items may answer with:
    #: ``descriptions`` (what C does in a record: the ordering texts, the actions a counting
    #: or Neptune question names), ``verbs`` (an event's verbs: VidSitu's roles task gives
    #: them). See `xlebench.tasks.screening.leaks.shown_pairs`.
    shows: tuple[str, ...] = ()
    #: What its answer is, in those terms (a summary answers with a description, an event's
    #: verb recognition with verbs): an item whose query, in any life log, shows that of one
    #: of its videos is never in the benchmark beside it.
    answers: str | None = None
    #: Human performance (VidSitu: one annotator scored against the others):
    #: ``human(item) -> (item, reply) | None``, the item as the other annotators see it and
    #: one annotator's reply to it; None where the item has one annotator only.
    human: Callable[[dict], tuple[dict, str] | None] | None = None
    #: The metrics its paper's results table prints, in order (``eval.layout=paper``);
    #: empty: the headline alone.
    paper_metrics: tuple[str, ...] = ()

    @property
    def paper_layout(self) -> tuple[str, ...]:
        """The metrics of its row(s) in the paper's layout."""
        return self.paper_metrics or (self.primary,)

    def params(self, raw: Mapping[str, Any], where: str = "") -> Any:
        """The schema instance for a config mapping; unknown keys are an error naming them."""
        fields = {f.name for f in dataclasses.fields(self.schema)}
        given = {k: v for k, v in raw.items() if k != "_target_"
                 and not (k == "filters" and k not in fields)}
        unknown = sorted(set(given) - fields)
        if unknown:
            raise ConfigError(f"tasks.{where or self.name}: {unknown} are not parameters of "
                              f"recipe {self.name} (expected: {', '.join(sorted(fields))})")
        from omegaconf import OmegaConf
        from omegaconf.errors import OmegaConfBaseException

        try:  # typed like Hydra would: nested parts become their dataclasses, types checked
            return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(self.schema),
                                                       given))
        except OmegaConfBaseException as exc:
            raise ConfigError(f"tasks.{where or self.name}: {exc.msg}") from None


def _import(target: str, where: str) -> Recipe:
    module, _, attr = target.replace(":", ".").rpartition(".")
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot import {target!r} ({exc}); give "
                          "package.module.ATTRIBUTE of a Recipe") from None
    if not isinstance(value, Recipe):
        raise ConfigError(f"{where}: {target!r} is a {type(value).__name__}, not a Recipe")
    return value


@cache
def entry_points() -> dict[str, str]:
    """Recipes other packages declare in the entry-point group ``xlebench.recipes``."""
    return {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINTS)}


#: The families of built-in recipes, each a package of `xlebench.tasks` holding its recipes and
#: what only they use (`xlebench.tasks.recipe`, `language`, `choices` and `screening` hold
#: what several families share and declare no recipe).
FAMILIES = ("xlebench", "egoschema", "neptune", "vidsitu", "multihop")


@cache
def builtin_modules() -> dict[str, str]:
    """Recipe name -> the module of a family package that declares it (``RECIPE``)."""
    import pkgutil

    out: dict[str, str] = {}
    for family in FAMILIES:
        pkg = importlib.import_module(f"xlebench.tasks.{family}")
        for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
            module = importlib.import_module(f"{pkg.__name__}.{info.name}")
            recipe = getattr(module, "RECIPE", None)
            if isinstance(recipe, Recipe):
                if recipe.name in out:
                    raise ConfigError(f"recipe {recipe.name!r} is declared twice "
                                      f"({out[recipe.name]}, {module.__name__})")
                out[recipe.name] = module.__name__
    return dict(sorted(out.items()))


def builtin_names() -> tuple[str, ...]:
    """The built-in recipes' names."""
    return tuple(builtin_modules())


def load_recipe(name: str, target: str | None = None) -> Recipe:
    """The declaration of recipe ``name`` (see the module docstring for the search order)."""
    where = f"tasks.{name}._target_"
    if target:
        recipe = _import(target, where)
    elif name in entry_points():
        recipe = _import(entry_points()[name], f"entry point {name}")
    elif name in builtin_names():
        recipe = importlib.import_module(builtin_modules()[name]).RECIPE
    else:
        choices = sorted(set(builtin_names()) | set(entry_points()))
        raise ConfigError(f"tasks.{name}: no such recipe; choose from {choices}, or give "
                          f"tasks.{name}._target_=package.module.RECIPE for your own")
    if recipe.name != name:
        raise ConfigError(f"tasks.{name}: {target or name} declares recipe {recipe.name!r}; "
                          "the config key must be the recipe's name")
    check_name(f"tasks.{name}: recipe", recipe.name)  # it names annotations/<name>.jsonl
    return recipe


def recipes_from_config(tasks: Mapping[str, Mapping[str, Any]]
                        ) -> dict[str, tuple[Recipe, Any]]:
    """``{name: (declaration, params)}`` for a composed ``tasks`` config, in its order."""
    from xlebench.tasks.screening.filters import check_filters

    out = {}
    for name, raw in tasks.items():
        recipe = load_recipe(name, (raw or {}).get("_target_"))
        check_filters(name, [*((raw or {}).get("filters") or []),
                             *((raw or {}).get("model_filters") or [])])
        out[name] = (recipe, recipe.params(raw or {}, name))
    return out


def groups(recipes: Sequence[Recipe]) -> dict[str, list[str]]:
    """AVG rows of the results table: recipes that declare the same group."""
    out: dict[str, list[str]] = {}
    for r in recipes:
        if r.group:
            out.setdefault(f"{r.group} AVG", []).append(r.name)
    return out


def register_schemas() -> None:
    """Register each built-in and entry-point recipe's schema as ``schema/tasks/<name>``, so
    its config file is typed at compose time."""
    from hydra.core.config_store import ConfigStore

    cs = ConfigStore.instance()
    for name in (*builtin_names(), *entry_points()):
        cs.store(group="schema/tasks", name=name, node=load_recipe(name).schema)
