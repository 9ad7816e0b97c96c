"""The export formats, each declared once: its name, whether it is written by default, and the
formats it reads — what the ``export.formats`` choices and defaults, the export stage's check
of what a format needs, and its writers are read from. Adding a format is its writer (a method
``_<name>`` of `xlebench.stages.export.ExportStage`, matched by a test), a line here and a
test that reads it back with the format's real reader.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExportFormat:
    name: str
    about: str
    default: bool = True
    #: Formats this one reads (lmms-eval's tasks read the hf parquet files).
    needs: tuple[str, ...] = ()


FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("questions", "the questions-only view a system or a predictions submitter "
                 "reads: query, options, period and video under opaque ids, no answer"),
    ExportFormat("hf", "one parquet file per subtask with one Arrow schema, the life-log "
                 "table, the dataset card"),
    ExportFormat("lmms_eval", "lmms-eval task folders reading the hf files", needs=("hf",)),
    ExportFormat("xlebench", "the X-LeBench release layout"),
    ExportFormat("egoschema", "multiple-choice items in EgoSchema's layout"),
    ExportFormat("curation", "a sheet for raters (on request)", default=False),
)}
EXPORT_FORMATS = tuple(FORMATS)
#: Written unless export.formats says otherwise.
DEFAULT_EXPORTS = tuple(f.name for f in FORMATS.values() if f.default)
