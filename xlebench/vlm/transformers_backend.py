"""An in-process transformers VLM from a local folder (no hub access).

``vlm.path`` holds a processor and weights (Qwen2-VL, LLaVA-OneVision, LLaVA... anything
``AutoModelForImageTextToText`` loads). Device and dtype are automatic — CUDA with bfloat16
when available, else CPU float32 — or set; attention runs through flash-attn 2 on CUDA when it
is installed, else PyTorch's SDPA (``vlm.attn_implementation``). Requests are generated
``vlm.batch_size`` at a time, left-padded, greedy at temperature 0 and sampled otherwise; each
answer is cached on its own. Chunks are padding-aware: a call's uncached requests are sorted
by their frames, then by length (`xlebench.vlm.cached.request_shape`), so a chunk pads only to
requests like its own and a log's questions on the same frames meet in one chunk; with
``vlm.logs_per_batch`` several logs' calls meet in one call (`xlebench.vlm.lockstep`). The
optional extra ``xlebench[vlm]`` names what it needs beyond the base install.

**Encode once, ask many** (``vlm.prefix_cache``): the questions of one life
log share their whole prefix — system prompt, every frame, the clock blocks — and differ only
in the question after it. Requests of a batch that share a prefix holding all their images
run it once. Under greedy decoding the questions are then packed side by side into the
prefix's one cache row and decoded together (`xlebench.vlm.packed`); otherwise (sampling,
logits processors, flash-attn 2) the prefix's key/value cache is repeated for each question,
which then prefill only their own tokens and decode as one batch. Either way, under greedy
decoding answers are the tokens separate requests give (tested; the logits agree to 1e-5 on
the tiny models); sampling is seeded by the group's prompts. The frames are preprocessed and
encoded once per log instead of once per question: the other questions' inputs replay the
processor's image-token expansion, their shared text tokenized once and only each question's
tail on its own (checked against the processor's own tokens on the first request of every
group; any difference falls back to processing each request). Likelihood scoring likewise runs
the frames once per item. Decoding runs SDPA without cuDNN (`shape_free_attention`), and a
Qwen2-VL vision tower attends to a request's frames in one call (`frames_attention`): both
measured on a lent H100 (`benchmarks/gpu_limits.py`).
"""

from __future__ import annotations

import hashlib
import threading
from functools import cached_property
from pathlib import Path
from typing import Any

from xlebench.config.backends import VLMBackend
from xlebench.config.schema import TransformersVLMConfig
from xlebench.errors import ConfigError
from xlebench.vlm import frames_attention
from xlebench.vlm.cached import CachedVLM
from xlebench.vlm.compiled import compile_blocks
from xlebench.vlm.messages import Frame
from xlebench.vlm.packed import end_tokens, packable, packed_greedy
from xlebench.vlm.prefix import (
    after_prefix,
    common_prefix,
    last_logits_only,
    mean_logprob,
    prefix_holds_images,
    seed_generation,
    shape_free_attention,
)

#: This backend's declaration (read by `xlebench.config.backends` without importing it).
BACKEND = VLMBackend("transformers", "xlebench.vlm.transformers_backend:TransformersVLM",
                     in_process=True, local_folder=True)


