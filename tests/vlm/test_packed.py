"""The GPU path's pieces on tiny models: questions decoded packed in the prefix's one row
(stopping per question), when the backend may pack, the vision tower's frames attended in one
call, and SDPA without its plan-building cuDNN backend."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from PIL import Image

from tests.vlm.test_vlm import LOG, _frames
from xlebench.config.schema import TransformersVLMConfig
from xlebench.systems.baselines.end_to_end import PROMPT, _with_frames, blocks
from xlebench.testing.tiny_vlm import random_qwen2_vl
from xlebench.vlm import frames_attention
from xlebench.vlm.packed import packable, packed_greedy
from xlebench.vlm.prefix import shape_free_attention
from xlebench.vlm.transformers_backend import TransformersVLM

QUESTIONS = ["Why?", "Where was the red cup after lunch?", "Count the dogs in the garden.",
             "What did I do at step 7 of the morning routine in the kitchen?"]


def _prompts(vlm: TransformersVLM, frames) -> list[tuple[str, list[str]]]:
    return [vlm._prompt(_with_frames(PROMPT, blocks(frames, LOG), question=q,
                                     answer_format="One sentence.")) for q in QUESTIONS]


def _alone(vlm: TransformersVLM, prompts, max_new: int) -> list[list[int]]:
    """Each question's greedy tokens as a separate request through ``generate``."""
    processor, model = vlm._loaded
    images = vlm._images(prompts[0][1])
    out = []
    for text, _ in prompts:
        x = processor(text=[text], images=images, return_tensors="pt")
        with torch.inference_mode():
            ids = model.generate(**x, max_new_tokens=max_new, do_sample=False)
        out.append(ids[0, x["input_ids"].shape[1]:].tolist())
    return out


def test_a_question_that_ends_early_leaves_the_others_decoding(tmp_path: Path) -> None:
    """An end token stops only its own question: the others keep the tokens a separate
    request gives, and the stopped one ends with the end token as ``generate``'s does."""
    loaded = random_qwen2_vl("tiny", seed=6)  # its questions' greedy tokens part at step 4
    vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q",
                                                max_tokens=6, temperature=0.0),
                          tmp_path / "c", loaded=loaded)
    prompts = _prompts(vlm, _frames(tmp_path, 4))
    model = loaded[1]
    free = _alone(vlm, prompts, 6)
    # an end token only one question reaches, midway: it stops there, the others go on
    j, stop = next((j, tok) for j, t in enumerate(free) for p, tok in enumerate(t[1:-1], 1)
                   if tok not in t[:p] and all(tok not in o for k, o in enumerate(free)
                                               if k != j))
    model.generation_config.eos_token_id = stop
    expected = _alone(vlm, prompts, 6)
    assert 1 < len(expected[j]) < 6 and expected[j][-1] == stop
    seen = []
    original = packed_greedy

    def spy(model_, cache, tails, max_new, eos):
        out = original(model_, cache, tails, max_new, eos)
        seen.append(out)
        return out
    import xlebench.vlm.transformers_backend as backend
    backend.packed_greedy, saved = spy, backend.packed_greedy
    try:
        vlm._shared_prefix(prompts)
    finally:
        backend.packed_greedy = saved
    # generate pads a finished row; the packed loop just stops it
    assert seen[0] == expected
    assert sorted(map(len, seen[0]))[-1] == 6 and len(seen[0][j]) < 6


def test_questions_appended_in_several_passes_decode_the_same(tmp_path: Path,
                                                              monkeypatch) -> None:
    """Step 0 in passes of a bounded token count (each question alone here): the passes'
    questions never see each other, so the tokens are those of one pass and of separate
    requests."""
    import xlebench.vlm.packed as packed

    loaded = random_qwen2_vl("tiny", seed=6)
    vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q",
                                                max_tokens=4, temperature=0.0),
                          tmp_path / "c", loaded=loaded)
    prompts = _prompts(vlm, _frames(tmp_path, 4))
    seen = []
    real = packed.packed_greedy
    import xlebench.vlm.transformers_backend as backend
    monkeypatch.setattr(backend, "packed_greedy", lambda *a: seen.append(real(*a)) or seen[-1])
    vlm._shared_prefix(prompts)
    passes = []
    forward = loaded[1].forward
    monkeypatch.setattr(loaded[1], "forward", lambda **kw: passes.append(
        kw["input_ids"].shape[1]) or forward(**kw))
    monkeypatch.setattr(packed, "STEP0_TOKENS", 1)
    vlm._shared_prefix(prompts)
    monkeypatch.setattr(loaded[1], "forward", forward)  # generate reads its signature
    assert seen[0] == seen[1] == _alone(vlm, prompts, 4)
    assert passes[1:1 + len(prompts)] == [len(t) for t in _tails(vlm, prompts)], \
        "one pass per question"


