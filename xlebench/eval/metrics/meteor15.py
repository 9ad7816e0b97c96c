"""Equals: pycocoevalcap 1.2's `meteor/meteor.py` and its `meteor-1.5.jar` (the same jar is run),
as VidSitu @ b794988 and MultiHop-EgoQA @ ab32f81 call it.

METEOR 1.5 (Denkowski and Lavie, 2014) as pycocoevalcap runs it: the Java scorer
``meteor-1.5.jar`` (English, ``-norm``, its paraphrase table), the one VidSitu's and
MultiHop-EgoQA's evaluators call. Nothing in Python reproduces it (stems, synonyms and
paraphrases from its own tables), so xlebench runs the same jar, from the installed
``pycocoevalcap`` package, with the system's Java.

The jar scores a corpus from the sum of its segments' statistics (``SCORE`` gives a segment's,
``EVAL`` scores any statistics line), except that a segment matched whole in one chunk adds no
chunk (Meteor's ``MeteorStats.addStats``): xlebench asks once per distinct segment, keeps the
statistics with that chunk taken out, and scores sums of them, so a bootstrap resample costs one ``EVAL`` and the
corpus score equals pycocoevalcap's ``Meteor().compute_score`` (tested side by side).

Without Java or the package the metric is not computed and `unavailable` says why, in one
line with what to install: never another METEOR in its place.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

INSTALL = ("METEOR 1.5 needs Java and the pycocoevalcap package: apt-get install "
           "default-jre-headless; pip install 'xlebench[dev]' (or pycocoevalcap)")


def jar() -> Path | None:
    """The Meteor 1.5 jar pycocoevalcap ships, or None."""
    try:
        import pycocoevalcap
    except ImportError:
        return None
    path = Path(pycocoevalcap.__path__[0]) / "meteor" / "meteor-1.5.jar"
    return path if path.is_file() else None


def unavailable() -> str | None:
    """Why METEOR 1.5 cannot run here (one line), or None when it can."""
    if shutil.which("java") is None:
        return f"no java on PATH. {INSTALL}"
    if jar() is None:
        return f"meteor-1.5.jar not found. {INSTALL}"
    return None


class Meteor15:
    """One long-lived jar process (pycocoevalcap's command line), statistics memoised per
    (hypothesis, references)."""

    def __init__(self) -> None:
        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        path = jar()
        assert path is not None
        self._proc = subprocess.Popen(
            ["java", "-jar", "-Xmx2G", path.name, "-", "-", "-stdio", "-l", "en", "-norm"],
            cwd=path.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self._lock = threading.Lock()
        self._stats: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
        atexit.register(self.close)

    def close(self) -> None:
        """End the jar: its input closed, it stops; killed if it has not in 5 s."""
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()

    def _ask(self, line: str) -> str:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write((line.replace("\n", " ") + "\n").encode())
        self._proc.stdin.flush()
        return self._proc.stdout.readline().decode().strip()

    def stats(self, hypothesis: str, references: tuple[str, ...]) -> np.ndarray:
        """A segment's statistics vector (what pycocoevalcap's ``_stat`` reads)."""
        key = (hypothesis, references)
        with self._lock:
            if key not in self._stats:
                hyp = hypothesis.replace("|||", "").replace("  ", " ")
                line = self._ask(" ||| ".join(("SCORE", " ||| ".join(references), hyp)))
                self._stats[key] = _addable(np.array([float(x) for x in line.split()]))
            return self._stats[key]

    def score(self, stats: np.ndarray) -> float:
        """METEOR of a corpus whose segments' statistics sum to ``stats``."""
        line = " ".join(repr(float(x)) for x in stats)
        with self._lock:
            self._ask(f"EVAL ||| {line}")  # the one "segment"'s score, then the corpus's
            assert self._proc.stdout is not None
            return float(self._proc.stdout.readline().decode().strip())


#: positions in the statistics line: lengths, then chunks and whole-word matches of each side
_LEN_TEST, _LEN_REF, _CHUNKS, _MATCH_TEST, _MATCH_REF = 0, 1, -3, -2, -1


def _addable(stats: np.ndarray) -> np.ndarray:
    """The statistics as the corpus sums them: a perfect segment's one chunk left out."""
    if (stats[_CHUNKS] == 1 and stats[_MATCH_TEST] == stats[_LEN_TEST]
            and stats[_MATCH_REF] == stats[_LEN_REF]):
        stats = stats.copy()
        stats[_CHUNKS] = 0.0
    return stats


@lru_cache(maxsize=1)
def scorer() -> Meteor15:
    """The process shared by every metric of this interpreter."""
    return Meteor15()


def corpus_meteor(hypotheses: list[str], references: list[tuple[str, ...]]) -> float:
    """pycocoevalcap's corpus METEOR of the segments."""
    m = scorer()
    return m.score(np.sum([m.stats(h, r) for h, r in zip(hypotheses, references,
                                                          strict=True)], axis=0))
