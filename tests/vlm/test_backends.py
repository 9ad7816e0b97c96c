"""VLM backends declare themselves once, in their own module (``BACKEND = VLMBackend(...)``,
read by `xlebench.config.backends` without importing it): a new one is its module, its conf
file and a test — the schema accepts its name, `make_vlm` builds it and the systems answer with
it, with no other file touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_inprocess
from xlebench.config.backends import (
    VLM_BACKENDS,
    VLMBackend,
    declared_backends,
    register_vlm_backend,
    vlm_backend,
)
from xlebench.errors import ConfigError
from xlebench.vlm.cached import CachedVLM

SMALL = ("stages=[library,persona,plan,simulate,annotate,respond,evaluate]",
         "library.n_videos=60", "matcher/embedder=hashing", "persona.locations=[Japan]",
         "persona.mbti=[INTJ,ENFP]", "tasks=[single_summary]", "eval.bertscore=false",
         "eval.bootstrap=10", "render=none", "progress=false", "eval.e2e_frames=4")


class EchoVLM(CachedVLM):
    """A backend of the test's own: every request answered with one sentence."""

    calls = 0

    def _generate(self, batch: list[list[dict]]) -> list[str]:
        EchoVLM.calls += len(batch)
        return ["C cooked and ate." for _ in batch]


@pytest.fixture
def echo():
    register_vlm_backend(VLMBackend("echo", f"{__name__}:EchoVLM", in_process=True))
    yield
    VLM_BACKENDS.pop("echo")


@pytest.mark.slow  # the pipeline through the CLI (about 14 s): the slow tier CI runs
def test_a_backend_declared_in_a_test_answers_through_the_cli(echo, tmp_path: Path) -> None:
    ran = run_inprocess(tmp_path, *SMALL, "eval.systems=[end_to_end]", "vlm.backend=echo")
    assert ran.rc == 0, ran.text[-3000:]
    assert EchoVLM.calls > 0
    assert list((tmp_path / "benchmarks").glob("*/results/end_to_end*/scores.jsonl"))


def test_unknown_and_duplicate_backends_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="choose litellm, scripted, transformers"):
        vlm_backend("nope")
    with pytest.raises(ConfigError, match="declared already"):
        register_vlm_backend(VLMBackend("litellm", "x:Y"))
    with pytest.raises(ConfigError, match="is not a name"):
        register_vlm_backend(VLMBackend("../../PWN", "x:Y"))
    assert "../../PWN" not in VLM_BACKENDS
    ran = run_inprocess(tmp_path, *SMALL, "vlm.backend=nope")
    assert ran.rc == 2 and "vlm.backend" in ran.text


def test_each_built_in_module_declares_its_backend_as_read_from_its_source() -> None:
    """What the config reads from a module's source is what the module declares."""
    import importlib

    assert set(VLM_BACKENDS) >= {"scripted", "litellm", "transformers"}
    for name, backend in declared_backends().items():
        module = importlib.import_module(backend.factory.partition(":")[0])
        assert module.BACKEND == backend, name
        assert hasattr(module, backend.factory.partition(":")[2]), name


def test_a_module_declaring_a_backend_is_found_and_a_duplicate_refused(tmp_path: Path) -> None:
    (tmp_path / "echo_backend.py").write_text(
        'BACKEND = VLMBackend("echo", "tests.vlm.test_backends:EchoVLM", in_process=True)\n')
    (tmp_path / "notes.py").write_text("BACKEND = 3  # not a declaration\n")
    assert declared_backends(tmp_path) == {
        "echo": VLMBackend("echo", "tests.vlm.test_backends:EchoVLM", in_process=True)}
    (tmp_path / "other.py").write_text('BACKEND = VLMBackend("echo", "x:Y")\n')
    with pytest.raises(ConfigError, match="declared twice"):
        declared_backends(tmp_path)


def test_a_declared_format_or_backend_name_that_is_a_path_is_refused(tmp_path: Path) -> None:
    """Declarations read from source are checked too: an export format named ``../x`` would
    name export/../x."""
    from xlebench.config.declared import read_declarations
    from xlebench.config.exports import ExportFormat

    (tmp_path / "evil.py").write_text('FORMAT = ExportFormat("../evil", "about", 9)\n')
    with pytest.raises(ConfigError, match=r"evil.py: FORMAT '../evil' is not a name"):
        read_declarations(tmp_path, "FORMAT", ExportFormat)
