"""Export formats declare themselves once, in their own module (``FORMAT = ExportFormat(...)``
beside its ``write``), read by `xlebench.config.exports` without importing it: the schema's
choices and defaults, the stage's writers and its check of what a format reads come from
there."""

from __future__ import annotations

import pytest

from xlebench.config.exports import DEFAULT_EXPORTS, EXPORT_FORMATS, FORMATS, WRITERS
from xlebench.config.schema import ExportConfig
from xlebench.errors import ConfigError
from xlebench.stages.export import ExportStage


def _stage(formats: list[str]) -> ExportStage:
    return ExportStage(formats=formats, recipes={}, bench_name="b", config_yaml="",
                       eval_settings={}, max_new_tokens=8)


def test_every_declared_format_has_a_writer_and_the_schema_reads_the_declarations() -> None:
    assert set(_stage([]).writers()) == set(FORMATS) == set(EXPORT_FORMATS)
    assert ExportConfig().formats == list(DEFAULT_EXPORTS)
    assert "curation" in EXPORT_FORMATS and "curation" not in DEFAULT_EXPORTS


def test_a_format_without_what_it_reads_is_one_line_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"lmms_eval reads the hf export; add it, e\.g\. "
                                          r"export\.formats=\[hf,lmms_eval\]"):
        _stage(["lmms_eval"])


def test_each_module_declares_its_format_as_read_from_its_source() -> None:
    import importlib

    assert EXPORT_FORMATS == ("questions", "hf", "lmms_eval", "xlebench", "egoschema",
                              "curation", "human_eval")
    for name, module in WRITERS.items():
        declared = importlib.import_module(module)
        assert declared.FORMAT == FORMATS[name] and callable(declared.write), name
