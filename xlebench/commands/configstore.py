"""Hydra's ConfigStore, filled: the primary schema, every group's schema and every recipe's
parameter schema. It stands above both the configuration (``xlebench.config``, which imports
nothing of the package) and the recipes (``xlebench.tasks``, which declare their own schemas),
so that neither imports the other; the CLI and the tests call `register` before composing."""

from __future__ import annotations

from hydra.core.config_store import ConfigStore

from xlebench.config.schema import SCHEMAS, XLeBenchConfig
from xlebench.tasks.recipe.registry import register_schemas


def register() -> None:
    """Register the primary schema, every group schema and every recipe's schema
    (idempotent)."""
    cs = ConfigStore.instance()
    cs.store(name="xlebench_schema", node=XLeBenchConfig)
    for group, options in SCHEMAS.items():
        for name, node in options.items():
            cs.store(group=f"schema/{group}", name=name, node=node)
    register_schemas()