def _tails(vlm: TransformersVLM, prompts) -> list:
    from xlebench.vlm.prefix import common_prefix

    processor = vlm._loaded[0]
    images = vlm._images(prompts[0][1])
    ids = [processor(text=[t], images=images, return_tensors="pt")["input_ids"][0]
           for t, _ in prompts]
    common = common_prefix(ids)
    return [x[common:] for x in ids]


def test_the_backend_packs_only_where_the_result_is_generates() -> None:
    """Greedy SDPA/eager models with no logits processor pack; sampling, a repetition
    penalty or flash attention (no explicit masks) keep the repeated-prefix way."""
    _, model = random_qwen2_vl("tiny", seed=1)
    assert packable(model, 0.0)
    assert not packable(model, 0.7)
    model.generation_config.repetition_penalty = 1.05
    assert not packable(model, 0.0)
    model.generation_config.repetition_penalty = 1.0
    model.config._attn_implementation = "flash_attention_2"
    assert not packable(model, 0.0)


def test_frames_attended_in_one_call_give_the_per_frame_features(tmp_path: Path) -> None:
    """The vision tower with every frame in one batched attention call gives the features of
    one call per frame; frames of different sizes fall back to a call each, also exact."""
    from transformers import AttentionInterface

    processor, model = random_qwen2_vl("tiny", seed=2)
    same = [Image.effect_noise((560, 420), 40 + k).convert("RGB") for k in range(3)]
    mixed = same[:2] + [Image.effect_noise((280, 420), 60).convert("RGB")]
    calls: list[int] = []
    real = frames_attention.frames_attention

    def spy(*args, **kw):
        calls.append(1)
        return real(*args, **kw)
    for frames in (same, mixed):
        calls.clear()
        x = processor.image_processor(images=frames, return_tensors="pt")
        model.model.visual.config._attn_implementation = "sdpa"
        with torch.inference_mode():
            per_frame = model.model.visual(x["pixel_values"], grid_thw=x["image_grid_thw"])
            assert frames_attention.enable(model)
            AttentionInterface.register(frames_attention.NAME, spy)
            try:
                together = model.model.visual(x["pixel_values"], grid_thw=x["image_grid_thw"])
            finally:
                AttentionInterface.register(frames_attention.NAME, real)
        assert len(calls) == model.config.vision_config.depth, "one call per layer"
        assert torch.allclose(together.last_hidden_state, per_frame.last_hidden_state,
                              atol=1e-5)
    assert not frames_attention.enable(object()), "other models are left as they are"


def test_attention_without_cudnn_plans_on_cuda_and_as_is_elsewhere() -> None:
    """On CUDA the decoding steps run with SDPA's cuDNN backend off (flash and efficient
    kernels build no per-shape plan); the settings come back after; the CPU is untouched."""
    before = torch.backends.cuda.cudnn_sdp_enabled()
    with shape_free_attention("cpu"):
        assert torch.backends.cuda.cudnn_sdp_enabled() == before
    with shape_free_attention("cuda:0"):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled()
        assert torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before


@pytest.mark.parametrize("builder", ["qwen", "llava"])
def test_replayed_tokens_are_the_processors(tmp_path: Path, builder: str, tiny) -> None:
    """The other questions' inputs, their shared text tokenized once and each tail apart,
    are the processor's own tokens for each question (BERT-style [CLS]/[SEP] included)."""
    if builder == "qwen":
        vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="q"),
                              tmp_path / "c", loaded=random_qwen2_vl("tiny"))
    else:
        vlm = TransformersVLM(TransformersVLMConfig(backend="transformers", model="l",
                                                    path=str(tiny), device="cpu"),
                              tmp_path / "c")
    processor = vlm._loaded[0]
    prompts = _prompts(vlm, _frames(tmp_path, 4))
    images = vlm._images(prompts[0][1])
    first = processor(text=[prompts[0][0]], images=images, return_tensors="pt", padding=True)
    replayed = vlm._replay(first, prompts[0][0], [t for t, _ in prompts[1:]])
    assert replayed is not None
    for (text, _), got in zip(prompts[1:], replayed, strict=True):
        want = processor(text=[text], images=images, return_tensors="pt",
                         padding=True)["input_ids"]
        assert torch.equal(got["input_ids"], want)
