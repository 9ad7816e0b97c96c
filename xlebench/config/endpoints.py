"""Model endpoints' schemas: what every model client shares (`EndpointConfig`), the text
models (``llm`` compiles; ``answerer`` and ``judge`` evaluate) and the vision-language model
(``vlm``), each group's keys checked at compose time (`xlebench.config.schema`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xlebench.config.backends import VLM_BACKENDS
from xlebench.config.knobs import knob


@dataclass
class EndpointConfig:
    """What every model client shares, declared once: the model, where it is served, the key's
    environment variable (read at call time, never stored), sampling, retries, rate limits,
    concurrency and timeout. ``api_base``, concurrency, timeouts and the key variable are
    transport: never part of a benchmark's or an evaluation's identity."""

    model: str = "offline"
    api_base: str | None = None
    api_key_env: str | None = None
    temperature: float = knob(0.7, ge=0, le=2)
    max_tokens: int = knob(2048, ge=1, le=1_000_000)
    max_retries: int = knob(3, ge=0, le=20)
    max_retries_on_rate_limit: int = knob(5, ge=0, le=50)
    backoff_s: float = knob(1.0, ge=0, le=600)
    max_concurrency: int = knob(8, ge=1, le=1024)
    timeout_s: float = knob(60.0, gt=0, le=3600)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class LLMConfig(EndpointConfig):
    """A text model (groups ``llm``, ``answerer``, ``judge``): through litellm, replayed from
    the response cache, or none (``offline``: deterministic stand-ins)."""

    backend: str = knob("offline", choices=("offline", "litellm", "replay"))


@dataclass
class VLMConfig(EndpointConfig):
    """A vision-language model: an OpenAI-compatible API through litellm (vLLM or SGLang
    serving Qwen2-VL / LLaVA-OneVision, GPT-4o, Gemini), an in-process transformers model from
    a local folder, or the offline scripted stand-in (default: no model needed)."""

    backend: str = knob("scripted", choices=VLM_BACKENDS)
    model: str = "scripted"
    temperature: float = knob(0.1, ge=0, le=2)
    max_tokens: int = knob(512, ge=1, le=100_000)
    timeout_s: float = knob(120.0, gt=0, le=3600)
    #: Images one request may carry (the backend's limit); more are handled by frames_strategy.
    max_images: int = knob(64, ge=1, le=10_000)
    #: subsample: one request with max_images frames spread evenly over all of them;
    #: notes: consecutive chunks of max_images, each summarised into time-stamped notes that a
    #: last text-only request answers from.
    frames_strategy: str = knob("subsample", choices=("subsample", "notes"))
    #: in-process backends: requests generated together (padded batch).
    batch_size: int = knob(8, ge=1, le=1024)
    #: in-process backends: life logs answered together, their calls batched round by round
    #: (`xlebench.vlm.lockstep`: the same logs, the same batches, whatever the timing).
    logs_per_batch: int = knob(1, ge=1, le=256)


@dataclass
class TransformersVLMConfig(VLMConfig):
    """An in-process transformers model from a local folder (``vlm=transformers``): what only
    it reads — the folder, the prefix cache, device, dtype and attention kernels."""

    #: A local model folder (processor + weights); no hub access.
    path: str | None = None
    #: Requests sharing their frames run the shared prefix once and reuse its key/value cache
    #: (greedy: the same answers; frames encoded once per life log).
    prefix_cache: bool = True
    device: str = "auto"  # auto = cuda when available, else cpu
    dtype: str = knob("auto", choices=("auto", "bfloat16", "float16", "float32"))
    #: Attention kernels; auto = flash_attention_2 on CUDA when the
    #: flash-attn package is installed, else PyTorch's SDPA.
    attn_implementation: str = knob("auto", choices=("auto", "sdpa", "flash_attention_2",
                                                     "eager"))
    #: ``blocks``: torch.compile the vision tower's blocks and each decoder layer's MLP and
    #: norms (dynamic shapes; the cache-writing attention stays eager): faster prefill on a
    #: GPU after a first call that compiles (`xlebench.vlm.compiled`); ``off``: eager.
    compile: str = knob("off", choices=("off", "blocks"))
