"""FAISS inner-product index over normalised summary embeddings, with filtered search.

The matcher restricts the search to the candidates that pass the rule filter with FAISS's
ID selectors, so ranking is exact cosine similarity over exactly the allowed videos.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xlebench.errors import ConfigError


def _faiss():
    import faiss

    return faiss


def build_index(vectors: np.ndarray, kind: str = "flat_ip", hnsw_m: int = 32):
    faiss = _faiss()
    dim = vectors.shape[1]
    if kind == "flat_ip":
        index = faiss.IndexFlatIP(dim)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
    else:
        raise ConfigError(f"matcher.index.kind={kind}: expected flat_ip or hnsw")
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def save_index(index, path: Path) -> None:
    _faiss().write_index(index, str(path))


def load_index(path: Path, threads: int = 1):
    faiss = _faiss()
    faiss.omp_set_num_threads(max(1, threads))
    return faiss.read_index(str(path))


#: FAISS returns this many candidates beyond k; they are rescored exactly (see `search`).
MARGIN = 8


def search(index, query: np.ndarray, k: int, allowed: Sequence[int] | np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Top-k (scores, ids) for one query vector, optionally among `allowed` ids only.

    The allowed ids reach FAISS as a bitmap (`IDSelectorBitmap`: one bit test per video),
    not as a hashed id set: on a 100k-video library that is what keeps a filtered query in
    milliseconds. FAISS's float32 inner products are summed in the order of the vector
    instructions it dispatches to (AVX2, AVX-512...), so two candidates a float32 step apart
    could rank either way by machine (seen: cosines 7e-9 apart on the paper grid). The top
    ``k + MARGIN`` are therefore rescored in float64 from the stored vectors and ranked by
    (score, id): the same ranking on every CPU.
    """
    scores, found = _faiss_search(index, query, k + MARGIN, allowed)
    if len(found) == 0:
        return scores, found
    exact = index.reconstruct_batch(found).astype(np.float64) @ np.asarray(
        query, dtype=np.float64).ravel()
    order = np.lexsort((found, -exact))[:k]
    return exact[order], found[order]


def _faiss_search(index, query: np.ndarray, k: int,
                  allowed: Sequence[int] | np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    faiss = _faiss()
    q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
    params = None
    if allowed is not None:
        ids = np.asarray(allowed, dtype=np.int64)
        if len(ids) == 0:
            return np.zeros(0, np.float32), np.zeros(0, np.int64)
        k = min(k, len(ids))
        sel = faiss.IDSelectorBitmap(id_bitmap(ids, index.ntotal))
        params = (faiss.SearchParametersHNSW(sel=sel) if isinstance(index, faiss.IndexHNSW)
                  else faiss.SearchParameters(sel=sel))
    scores, found = index.search(q, k, params=params) if params else index.search(q, k)
    keep = found[0] >= 0
    return scores[0][keep], found[0][keep]


def id_bitmap(ids: np.ndarray, n: int) -> np.ndarray:
    """Bit i (little-endian within each byte, as FAISS reads it) set for each id i < n."""
    bits = np.zeros(n, dtype=bool)
    bits[ids[ids < n]] = True
    return np.packbits(bits, bitorder="little")
