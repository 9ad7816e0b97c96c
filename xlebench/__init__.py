"""xlebench: a Hydra-driven life-log simulator and benchmark compiler (X-LeBench, rebuilt).

From Python (`xlebench.api`, imported on first use so that ``import xlebench`` stays light):

    import xlebench as xb
    bench = xb.compile(["tasks=[neptune_qa]", "name=neptune"])   # or xb.open("demo")
    scores = bench.evaluate(my_model)                             # question row -> reply
    scores.summary()                                              # n, interval, floor
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

#: The Python API's names (`xlebench.api`); ``open`` is `xlebench.api.open_benchmark`.
_API = {"compile": "compile", "open": "open_benchmark", "open_benchmark": "open_benchmark",
        "Benchmark": "Benchmark", "Scores": "Scores", "CompileFailed": "CompileFailed"}
__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        from xlebench import api

        return getattr(api, _API[name])
    raise AttributeError(f"module 'xlebench' has no attribute {name!r}")
