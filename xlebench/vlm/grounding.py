"""Grounding queries against frames in a transformers VLM's own hidden states: the similarity
branch of MultiHop-EgoQA's GeLM (seed 003, section 5.3), without its trained projections.

GeLM reads the last-layer hidden states of each ``<Tk> ... </Tk>`` pair of its reply as a
grounding query and compares it with the frames' visual hidden states; a frame whose
similarity to a query clears a threshold is evidence for that part of the answer. Here the
same forward pass runs on the prompt (frames, question) followed by the model's reply; a
frame's vector is the mean last-layer state of its image tokens, a query's the mean state of
its enclosed reply tokens, and the similarity is their cosine. GeLM learns two projections
into a shared space and a saliency head; without its training data those are absent, so this
measures what the frozen model's states carry, and says so in the system's name
(`xlebench.systems.baselines.grounding_tokens`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def image_runs(ids: Any, image_id: int) -> list[Any]:
    """Positions of each image's tokens: the runs of consecutive image-token positions, one
    per image (frames are separated by their clock labels in every prompt xlebench writes)."""
    pos = (ids == image_id).nonzero().flatten().tolist()
    runs: list[list[int]] = []
    for p in pos:
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def reply_positions(ids: Sequence[int], reply_ids: Sequence[int], specials: set[int]) -> int:
    """Where the reply's tokens start in the full sequence: its last exact occurrence, else
    right before any trailing special tokens (a tokenizer that appends ``[SEP]``)."""
    ids, reply_ids = list(ids), list(reply_ids)
    n = len(reply_ids)
    for start in range(len(ids) - n, -1, -1):
        if ids[start:start + n] == reply_ids:
            return start
    end = len(ids)
    while end and ids[end - 1] in specials:
        end -= 1
    return max(0, end - n)


def token_span(offsets: Sequence[tuple[int, int]], a: int, b: int) -> list[int]:
    """Indices of the tokens whose characters overlap [a, b) of the reply."""
    return [k for k, (s, e) in enumerate(offsets) if e > a and s < b and e > s]


def cached_similarity(vlm: Any, messages: list[dict], reply: str,
                      spans: Sequence[tuple[int, int]]) -> list[list[float]]:
    """`similarity` through the backend's response cache: keyed by its fingerprint, the
    messages (frames by content), the reply and the spans; a second call runs no model."""
    import json

    from xlebench.llm.cache import CachedResponse, cache_key
    from xlebench.vlm.messages import key_messages

    asked = {"reply": reply, "spans": [list(s) for s in spans], "version": 1}
    key = cache_key(f"vlm-grounding:{vlm.settings.model}",
                    {**vlm.fingerprint(), "grounding": asked}, key_messages(messages), 0)
    hit = vlm.cache.get(key)
    if hit is not None:
        return json.loads(hit.text)
    with vlm._model_lock:
        processor, model = vlm._loaded
        prompt, frames = vlm._prompt(messages)
        rows = similarity(processor, model, vlm.device, prompt, vlm._images(frames) or None,
                          reply, spans)
    vlm.cache.put(key, {"model": vlm.settings.model, "grounding": reply},
                  CachedResponse(json.dumps(rows), 0, 0, 0.0))
    vlm.report("grounding passes", 1)
    return rows


def similarity(processor: Any, model: Any, device: str, prompt: str, images: list | None,
               reply: str, spans: Sequence[tuple[int, int]]) -> list[list[float]]:
    """Cosine of each query (a character span of ``reply``) with each image: rows are
    queries, columns images in prompt order."""
    import torch

    x = processor(text=[prompt + reply], images=images, return_tensors="pt",
                  truncation=False).to(device)
    with torch.inference_mode():
        states = model(**x, output_hidden_states=True).hidden_states[-1][0].float()
    ids = x["input_ids"][0]
    image_id = getattr(model.config, "image_token_id", None) or getattr(
        model.config, "image_token_index", None)
    runs = image_runs(ids, image_id)
    if not images or len(runs) != len(images):
        raise ValueError(f"found {len(runs)} image-token runs for {len(images or [])} frames")
    frames = torch.stack([states[r].mean(0) for r in runs])
    tok = processor.tokenizer(reply, add_special_tokens=False, return_offsets_mapping=True)
    start = reply_positions(ids.tolist(), tok["input_ids"],
                            set(processor.tokenizer.all_special_ids))
    rows = []
    for a, b in spans:
        picked = [start + k for k in token_span(tok["offset_mapping"], a, b)] or \
            list(range(start, start + len(tok["input_ids"]))) or [len(ids) - 1]
        query = states[picked].mean(0)
        rows.append(torch.nn.functional.cosine_similarity(query[None], frames).tolist())
    return rows
