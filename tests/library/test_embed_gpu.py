"""MiniLM on a CUDA device (matcher.embedder.device=cuda): the same guarantees as on the
CPU — a sentence's bits do not depend on its batch — and vectors within cosine 0.9999 of the
CPU's (0.999 under bf16). Run with -m gpu on a machine with a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from tests.library.test_embed import SAME_LENGTH, SENTENCES
from xlebench.library.embed import MiniLMEmbedder

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def cuda() -> MiniLMEmbedder:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return MiniLMEmbedder(device="cuda")


def test_a_sentence_gets_the_same_bytes_alone_and_in_any_batch_on_cuda(cuda) -> None:
    together = cuda.encode(SENTENCES + SAME_LENGTH)
    for i, text in enumerate(SENTENCES + SAME_LENGTH[:3]):
        assert cuda.encode([text])[0].tobytes() == together[i].tobytes(), text
    order = (5, 0, 12, 3)
    for row, i in zip(cuda.encode([SENTENCES[i] for i in order]), order, strict=True):
        assert row.tobytes() == together[i].tobytes()


def test_cuda_vectors_agree_with_the_cpu(cuda) -> None:
    texts = SENTENCES + ["C " + " ".join(["walks around the park"] * k) for k in (5, 60)]
    cpu = MiniLMEmbedder().encode(texts)
    assert np.einsum("ij,ij->i", cpu, cuda.encode(texts)).min() >= 0.9999
    bf16 = MiniLMEmbedder(precision="bf16", device="cuda").encode(texts)
    assert np.einsum("ij,ij->i", cpu, bf16).min() >= 0.999
    tokens = cuda.encode_with_tokens(texts[:2])[1]
    assert tokens[0]["token_embeddings"].device.type == "cpu"
