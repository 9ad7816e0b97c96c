"""One check per answering model before any work: its key is set and its server answers.

Without it an evaluation with ``vlm=litellm`` and no key decodes frames for minutes (and
fills gigabytes of frame cache) before the first request fails. The probe costs no model
call: the key is an environment lookup, the endpoint one ``GET <api_base>/models`` (any HTTP
answer, even 404, means a server listens; only a refused or silent connection fails).
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from typing import Any

from xlebench.errors import ConfigError
from xlebench.llm.client import missing_key


def probe(section: str, settings: Any, timeout_s: float = 5.0) -> None:
    """Raise a one-line `ConfigError` naming ``<section>.api_key_env`` or ``.api_base``."""
    base, env = getattr(settings, "api_base", None), getattr(settings, "api_key_env", None)
    if env and not os.environ.get(env) and not base:
        raise ConfigError(missing_key(section, settings.model, env))
    if not base:
        return
    url = base.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):  # noqa: S310 - the user's server
            return
    except urllib.error.HTTPError:
        return  # a server answered
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(f"{section}.api_base={base}: no server answers ({reason}); start "
                          f"it, or correct {section}.api_base") from None
