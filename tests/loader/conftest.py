"""Fixtures shared by the loader tests: writing small ONNX models into ``tmp_path``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import onnx
import pytest


@pytest.fixture
def save(tmp_path: Path) -> Callable[..., str]:
    """``save(model_or_bytes, name="m.onnx") -> path``: write a model into the test's folder."""

    def _save(model: onnx.ModelProto | bytes, name: str = "m.onnx") -> str:
        path = tmp_path / name
        data = model if isinstance(model, bytes) else model.SerializeToString()
        path.write_bytes(data)
        return str(path)

    return _save
