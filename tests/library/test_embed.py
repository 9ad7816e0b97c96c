"""Sentence vectors are a function of the sentence alone: the batching that makes them so."""

from __future__ import annotations

from functools import partial

import pytest

from xlebench.library.embed import (
    MIN_TOKEN_ROWS,
    MiniLMEmbedder,
    gpu_pass_rows,
    same_length_batches,
)
from xlebench.library.threads import intra_op_threads, pass_threads

SENTENCES = [
    "C cooks pasta in the kitchen.", "C walks the dog.", "C is washing dishes at the sink.",
    "C drives to work on a rainy morning and parks near the office.",
    "C reads.", "C talks with a man in the living room about the football match on tv.",
    "C paints a wall", "C repairs a bicycle tyre in the garage with a wrench and a pump.",
    "C plays cards with friends.", "C shops for groceries, pays at the counter and leaves.",
    "C waters the plants on the balcony.", "C walks the cat.", "C eats lunch at a cafe.",
]


def test_batches_group_equal_lengths_and_fill_small_passes() -> None:
    batches = same_length_batches([3, 5, 3, 40, 3], batch_size=2)
    assert [b.real for b in batches] == [[0, 2], [4], [1], [3]]
    for b in batches:
        length = {0: 3, 2: 3, 4: 3, 1: 5, 3: 40}[b.real[0]]
        assert set(b.rows) == set(b.real) and b.rows[: len(b.real)] == b.real
        assert len(b.rows) * length >= MIN_TOKEN_ROWS or len(b.rows) == len(b.real)
    assert MIN_TOKEN_ROWS >= 192, "fewer rows took another BLAS path on a 16-core Xeon"


def test_gpu_passes_over_a_length_have_one_shape() -> None:
    """On a GPU the floor is not enough: rows per pass follow the length and the batch size,
    never how many sentences share the length."""
    batches = same_length_batches([3, 5, 3, 40, 3], batch_size=2, fixed=True)
    assert [b.rows for b in batches] == [[0, 2], [4, 4], [1, 1], [3]]
    for length in (2, 12, 60, 256):
        shapes = {len(b.rows) for n in (1, 7, 300, 5000)
                  for b in same_length_batches([length] * n, batch_size=64, fixed=True)}
        assert shapes == {gpu_pass_rows(length, 64)}
    assert gpu_pass_rows(12, 64) == 64 and gpu_pass_rows(100, 64) == 11


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


def test_a_pass_runs_on_every_cpu_whatever_faiss_left_and_gives_the_setting_back(
        minilm, monkeypatch) -> None:
    """Loading a FAISS index sets the OpenMP runtime torch shares to one thread; the passes
    after it ran on one core. A pass now runs at `pass_threads`, the same bytes, and leaves
    the setting as it found it (FAISS searches keep theirs)."""
    torch = pytest.importorskip("torch")
    faiss = pytest.importorskip("faiss")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert pass_threads() == 2
    before = torch.get_num_threads()
    expected = minilm.encode(SENTENCES[:3])
    seen: list[int] = []
    hook = minilm._load()[0].register_forward_hook(
        lambda *_: seen.append(torch.get_num_threads()))
    try:
        faiss.omp_set_num_threads(1)  # what `load_index` does
        assert torch.get_num_threads() == 1
        again = minilm.encode(SENTENCES[:3])
        assert seen and set(seen) == {2} and torch.get_num_threads() == 1
        assert again.tobytes() == expected.tobytes()
        with intra_op_threads():
            assert torch.get_num_threads() == 2
        assert torch.get_num_threads() == 1
    finally:
        hook.remove()
        torch.set_num_threads(before)
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    assert pass_threads() >= 1


#: Many sentences of one token length: on a 16-core Xeon a pass of 40 of them gave other bits
#: than a pass of one alone when passes were filled to 64 token rows only.
SAME_LENGTH = [f"C sorted {k} boxes of screws in the workshop." for k in range(40)]


