"""The tiny random LLaVA every VLM test of this folder loads (a few MB, built once per
module)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlebench.testing.tiny_vlm import build_tiny_vlm


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm"))
