"""Sentence vectors are a function of the sentence alone: the batching that makes them so."""

from __future__ import annotations

import pytest

from xlebench.library.embed import MiniLMEmbedder, pass_rows, same_length_batches

SENTENCES = [
    "C cooks pasta in the kitchen.", "C walks the dog.", "C is washing dishes at the sink.",
    "C drives to work on a rainy morning and parks near the office.",
    "C reads.", "C talks with a man in the living room about the football match on tv.",
    "C paints a wall", "C repairs a bicycle tyre in the garage with a wrench and a pump.",
    "C plays cards with friends.", "C shops for groceries, pays at the counter and leaves.",
    "C waters the plants on the balcony.", "C walks the cat.", "C eats lunch at a cafe.",
]


def test_every_pass_over_a_length_has_one_shape() -> None:
    """Rows per pass depend on the length and the batch size, never on how many sentences
    share the length (row counts change BLAS's kernels on some CPUs: same_length_batches)."""
    lengths = [3, 5, 3, 40, 3]
    batches = same_length_batches(lengths, batch_size=2)
    assert [b.real for b in batches] == [[0, 2], [4], [1], [3]]
    assert [b.rows for b in batches] == [[0, 2], [4, 4], [1, 1], [3]]
    for few, many in ((1, 1), (7, 300), (64, 5000)):
        for length in (2, 12, 60, 256):
            shapes = {len(b.rows) for n in (few, many)
                      for b in same_length_batches([length] * n, batch_size=64)}
            assert shapes == {pass_rows(length, 64)}
    assert pass_rows(12, 64) == 64 and pass_rows(100, 64) == 11 and pass_rows(256, 64) == 4


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_sentence_gets_the_same_bytes_alone_and_in_any_batch(minilm) -> None:
    together = minilm.encode(SENTENCES)
    for i, text in enumerate(SENTENCES):
        assert minilm.encode([text])[0].tobytes() == together[i].tobytes(), text
    shuffled = [SENTENCES[i] for i in (5, 0, 12, 3)]
    again = minilm.encode(shuffled)
    for row, i in zip(again, (5, 0, 12, 3), strict=True):
        assert row.tobytes() == together[i].tobytes()


#: Many sentences of one token length: on a 16-core Xeon a pass of 40 of them gave other bits
#: than a pass of one alone before every pass over a length had one shape.
SAME_LENGTH = [f"C sorted {k} boxes of screws in the workshop." for k in range(40)]


def test_many_sentences_of_one_length_get_the_bytes_they_get_alone(minilm) -> None:
    together = minilm.encode(SAME_LENGTH)
    for i in (0, 7, 21, 39):
        assert minilm.encode([SAME_LENGTH[i]])[0].tobytes() == together[i].tobytes()
    assert minilm.encode(SAME_LENGTH[5:9])[2].tobytes() == together[7].tobytes()


def test_bf16_autocast_vectors_stay_within_cosine_0999_of_fp32() -> None:
    """matcher.embedder.precision=bf16: matrix products in bfloat16 under autocast; every
    vector keeps cosine >= 0.999 to the fp32 one, and is stored under its own key."""
    import numpy as np

    from xlebench.library.embed import MiniLMEmbedder

    texts = [f"C {verb} the {obj} in the {place}." for verb in ("cuts", "washes", "carries")
             for obj in ("onion", "cup", "bicycle", "towel") for place in ("kitchen", "garage")]
    texts += ["C " + " ".join(["walks around the park"] * k) for k in (1, 5, 20)]
    fp32, bf16 = MiniLMEmbedder(), MiniLMEmbedder(precision="bf16")
    a, b = fp32.encode(texts), bf16.encode(texts)
    assert np.einsum("ij,ij->i", a, b).min() >= 0.999
    assert bf16.key != fp32.key


def _library_fingerprint(*overrides: str) -> dict:
    from tests.test_config import _compose
    from xlebench.stages.library import build_library_stage

    return dict(build_library_stage(_compose(list(overrides))).config["embedder"])


def test_what_changes_the_vectors_changes_the_library_fingerprint() -> None:
    """precision, device and batch size (the shape of every pass: same_length_batches) can
    give other vectors, so another library; the defaults keep the fingerprint caches were
    made with."""
    default = _library_fingerprint()
    assert default == {"kind": "minilm", "dim": 384, "model": None}
    assert _library_fingerprint("matcher.embedder.batch_size=8") == {**default, "batch_size": 8}
    assert _library_fingerprint("matcher.embedder.precision=bf16") == {**default,
                                                                       "precision": "bf16"}
    assert _library_fingerprint("matcher.embedder.device=cuda") == {**default, "device": "cuda"}


def test_a_cuda_embedder_stores_apart_and_says_when_there_is_no_gpu() -> None:
    from xlebench.errors import ConfigError
    from xlebench.library.embed import make_embedder

    torch = pytest.importorskip("torch")
    cuda = make_embedder("minilm", device="cuda")
    assert cuda.key == "all-MiniLM-L6-v2-cuda" and MiniLMEmbedder().key == "all-MiniLM-L6-v2"
    assert MiniLMEmbedder(batch_size=512).key == "all-MiniLM-L6-v2-b512"
    assert make_embedder("minilm", precision="bf16", device="cuda").key.endswith("-bf16-cuda")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present (tests/library/test_embed_gpu.py)")
    with pytest.raises(ConfigError, match="matcher.embedder.device=cuda: no CUDA device"):
        cuda.encode(["C walks the dog."])