def test_many_sentences_of_one_length_get_the_bytes_they_get_alone(minilm) -> None:
    together = minilm.encode(SAME_LENGTH)
    for i in (0, 7, 21, 39):
        assert minilm.encode([SAME_LENGTH[i]])[0].tobytes() == together[i].tobytes()
    assert minilm.encode(SAME_LENGTH[5:9])[2].tobytes() == together[7].tobytes()


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_passes_side_by_side_give_the_bits_of_passes_one_at_a_time(minilm, monkeypatch,
                                                                   precision: str) -> None:
    """Many cores run several passes at once (`passes.side_by_side`: 2.4x on a 16-core
    Xeon). Forced here on two: the vectors and token rows are those of one pass at a time,
    and the threads' torch setting is given back."""
    torch = pytest.importorskip("torch")
    from xlebench.library import embed

    if precision != "fp32":  # the same model, its passes under autocast
        model, minilm = minilm._load(), MiniLMEmbedder(precision=precision)
        minilm._model = model
    texts = SENTENCES + SAME_LENGTH[:9] + ["C " + " ".join(["walks around the park"] * 60)]
    if precision != "fp32":  # emulated on an AVX2-only CPU: 3 s a call for every length
        texts = SENTENCES[:3] + SAME_LENGTH[:3]
    alone, rows = minilm.encode_with_tokens(texts)
    seen: list[int] = []
    monkeypatch.setattr(embed, "side_by_side", lambda threads: seen.append(threads) or 2)
    # one torch thread a pass here: two cores (a test worker's share is one)
    monkeypatch.setattr(embed, "run_passes", partial(embed.run_passes, threads=1))
    before = torch.get_num_threads()
    together, rows_together = minilm.encode_with_tokens(texts)
    assert seen and torch.get_num_threads() == before
    assert together.tobytes() == alone.tobytes() == minilm.encode(texts).tobytes()
    for a, b in zip(rows, rows_together, strict=True):
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


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


@pytest.mark.parametrize("native", [True, False])
def test_bf16_on_a_cpu_without_bfloat16_instructions_is_named_in_a_warning(
        monkeypatch, caplog, native: bool) -> None:
    """Emulated bf16 ran 6.6x slower than fp32 on an AVX2-only CPU: the user is told, once per
    process however many stages load the model, which knob to set back; fp32 and CPUs with
    bf16 instructions stay quiet."""
    from xlebench.library import embed

    monkeypatch.setattr(embed, "cpu_has_bf16", lambda: native)
    embed._warn_emulated_bf16.cache_clear()
    with caplog.at_level("WARNING", logger="xlebench.library.embed"):
        for _ in range(2):  # e.g. the library stage's embedder, then the plan stage's
            embed.MiniLMEmbedder(precision="bf16")._check_bf16()
        embed.MiniLMEmbedder()._check_bf16()
    embed._warn_emulated_bf16.cache_clear()
    warned = [r.getMessage() for r in caplog.records]
    assert warned == ([] if native else [
        f"matcher.embedder.precision=bf16: this CPU has no bfloat16 instructions (torch "
        f"reports {embed.cpu_capability()}), so bf16 is emulated and slower than fp32; use "
        "matcher.embedder.precision=fp32 here"])


def _library_fingerprint(*overrides: str) -> dict:
    from tests.test_config import _compose
    from xlebench.stages.library import build_library_stage

    return dict(build_library_stage(_compose(list(overrides))).config["embedder"])


def test_what_changes_the_vectors_changes_the_library_fingerprint() -> None:
    """precision and device give other vectors, so another library; batch size does not
    (same_length_batches), and the defaults keep the fingerprint caches were made with."""
    default = _library_fingerprint()
    assert default == {"kind": "minilm", "dim": 384, "model": None}
    assert _library_fingerprint("matcher.embedder.batch_size=8") == default
    assert _library_fingerprint("matcher.embedder.precision=bf16") == {**default,
                                                                       "precision": "bf16"}
    assert _library_fingerprint("matcher.embedder.device=cuda") == {
        **default, "device": "cuda", "batch_size": 64}, "a GPU pass's shape follows the batch"


def test_a_cuda_embedder_stores_apart_and_says_when_there_is_no_gpu() -> None:
    from xlebench.errors import ConfigError
    from xlebench.library.embed import make_embedder

    torch = pytest.importorskip("torch")
    cuda = make_embedder("minilm", device="cuda")
    assert cuda.key == "all-MiniLM-L6-v2-cuda-b64" and MiniLMEmbedder().key == "all-MiniLM-L6-v2"
    assert make_embedder("minilm", precision="bf16", device="cuda",
                         batch_size=256).key.endswith("-bf16-cuda-b256")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present (tests/library/test_embed_gpu.py)")
    with pytest.raises(ConfigError, match="matcher.embedder.device=cuda: no CUDA device"):
        cuda.encode(["C walks the dog."])


@pytest.mark.parametrize("given", ["99999", "0", "-3", "two", " "])
def test_an_out_of_range_thread_setting_is_clamped_or_ignored(monkeypatch, caplog,
                                                              given: str) -> None:
    """``OMP_NUM_THREADS=99999`` passed to ``torch.set_num_threads`` killed every forward
    pass (SIGSEGV); it is clamped to the CPUs, with a warning, and nonsense is ignored."""
    import os

    cpus = len(os.sched_getaffinity(0))
    monkeypatch.setenv("OMP_NUM_THREADS", given)
    assert pass_threads() == cpus
    assert ("more than the" in caplog.text) == (given == "99999")
