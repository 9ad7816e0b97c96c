"""The export formats, each declared once, in its own module: ``FORMAT = ExportFormat(...)`` in
``xlebench/export/<module>.py`` beside the module's ``write(out, items, logs, job)``. Read here
from the modules' source (`xlebench.config.declared`): the ``export.formats`` choices and
defaults and the export stage's check of what a format reads come from the declarations, and
the stage calls the declaring module's writer. Adding a format is its module and a test that
reads it back with the format's real reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xlebench.config.declared import read_declarations


@dataclass(frozen=True)
class ExportFormat:
    name: str
    about: str
    #: Its place among the formats: in the default list and among the export stage's units.
    order: int
    default: bool = True
    #: Formats this one reads (lmms-eval's tasks read the hf parquet files).
    needs: tuple[str, ...] = ()


#: Where the formats' modules are.
_MODULES = Path(__file__).resolve().parents[1] / "export"


def declared_formats(folder: Path = _MODULES) -> dict[str, tuple[str, ExportFormat]]:
    """``{name: (module, declaration)}`` of the formats declared in ``folder``, in order."""
    found = read_declarations(folder, "FORMAT", ExportFormat)
    return {f.name: (f"xlebench.export.{stem}", f)
            for stem, f in sorted(found, key=lambda sf: sf[1].order)}


_DECLARED = declared_formats()
FORMATS: dict[str, ExportFormat] = {name: f for name, (_, f) in _DECLARED.items()}
#: The module whose ``write`` writes each format.
WRITERS: dict[str, str] = {name: module for name, (module, _) in _DECLARED.items()}
EXPORT_FORMATS = tuple(FORMATS)
#: Written unless export.formats says otherwise.
DEFAULT_EXPORTS = tuple(f.name for f in FORMATS.values() if f.default)
