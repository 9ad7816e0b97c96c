"""Stage fingerprints: what an output depends on, hashed.

A stage's fingerprint covers its resolved configuration (minus keys that cannot change its
outputs), its own version, the content of the prompt files it renders, the root seed when the
stage uses it, and the fingerprints of the stages it reads. Change any of these and the stage,
and everything downstream of it, lands in a fresh cache folder; change nothing and it is reused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: Keys that never change what a stage computes: parallelism, timeouts, display, secrets, and
#: transport (where a server listens; thread counts of FAISS and of network labelling).
VOLATILE_KEYS = frozenset(
    {
        "api_base",
        "faiss_threads",
        "label_workers",
        "workers",
        "cores",
        "max_concurrency",
        "timeout_s",
        "request_timeout_s",
        "fail_fast",
        "progress",
        "retries",
        "max_retries_on_rate_limit",
        "backoff_s",
        "api_key_env",
        "log_level",
    }
)
_SECRET = re.compile(r"(api[_-]?key|secret|token|password|passwd|credential)", re.IGNORECASE)


def is_secret_key(key: str) -> bool:
    """True for key names that may hold credentials (they are dropped from every output)."""
    return bool(_SECRET.search(key)) and key != "api_key_env"


def strip_keys(obj: Any, drop_volatile: bool = True) -> Any:
    """Copy of a plain config tree without secret keys (and, optionally, volatile ones)."""
    if isinstance(obj, Mapping):
        out = {}
        for key, value in obj.items():
            if is_secret_key(str(key)) or (drop_volatile and key in VOLATILE_KEYS):
                continue
            out[str(key)] = strip_keys(value, drop_volatile)
        return out
    if isinstance(obj, list | tuple):
        return [strip_keys(v, drop_volatile) for v in obj]
    return obj


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def stage_fingerprint(
    *,
    name: str,
    version: str,
    config: Mapping[str, Any],
    prompt_files: Iterable[Path] = (),
    upstream: Mapping[str, str] | None = None,
    seed: int | None = None,
) -> tuple[str, dict]:
    """Return (short fingerprint, the exact inputs hashed) for one stage.

    The inputs are returned too so they can be written beside the cache folder and a user can
    see why two runs did or did not share a cache entry.
    """
    inputs = {
        "stage": name,
        "version": version,
        "config": strip_keys(dict(config)),
        "prompts": {Path(p).name: file_digest(p) for p in sorted(prompt_files, key=str)},
        "upstream": dict(sorted((upstream or {}).items())),
        "seed": seed,
    }
    blob = json.dumps(inputs, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16], inputs