class TransformersVLM(CachedVLM):
    def __init__(self, settings: TransformersVLMConfig, cache_dir: Path,
                 loaded: tuple[Any, Any] | None = None) -> None:
        """`loaded`: a (processor, model) already in memory (a benchmark's random model of
        a real size, a notebook's own), used as it is instead of ``vlm.path`` (a Qwen2-VL
        vision tower on SDPA is switched to `frames_attention`, the same function)."""
        super().__init__(settings, cache_dir)
        # One forward at a time: the model keeps per-call state between its forward passes
        # (Qwen2-VL's rope offsets), and threads answering logs together share it.
        self._model_lock = threading.RLock()
        self._in_memory = loaded is not None
        if loaded is not None:
            self.__dict__["_loaded"] = (loaded[0], loaded[1].eval())
            frames_attention.enable(loaded[1])
            self._compile(loaded[1])
            self.__dict__["device"] = str(next(loaded[1].parameters()).device)
        elif not settings.path or not Path(settings.path).is_dir():
            raise ConfigError(f"vlm.path={settings.path}: expected a local model folder "
                              "(processor and weights); models are never downloaded")

    def fingerprint(self) -> dict[str, Any]:
        """The model folder's configuration by content: another checkpoint, another cache
        (an in-memory model: its configuration)."""
        digest = hashlib.sha256()
        if self._in_memory:
            digest.update(self._loaded[1].config.to_json_string().encode())
        else:
            folder = Path(self.settings.path)
            for name in ("config.json", "generation_config.json", "processor_config.json"):
                if (folder / name).is_file():
                    digest.update((folder / name).read_bytes())
        s = self.settings
        # batching can move bf16 numerics: its settings are part of the key (those left at
        # their defaults stay out, so keys made before they existed still match)
        moved = {k: getattr(s, k) for k, default in (("logs_per_batch", 1),
                                                     ("attn_implementation", "auto"),
                                                     ("compile", "off"))
                 if getattr(s, k) != default}
        return {**super().fingerprint(), "config_sha256": digest.hexdigest()[:16],
                "batch_size": s.batch_size, "dtype": s.dtype, **moved}

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
        model = AutoModelForImageTextToText.from_pretrained(
            self.settings.path, dtype=dtype, attn_implementation=self.attention)
        frames_attention.enable(model)
        model = model.to(self.device).eval()
        self._compile(model)
        return processor, model

    def _compile(self, model: Any) -> None:
        """``vlm.compile=blocks``: the cache-free blocks compiled (`compiled.compile_blocks`)."""
        if self.settings.compile == "blocks":
            compile_blocks(model)

    @cached_property
    def attention(self) -> str:
        """``vlm.attn_implementation``; auto: flash attention 2 on CUDA when installed (it
        needs half precision), else SDPA."""
        import importlib.util

        choice = self.settings.attn_implementation
        if choice != "auto":
            return choice
        flash = self.device.startswith("cuda") and self.settings.dtype != "float32" \
            and importlib.util.find_spec("flash_attn") is not None
        return "flash_attention_2" if flash else "sdpa"

    def _prompt(self, messages: list[dict]) -> tuple[str, list[str]]:
        """The chat-templated prompt and its frames' paths, in order."""
        processor, _ = self._loaded
        conversation = [{"role": m["role"], "content": [
            {"type": "image"} if isinstance(p, Frame) else {"type": "text", "text": p}
            for p in m["content"]]} for m in messages]
        return (processor.apply_chat_template(conversation, add_generation_prompt=True),
                [str(p.path) for m in messages for p in m["content"] if isinstance(p, Frame)])

    def _generate(self, batch: list[list[dict]]) -> list[str]:
        with self._model_lock:
            return self._generate_locked(batch)

    def _generate_locked(self, batch: list[list[dict]]) -> list[str]:
        prompts = [self._prompt(m) for m in batch]
        out: list[str | None] = [None] * len(batch)
        if self.settings.prefix_cache:
            groups: dict[tuple[str, ...], list[int]] = {}
            for k, (_, frames) in enumerate(prompts):
                groups.setdefault(tuple(frames), []).append(k)
            marker = getattr(self._loaded[0], "image_token", None)
            for members in groups.values():
                if len(members) > 1 and prefix_holds_images(
                        [prompts[k][0] for k in members], marker):
                    answers = self._shared_prefix([prompts[k] for k in members])
                    for k, text in zip(members, answers or [], strict=False):
                        out[k] = text
        rest = [k for k, text in enumerate(out) if text is None]
        if rest:
            for k, text in zip(rest, self._padded([prompts[k] for k in rest]), strict=True):
                out[k] = text
        return [t for t in out if t is not None]

    def _images(self, frames: list[str]) -> list:
        from PIL import Image

        return [Image.open(f).convert("RGB") for f in frames]

    def _shared_prefix(self, prompts: list[tuple[str, list[str]]]) -> list[str] | None:
        """Answers of requests with the same frames, their common prefix (holding every image
        token) run once, then every question in one batch; None when the prefix does not hold
        the images."""
        import torch

        processor, model = self._loaded
        images = self._images(prompts[0][1])
        first = processor(text=[prompts[0][0]], images=images or None, return_tensors="pt",
                          padding=True).to(self.device)
        replayed = self._replay(first, prompts[0][0], [text for text, _ in prompts[1:]])
        inputs = [first, *replayed] if replayed is not None else None
        if inputs is None:  # the expansion could not be replayed: each request processed
            inputs = [processor(text=[p], images=images or None, return_tensors="pt",
                                padding=True).to(self.device) for p, _ in prompts]
        ids = [x["input_ids"][0] for x in inputs]
        common = common_prefix(ids)
        if any(len(x) == common for x in ids):  # a question must follow the prefix
            return None
        with torch.inference_mode():
            out = self._prefix_pass(inputs[0], common)
            if out is None:
                return None
            prefix = out.past_key_values
            self.report("shared prefixes", 1)
            if packable(model, self.settings.temperature):
                with shape_free_attention(self.device):
                    tokens = packed_greedy(model, prefix, [x[common:] for x in ids],
                                           self.settings.max_tokens, end_tokens(model))
                return [t.strip() for t in processor.batch_decode(
                    tokens, skip_special_tokens=True)]
            rows, mask = after_prefix(ids, common, processor.tokenizer.pad_token_id or 0)
            prefix.batch_repeat_interleave(len(ids))  # one copy per question, in place
            sample = self.settings.temperature > 0
            seed_generation([t for t, _ in prompts])
            with shape_free_attention(self.device):
                out = model.generate(input_ids=rows, attention_mask=mask,
                                     past_key_values=prefix, do_sample=sample,
                                     max_new_tokens=self.settings.max_tokens,
                                     **({"temperature": self.settings.temperature} if sample
                                        else {}))
        return [t.strip() for t in processor.batch_decode(out[:, rows.shape[1]:],
                                                          skip_special_tokens=True)]

    def _prefix_pass(self, inputs: Any, length: int) -> Any | None:
        """The model run over the first ``length`` tokens of one processed request, its
        cache kept, only the last position's logits; None when an image token (or the
        model's lack of one) falls outside them. Images go as they are, per-token inputs
        (Qwen2-VL's mm_token_type_ids) cut to the prefix. Called under inference mode."""
        import torch

        model = self._loaded[1]
        image_token = getattr(model.config, "image_token_id", None) or getattr(
            model.config, "image_token_index", None)
        if length < 1 or image_token is None:
            return None
        where = (inputs["input_ids"][0] == image_token).nonzero()
        if len(where) and int(where[-1]) >= length:
            return None
        extra = {k: v[:, :length] if k.endswith("_ids") else v for k, v in inputs.items()
                 if k not in ("input_ids", "attention_mask")}
        return model(input_ids=inputs["input_ids"][:, :length],
                     attention_mask=torch.ones(1, length, dtype=torch.long,
                                               device=self.device),
                     use_cache=True, **extra, **last_logits_only(model))

    def _replay(self, first: Any, first_text: str, texts: list[str]) -> list[dict] | None:
        """The inputs of other requests on the same frames without preprocessing the frames
        again: the processor expands each image placeholder into a fixed number of image
        tokens, so that expansion, read off the first request, is replayed. The text they
        share up to their last image is tokenized once and only each request's own tail after
        it on its own (an image token is a special token: tokenization never runs across it).
        Checked on every call: the first request replayed must give the processor's tokens
        exactly (None otherwise, and the caller processes each request)."""
        import os

        import torch

        processor = self._loaded[0]
        marker = getattr(processor, "image_token", None)
        image_id = getattr(processor, "image_token_id", None)
        n = first_text.count(marker) if marker else 0
        if not n or image_id is None:
            return None
        count = int((first["input_ids"][0] == image_id).sum())
        cut = os.path.commonprefix([first_text, *texts]).rfind(marker) + len(marker)
        if count % n or cut < len(marker):
            return None
        tok = processor.tokenizer
        head = tok(first_text[:cut].replace(marker, marker * (count // n)),
                   add_special_tokens=False)["input_ids"]
        tails = tok([t[cut:] for t in (first_text, *texts)], add_special_tokens=False)[
            "input_ids"]
        before, after = _special_wrap(tok)
        rows = [before + head + tail + after for tail in tails]
        if rows[0] != first["input_ids"][0].tolist():
            return None
        ids = [torch.tensor([r], device=self.device) for r in rows[1:]]
        return [{"input_ids": x, "attention_mask": torch.ones_like(x)} for x in ids]

    def option_logprobs(self, messages: list[dict], options: list[str]) -> list[float]:
        """Per option, the mean log-probability of its tokens as the model's reply to
        ``messages`` (frames and question): EgoSchema's per-option scoring for a model that
        cannot be trusted to name an option. The mean, not the sum, so a long option is not
        penalised for its length."""
        with self._model_lock:
            return self._option_logprobs(messages, options)

    def grounding_similarity(self, messages: list[dict], reply: str,
                             spans: list[tuple[int, int]]) -> list[list[float]]:
        """Each query's cosine with each frame (`xlebench.vlm.grounding`), cached."""
        from xlebench.vlm.grounding import cached_similarity
        return cached_similarity(self, messages, reply, spans)

    def _option_logprobs(self, messages: list[dict], options: list[str]) -> list[float]:
        """The prompt (frames and question) runs once; its key/value cache, repeated per
        option, scores every option in one batch (right-padded: a causal model's logits at a
        token never see the padding after it). An option's tokens are those after the
        prompt's (its tokens that tokenising prompt + option leaves unchanged). Falls back to
        a full pass per option (`_option_logprobs_each`) when the images' expansion cannot
        be replayed."""
        import torch

        processor, model = self._loaded
        prompt, frames = self._prompt(messages)
        images = self._images(frames) or None
        head = processor(text=[prompt], images=images, return_tensors="pt",
                         padding=True).to(self.device)
        rows = self._replay(head, prompt, [prompt + o for o in options]) if images else [
            {"input_ids": processor.tokenizer(prompt + o, return_tensors="pt")[
                "input_ids"].to(self.device)} for o in options]
        if rows is None:
            return self._option_logprobs_each(prompt, images, options)
        ids = [r["input_ids"][0] for r in rows]
        starts = [common_prefix([head["input_ids"][0], x]) for x in ids]
        shared = min(starts)
        tails = [x[shared:] for x in ids]
        width = max(1, max(len(t) for t in tails))  # empty options: scored -inf, not an error
        pad = processor.tokenizer.pad_token_id or 0
        # right padding needs no mask: causal attention keeps it out of every real token
        batch = torch.stack([torch.cat([t, t.new_full((width - len(t),), pad)]) for t in tails])
        with torch.inference_mode():
            out = self._prefix_pass(head, shared)
            if out is None:
                return self._option_logprobs_each(prompt, images, options)
            last, cache = out.logits[0, -1:], out.past_key_values
            cache.batch_repeat_interleave(len(tails))
            with shape_free_attention(self.device):
                logits = model(input_ids=batch, past_key_values=cache).logits
        # logits predicting ids[k][shared:], then kept from the option's own first token on
        scores = [mean_logprob(torch.cat([last, logits[k, :len(t) - 1]])[start - shared:],
                                ids[k][start:])
                  for k, (t, start) in enumerate(zip(tails, starts, strict=True))]
        self.report("option scores", len(options))
        return scores

    def _option_logprobs_each(self, prompt: str, images: list | None,
                              options: list[str]) -> list[float]:
        """One full pass per option, frames included: the reference way."""
        import torch

        processor, model = self._loaded
        head = processor(text=[prompt], images=images, return_tensors="pt",
                         truncation=False)["input_ids"][0].to(self.device)
        scores = []
        with torch.inference_mode():
            for option in options:
                x = processor(text=[prompt + option], images=images, return_tensors="pt",
                              truncation=False).to(self.device)
                start = common_prefix([head, x["input_ids"][0]])
                scores.append(mean_logprob(model(**x).logits[0, start - 1:-1],
                                            x["input_ids"][0, start:]))
        self.report("option scores", len(options))
        return scores

    def _padded(self, prompts: list[tuple[str, list[str]]]) -> list[str]:
        """One left-padded batch through ``generate``."""
        import torch

        processor, model = self._loaded
        texts = [p for p, _ in prompts]
        images = [img for _, frames in prompts for img in self._images(frames)]
        inputs = processor(text=texts, images=images or None, return_tensors="pt",
                           padding=True).to(self.device)
        sample = self.settings.temperature > 0
        seed_generation(texts)
        with torch.inference_mode(), shape_free_attention(self.device):
            out = model.generate(**inputs, max_new_tokens=self.settings.max_tokens,
                                 do_sample=sample,
                                 **({"temperature": self.settings.temperature} if sample
                                    else {}))
        new = out[:, inputs["input_ids"].shape[1]:]
        return [t.strip() for t in processor.batch_decode(new, skip_special_tokens=True)]


def _special_wrap(tok: Any) -> tuple[list[int], list[int]]:
    """The special tokens a tokenizer puts before and after a text's own tokens (BERT's
    [CLS] ... [SEP]; none for Qwen's), read off a probe."""
    plain = tok("a", add_special_tokens=False)["input_ids"]
    full = tok("a")["input_ids"]
    at = next((k for k in range(len(full) - len(plain) + 1)
               if full[k:k + len(plain)] == plain), 0)
    return full[:at], full[at + len(plain):]
