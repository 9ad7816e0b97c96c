"""The CLI's composition without its process: Hydra's compose API over the packaged config,
for `xlebench.api` (a notebook, a script, a test).

The same steps as ``xlebench ...`` on the command line: group options checked, a published
benchmark's composition added for ``benchmark=``, the config composed with Hydra's own
runtime record (the manifest reads the chosen options from it), the published configuration
laid over it. A composition error is the CLI's one line, as a `ConfigError`. Hydra's global
state is set for the call and cleared after it, so calls in one process do not meet.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from hydra.errors import ConfigCompositionException, MissingConfigException, OverrideParseException
from omegaconf import DictConfig, open_dict

from xlebench.commands.adopt import adopt_args, adopt_config, adoption
from xlebench.commands.configstore import register
from xlebench.commands.hydra_errors import check_group_options, one_line
from xlebench.commands.values import check_values, set_values
from xlebench.errors import ConfigError

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"


def offline_defaults() -> None:
    """The environment every xlebench run starts from (a user's own setting wins): no hub
    downloads, no tokenizer threads fighting the workers, and no "Loading weights" bar for
    every model transformers loads (noise in a compile's output, garbage in a log file)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


@contextmanager
def composed(overrides: Sequence[str], values: Mapping[str, Any] | None = None
             ) -> Iterator[DictConfig]:
    """The task config the CLI would run for ``overrides`` (Hydra's runtime set meanwhile),
    with ``values`` (dotted setting -> value, `xlebench.commands.values`) set as data after
    the groups are composed: a Python caller's string is never parsed as override text."""
    offline_defaults()
    register()
    args = list(overrides)
    if any(a.startswith("-") for a in args):
        raise ConfigError(f"{[a for a in args if a.startswith('-')]}: give overrides only "
                          "(a sweep, --cfg and other flags are the command line's)")
    check_group_options(args, CONF_DIR)
    values = check_values(values, CONF_DIR)
    args, values = _adopted(args, values)
    hydra_config = HydraConfig.instance()
    with initialize_config_dir(str(CONF_DIR), version_base="1.3", job_name="xlebench"):
        try:
            cfg = compose("config", overrides=args, return_hydra_config=True)
        except (ConfigCompositionException, MissingConfigException,
                OverrideParseException) as ex:
            raise ConfigError(one_line(ex, CONF_DIR, args) or str(ex).splitlines()[0]) from None
        hydra_config.set_config(cfg)
        try:
            with open_dict(cfg):
                del cfg["hydra"]
            set_values(cfg, values)
            adopt_config(cfg)
            yield cfg
        finally:
            hydra_config.cfg = None


def _adopted(args: list[str], values: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """``benchmark=`` (an override or a value) with the published benchmark's groups added
    as overrides and its folder's name and place as values."""
    ref = values.get("benchmark")
    if ref is None:
        return adopt_args(args, CONF_DIR), values
    groups, adopted = adoption(str(ref), args, CONF_DIR,
                               {k: v for k, v in values.items() if k != "benchmark"})
    return [*args, *groups], {**values, **adopted}
