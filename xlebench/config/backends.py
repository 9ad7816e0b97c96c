"""The VLM backends, each declared once: its name, where its class lives (imported only when
chosen: transformers is an optional extra) and what it is — what every other part of the
code reads instead of comparing backend names.

A backend that answers over the network is probed for its key before any frame is decoded
and answered in threads; one that runs in this process holds one model, so its units run one
after another and may batch several life logs' calls in waves (``vlm.logs_per_batch``); one
loaded from a local folder names the folder in its results' identity. Adding a backend is its
module, a line here, its conf file (``conf/vlm/<name>.yaml``) and a test.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.errors import ConfigError


@dataclass(frozen=True)
class VLMBackend:
    name: str
    #: ``module:Class``, constructed as ``Class(settings, cache_dir)``.
    factory: str
    remote: bool = False
    in_process: bool = False
    local_folder: bool = False


VLM_BACKENDS: dict[str, VLMBackend] = {b.name: b for b in (
    VLMBackend("scripted", "xlebench.vlm.scripted:ScriptedVLM"),
    VLMBackend("litellm", "xlebench.vlm.litellm_backend:LitellmVLM", remote=True),
    VLMBackend("transformers", "xlebench.vlm.transformers_backend:TransformersVLM",
               in_process=True, local_folder=True),
)}


def register_vlm_backend(backend: VLMBackend) -> None:
    """Declare a backend from outside the package (a plug-in, a test): ``vlm.backend`` accepts
    its name from then on."""
    if backend.name in VLM_BACKENDS:
        raise ConfigError(f"vlm.backend={backend.name!r} is declared already")
    VLM_BACKENDS[backend.name] = backend


def vlm_backend(name: str) -> VLMBackend:
    """The declaration of backend ``name``; an unknown one is a one-line error."""
    if name not in VLM_BACKENDS:
        raise ConfigError(f"vlm.backend={name!r}: choose {', '.join(VLM_BACKENDS)}")
    return VLM_BACKENDS[name]
