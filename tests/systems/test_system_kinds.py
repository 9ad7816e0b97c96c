"""Systems are declared once (`xlebench.systems.registry.KINDS`): every list of them is read from
the declarations, and the module's and the README's tables name each one."""

from __future__ import annotations

from pathlib import Path

from xlebench.systems import registry as systems


def test_every_list_of_systems_is_read_from_the_declarations() -> None:
    assert systems.SYSTEMS == tuple(systems.KINDS)
    assert set(systems.FRAME_SYSTEMS) == {k.name for k in systems.KINDS.values() if k.frames}
    assert "end_to_end_grounding" in systems.FRAME_SYSTEMS


def test_the_docs_name_every_declared_system() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for name in systems.KINDS:
        assert f"``{name}``" in (systems.__doc__ or ""), name
        assert f"`{name}`" in readme, name
