"""xlebench: a Hydra-driven life-log simulator and benchmark compiler (X-LeBench, rebuilt).

From Python (`xlebench.api`, imported on first use so that ``import xlebench`` stays light):

    import xlebench as xb
    bench = xb.compile(["tasks=[neptune_qa]", "name=neptune"])   # or xb.open("demo")
    scores = bench.evaluate(my_model)                             # question row -> reply
    scores.summary()                                              # n, interval, floor

``compile``, ``open`` (also ``open_benchmark``), ``Benchmark``, ``Scores`` and
``CompileFailed`` are `xlebench.api`'s; ``dir(xlebench)`` lists them, and type checkers and
editors read their signatures from the imports below, which run only for them.
"""

import typing as _typing

if _typing.TYPE_CHECKING:  # what static tools see; at run time `__getattr__` imports lazily
    from xlebench.api import Benchmark, CompileFailed, Scores, compile, open_benchmark
    from xlebench.api import open_benchmark as open  # noqa: A004 - the verb users look for

__version__ = "0.1.0"

#: The Python API's names (`xlebench.api`); ``open`` is `xlebench.api.open_benchmark`.
_API = {"compile": "compile", "open": "open_benchmark", "open_benchmark": "open_benchmark",
        "Benchmark": "Benchmark", "Scores": "Scores", "CompileFailed": "CompileFailed"}
__all__ = ["Benchmark", "CompileFailed", "Scores", "__version__", "compile", "open",
           "open_benchmark"]


def __getattr__(name: str) -> object:
    if name in _API:
        from xlebench import api

        return getattr(api, _API[name])
    raise AttributeError(f"module 'xlebench' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's own names and the API's (tab completion, ``help``), none of its private
    helpers."""
    return sorted({n for n in globals() if not n.startswith("_") or n.startswith("__")}
                  | set(_API))
