"""Byte identity of compiled benchmarks across code changes (performance work above all).

Each case compiles a small benchmark through the real CLI and compares the SHA-256 of every
file in the published folder with ``tests/golden/benchmark_digests.json``, recorded before
the change. A difference names the files; a deliberate output change (a stage version bump)
re-records them with ``XLEBENCH_FREEZE=1 pytest tests/test_outputs_frozen.py`` and says so in
its commit.

Plots and parquet files embed their writer's version: they are compared only under the
matplotlib / pyarrow versions the digests were recorded with, and the test says when it
leaves them out. The manifest's ``git_revision`` and ``packages`` are blanked before
hashing.

Across CPUs: on the AVX2 EPYC of 2026-11-23 one life log of ``paper_full`` picked the other
of two videos whose float32 cosines were equal there (0.51917; 7e-9 apart in float64) because
FAISS summed them in the order of its AVX2 kernel, where the digests had been recorded on
AVX-512. Since then the matcher ranks FAISS's candidates by float64 cosines, ties broken by
id, and the hashing embedder normalises in float64 (`xlebench.library.index.search`), so one
set of digests serves every machine (recorded on an AVX2 EPYC, 2026-11-24). Digests can still
be kept per FAISS dispatch level under ``platforms`` should a machine ever need its own:
``XLEBENCH_FREEZE=1`` re-records the top-level set; ``XLEBENCH_FREEZE=platform`` this
machine's own set, from a commit whose outputs are known good.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from pathlib import Path

import pytest

from tests.conftest import FAST, run_cli

GOLDEN = Path(__file__).parent / "golden" / "benchmark_digests.json"

CASES: dict[str, list[str]] = {
    # every stage but rendering, the paper's clock, on the 120-video synthetic library
    "paper_full": [*FAST, "stages=[library,persona,plan,simulate,render,annotate,evaluate,"
                   "export,report]", "render=none", "simulation=paper", "eval.bootstrap=50",
                   "eval.bertscore=false", "library.n_videos=120",
                   "simulation.start_resolution_s=60", "simulation.segment_end=floor"],
    # long logs: 40 chunks, 39 reflections each (the record that grows with chunks squared)
    "long_logs": [*FAST, "simulation.n_chunks=40", "planner.min_chunks=40", "library.n_videos=200",
                  "persona.mbti=[INTJ]"],
}
#: Files whose bytes depend on a library's version besides our code.
VERSIONED = {".png": "matplotlib", ".parquet": "pyarrow"}


#: The manifest names the code's commit, which every commit changes.
REVISION = re.compile(rb'"git_revision": "[^"]*"')
#: ... and the installed packages' versions: a fresh install resolves the unpinned ones
#: (litellm, pydantic) to whatever PyPI holds that day, which says nothing of our bytes.
PACKAGES = re.compile(rb'"packages": \{[^}]*\}')


def digests(folder: Path) -> dict[str, str]:
    def normal(data: bytes) -> bytes:
        return PACKAGES.sub(b'"packages": {}', REVISION.sub(b'"git_revision": ""', data))
    return {p.relative_to(folder).as_posix(): hashlib.sha256(normal(p.read_bytes())).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def platform_key() -> str:
    """The FAISS dispatch level (AVX2, AVX512...): what decides a near tie's order."""
    import faiss

    config = getattr(faiss, "SIMDConfig", None)
    return f"faiss-{config.get_level_name() if config is not None else 'unknown'}"


def _versions() -> dict[str, str]:
    from importlib.metadata import version

    return {lib: version(lib) for lib in sorted(set(VERSIONED.values()))}


def _comparable(path: str, recorded: dict[str, str], now: dict[str, str]) -> bool:
    lib = VERSIONED.get(Path(path).suffix)
    return lib is None or recorded.get(lib) == now[lib]


#: Cases compiled in the slow tier `.ci/run` runs: every stage of the paper's clock through the
#: CLI (about 35 s on two cores), where the default suite keeps the long logs' case.
SLOW = {"paper_full"}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c
                                  for c in sorted(CASES)])
def test_benchmark_bytes_unchanged(tmp_path: Path, case: str) -> None:
    run_cli(tmp_path, *CASES[case])
    got = digests(tmp_path / "benchmarks" / "demo")
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {"cases": {}}
    key = platform_key()
    freeze = os.environ.get("XLEBENCH_FREEZE")
    if freeze in ("1", "platform"):
        target = golden if freeze == "1" else golden.setdefault("platforms", {}).setdefault(
            key, {"cases": {}})
        target["versions"] = _versions()
        target["cases"][case] = got
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        pytest.skip(f"recorded {len(got)} digests for {case}"
                    + ("" if freeze == "1" else f" on {key}"))
    recorded = golden.get("platforms", {}).get(key, golden)
    want = recorded["cases"][case]
    now = _versions()
    left_out = [p for p in want if not _comparable(p, recorded["versions"], now)]
    if left_out:
        warnings.warn(f"{len(left_out)} file(s) not compared: recorded under "
                      f"{recorded['versions']}, installed {now}", stacklevel=1)
    assert sorted(got) == sorted(want), "the benchmark folder holds other files than before"
    changed = [p for p in want if p not in left_out and got[p] != want[p]]
    own = "its own digests" if recorded is not golden else (
        f"the default digests (platforms with their own: {sorted(golden.get('platforms', {}))}"
        "; a near tie may rank otherwise here: XLEBENCH_FREEZE=platform from a known-good "
        "commit records this machine's)")
    assert not changed, f"{len(changed)} file(s) changed bytes on {key}, against {own}: " \
                        f"{changed[:10]}"
