"""The VLM backends, each declared once: its name, where its class lives (imported only when
chosen: transformers is an optional extra) and what it is — what every other part of the
code reads instead of comparing backend names.

A backend that answers over the network is probed for its key before any frame is decoded
and answered in threads; one that runs in this process holds one model, so its units run one
after another and may batch several life logs' calls in waves (``vlm.logs_per_batch``); one
loaded from a local folder names the folder in its results' identity.

A built-in backend declares itself in its own module, ``BACKEND = VLMBackend(...)`` in
``xlebench/vlm/<module>.py``; the declarations are read here from the modules' source, not
imported, so composing a config never loads a backend's dependencies (transformers is an
optional extra) and the config floor imports nothing above it. Adding a backend is its module,
its conf file (``conf/vlm/<name>.yaml``) and a test; a plug-in calls `register_vlm_backend`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xlebench.config.declared import check_name, read_declarations
from xlebench.errors import ConfigError


@dataclass(frozen=True)
class VLMBackend:
    name: str
    #: ``module:Class``, constructed as ``Class(settings, cache_dir)``.
    factory: str
    remote: bool = False
    in_process: bool = False
    local_folder: bool = False


#: Where the built-in backends' modules are.
_MODULES = Path(__file__).resolve().parents[1] / "vlm"


def declared_backends(folder: Path = _MODULES) -> dict[str, VLMBackend]:
    """The declarations ``BACKEND = VLMBackend(<literals>)`` of the modules in ``folder``, by
    name, read from their source (module name order)."""
    return {b.name: b for _, b in read_declarations(folder, "BACKEND", VLMBackend)}


#: Every backend by name: the built-in ones, then those registered (a live mapping: the
#: schema's ``vlm.backend`` choices read it).
VLM_BACKENDS: dict[str, VLMBackend] = declared_backends()


def register_vlm_backend(backend: VLMBackend) -> None:
    """Declare a backend from outside the package (a plug-in, a test): ``vlm.backend`` accepts
    its name from then on."""
    check_name("vlm.backend", backend.name)
    if backend.name in VLM_BACKENDS:
        raise ConfigError(f"vlm.backend={backend.name!r} is declared already")
    VLM_BACKENDS[backend.name] = backend


def vlm_backend(name: str) -> VLMBackend:
    """The declaration of backend ``name``; an unknown one is a one-line error."""
    if name not in VLM_BACKENDS:
        raise ConfigError(f"vlm.backend={name!r}: choose {', '.join(VLM_BACKENDS)}")
    return VLM_BACKENDS[name]
