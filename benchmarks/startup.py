"""Start-up: ``xlebench --help`` and ``xlebench --cfg job`` against the floor of any Hydra
application (an interpreter that imports hydra and omegaconf and exits), alternating in one
run. Target: ``--help`` under 1 s.

Usage: python benchmarks/startup.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "floor (import hydra, omegaconf)": ["-c", "import hydra, omegaconf"],
    "xlebench --help": ["-m", "xlebench", "--help"],
    "xlebench --cfg job": ["-m", "xlebench", "--cfg", "job"],
}


def byte_compile() -> None:
    """Compile xlebench's modules once, as any first run does where Python may write byte-code:
    with ``PYTHONDONTWRITEBYTECODE`` set (some containers) every start would compile them
    again and the timings would measure the compiler."""
    import compileall

    compileall.compile_dir(ROOT / "xlebench", quiet=1)


def _time(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    byte_compile()
    for cmd in COMMANDS.values():  # warm the file cache once
        _time(cmd)
    for _ in range(args.repeats):
        for name, cmd in COMMANDS.items():
            times[name].append(_time(cmd))
    med = {k: statistics.median(v) for k, v in times.items()}
    floor = med["floor (import hydra, omegaconf)"]
    print(json.dumps({
        "median_s": {k: round(v, 3) for k, v in med.items()},
        "over_floor": {k: round(v / floor, 2) for k, v in med.items()},
        "target": "xlebench --help < 1 s",
    }, indent=1))


if __name__ == "__main__":
    main()
