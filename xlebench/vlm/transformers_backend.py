"""An in-process transformers VLM from a local folder (no hub access).

``vlm.path`` holds a processor and weights (Qwen2-VL, LLaVA-OneVision, LLaVA... anything
``AutoModelForImageTextToText`` loads). Device and dtype are automatic — CUDA with bfloat16
when available, else CPU float32 — or set. Requests are generated ``vlm.batch_size`` at a
time, left-padded, greedy at temperature 0 and sampled otherwise; each answer is cached on
its own. The optional extra ``xlebench[vlm]`` names what it needs beyond the base install.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Any

from xlebench.config.schema import VLMConfig
from xlebench.errors import ConfigError
from xlebench.vlm.cached import CachedVLM
from xlebench.vlm.messages import Frame


class TransformersVLM(CachedVLM):
    def __init__(self, settings: VLMConfig, cache_dir: Path) -> None:
        super().__init__(settings, cache_dir)
        if not settings.path or not Path(settings.path).is_dir():
            raise ConfigError(f"vlm.path={settings.path}: expected a local model folder "
                              "(processor and weights); models are never downloaded")

    def fingerprint(self) -> dict[str, Any]:
        """The model folder's configuration by content: another checkpoint, another cache."""
        folder = Path(self.settings.path)
        digest = hashlib.sha256()
        for name in ("config.json", "generation_config.json", "processor_config.json"):
            if (folder / name).is_file():
                digest.update((folder / name).read_bytes())
        return {**super().fingerprint(), "config_sha256": digest.hexdigest()[:16],
                "batch_size": self.settings.batch_size, "dtype": self.settings.dtype}

    @cached_property
    def device(self) -> str:
        import torch

        if self.settings.device != "auto":
            return self.settings.device
        return "cuda" if torch.cuda.is_available() else "cpu"

    @cached_property
    def _loaded(self) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16,
                 "float32": torch.float32}.get(self.settings.dtype)
        if dtype is None:  # auto
            dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        processor = AutoProcessor.from_pretrained(self.settings.path)
        tokenizer = getattr(processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"  # decoder-only generation continues on the right
        model = AutoModelForImageTextToText.from_pretrained(self.settings.path, dtype=dtype)
        return processor, model.to(self.device).eval()

    def _generate(self, batch: list[list[dict]]) -> list[str]:
        import torch
        from PIL import Image

        processor, model = self._loaded
        prompts, images = [], []
        for messages in batch:
            conversation = [{"role": m["role"], "content": [
                {"type": "image"} if isinstance(p, Frame) else {"type": "text", "text": p}
                for p in m["content"]]} for m in messages]
            prompts.append(processor.apply_chat_template(conversation,
                                                         add_generation_prompt=True))
            images += [Image.open(p.path).convert("RGB") for m in messages
                       for p in m["content"] if isinstance(p, Frame)]
        inputs = processor(text=prompts, images=images or None, return_tensors="pt",
                           padding=True).to(self.device)
        sample = self.settings.temperature > 0
        # Sampling is seeded by the batch's prompts: the same requests, the same answers.
        torch.manual_seed(int(hashlib.sha256("".join(prompts).encode()).hexdigest()[:8], 16))
        with torch.inference_mode():
            out = model.generate(**inputs, max_new_tokens=self.settings.max_tokens,
                                 do_sample=sample,
                                 **({"temperature": self.settings.temperature} if sample
                                    else {}))
        new = out[:, inputs["input_ids"].shape[1]:]
        return [t.strip() for t in processor.batch_decode(new, skip_special_tokens=True)]
