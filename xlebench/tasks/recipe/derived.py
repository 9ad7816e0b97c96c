"""What a derived recipe (``Recipe.derived``) reads of the recipes it is built from: their
items on this life log exactly as the annotate stage compiles them (same parameters, generator
and filters), and their parameters; rebuilt from the source's defaults where no annotate stage
provides them (a recipe run on its own, as in unit tests)."""

from __future__ import annotations

from typing import Any

from xlebench.runner.rng import unit_random
from xlebench.tasks.recipe.context import Context
from xlebench.tasks.recipe.registry import load_recipe


def source_params(ctx: Context, name: str) -> Any:
    """Recipe ``name``'s configured parameters (its defaults when it is not configured)."""
    if ctx.source_params is not None:
        return ctx.source_params(name)
    return load_recipe(name).params({})


def source_items(ctx: Context, names: list[str]) -> list[dict]:
    """The items of recipes ``names`` on this life log, in that order."""
    if ctx.source_items is not None:
        return [it for name in names for it in ctx.source_items(name, ctx.log["lifelog_id"])]
    items = []
    for name in names:
        recipe = load_recipe(name)
        sctx = Context(name, recipe.task, ctx.log, ctx.videos, ctx.ann,
                       unit_random(0, "annotate", f"{ctx.log['lifelog_id']}.{name}"),
                       ctx.aggregate, ctx.llm, ctx.encode)
        items += recipe.build(sctx, source_params(ctx, name)).items
    return items
