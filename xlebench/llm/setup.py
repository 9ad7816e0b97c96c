"""Building LLM clients from the config, and the usage bookkeeping stages share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from xlebench.errors import ConfigError
from xlebench.llm.client import LLMClient, Usage, settings_from
from xlebench.llm.prompts import prompt_path
from xlebench.runner.atomic import write_json
from xlebench.runner.stage import StageResult

USAGE_FILE = "llm_usage.json"
#: LLM settings that change answers (the rest: concurrency, timeouts, backend, api_base, key
#: variable, only change how they are fetched, so llm=replay reuses llm=litellm's stages).
ANSWER_KEYS = ("model", "temperature", "max_tokens", "max_retries", "extra")


def llm_client(cfg: DictConfig, who: str, section: str = "llm") -> LLMClient:
    """The client of config group ``section`` (``llm`` compiles, ``answerer`` answers,
    ``judge`` judges); a clear error when `who` needs one and it is offline."""
    llm = OmegaConf.to_container(cfg[section], resolve=True)
    if llm["backend"] == "offline":
        raise ConfigError(f"{who} needs a language model: add {section}=litellm "
                          f"{section}.model=<model> (any litellm model, or an OpenAI-compatible "
                          f"{section}.api_base), or {section}=replay to answer from the "
                          "response cache")
    return LLMClient(settings_from(llm), Path(cfg.paths.cache) / "llm", section=section)


def llm_fingerprint(cfg: DictConfig, prompts: list[str], section: str = "llm"
                    ) -> dict[str, Any]:
    llm = OmegaConf.to_container(cfg[section], resolve=True)
    return {"llm": {k: llm.get(k) for k in ANSWER_KEYS}, "prompts": sorted(prompts)}


def prompt_files(prompts: list[str]) -> list[Path]:
    return [prompt_path(p) for p in prompts]


def save_usage(workdir: Path, usage: Usage) -> None:
    write_json(Path(workdir) / USAGE_FILE, usage.to_dict())


def stage_usage(result: StageResult) -> dict[str, Any]:
    """Token use and cost summed over a stage's units (what producing them cost, once)."""
    records = []
    for uid in result.records:
        path = result.unit_dir(uid) / USAGE_FILE
        if path.is_file():
            records.append(json.loads(path.read_text(encoding="utf-8")))
    return Usage.total(records)


def export_usage(model: str | None, result: StageResult, dest: Path,
                 counts: dict[str, Any]) -> dict[str, Any]:
    """Add a stage's LLM token use and cost to its manifest counts and to stats/."""
    if model is None:
        return counts
    usage = {"model": model, **stage_usage(result)}
    write_json(Path(dest) / "stats" / f"llm_usage_{result.name}.json", usage)
    return {**counts, "llm_usage": usage}
