"""The plan stage embeds every pending plan's chunk texts in one call (`PlanStage.prepare`),
and each unit then reads its vectors from the store: the same vectors as unit by unit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.conftest import run_inprocess
from xlebench.library.embed import MiniLMEmbedder

ARGS = ("stages=[library,persona,plan]", "library.n_videos=60", "persona.locations=[Japan]",
        "persona.mbti=[INTJ,ENFP,ISTP]")


def test_one_embedding_call_serves_every_plan(monkeypatch, tmp_path: Path) -> None:
    calls: list[int] = []
    encode = MiniLMEmbedder.encode

    def counting(self, texts):
        calls.append(len(texts))
        return encode(self, texts)

    monkeypatch.setattr(MiniLMEmbedder, "encode", counting)
    ran = run_inprocess(tmp_path, *ARGS)
    assert ran.rc == 0, ran.text[-3000:]
    assert len(calls) == 2, f"the library's summaries, then every plan's chunks: {calls}"
    plans = [json.loads(line) for line in
             (tmp_path / "benchmarks" / "demo" / "plans.jsonl").read_text().splitlines()]
    texts = [c["description"] for p in plans for c in p["chunks"]]
    assert calls[1] == len(set(texts)) and len(plans) == 3
    stored = np.concatenate([np.load(f) for f in sorted(
        (tmp_path / "cache" / "plan").glob("*/units/*/chunk_embeddings.npy"))])
    alone = np.stack([encode(MiniLMEmbedder(), [t])[0] for t in texts[:5]])
    assert {v.tobytes() for v in alone} <= {v.tobytes() for v in stored}
