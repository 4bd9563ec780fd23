"""Translation validation's seeded input sets for every floating element type a graph input may declare.

Regression (the file fuzz, mutant 2486 of seed 1): a graph input declared FLOAT8E5M2 made
``sonnx rewrite`` end in an internal error, because NumPy's ``finfo`` refuses ml_dtypes' float8_e5m2 (whose
dtype kind is "f", unlike the other ml_dtypes types).
"""

from __future__ import annotations

import io
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from onnx import TensorProto, helper

from sonnx.base.errors import SonnxError
from sonnx.cli import main
from sonnx.execution.inputs.sets import SETS, input_sets
from sonnx.ops.values import numpy_dtype
from tests.common.rewrite_models import build, load, vi


def _floating(elem: int) -> bool:
    try:
        ml_dtypes.finfo(numpy_dtype(elem))
    except (ValueError, TypeError, SonnxError):
        return False
    return True


FLOATS = [e for e in TensorProto.DataType.values() if _floating(e)]
"""Every floating element type that onnx names and NumPy or ml_dtypes can hold."""


def _identity(tmp: Path, elem: int) -> Path:
    return build(tmp, [helper.make_node("Identity", ["x"], ["y"])], [vi("x", [2, 3], elem)], [vi("y", [2, 3], elem)],
                 opset=21, ir=14)  # IR 14 defines every element type (sonnx.loader.irfields)


@pytest.mark.parametrize("elem", FLOATS, ids=[TensorProto.DataType.Name(e) for e in FLOATS])
def test_every_input_set_has_the_declared_type(tmp_path: Path, elem: int) -> None:
    sets = input_sets(load(_identity(tmp_path, elem)), seed=3)
    assert sorted(sets) == sorted(SETS)
    for feeds in sets.values():
        assert feeds["x"].dtype == numpy_dtype(elem) and feeds["x"].shape == (2, 3)


def test_rewrite_of_a_float8_e5m2_model_is_validated_not_an_internal_error(tmp_path: Path) -> None:
    # Identity: onnx's checker accepts float8 there (its Softmax does not, and rewrite refuses what it rejects)
    path = build(tmp_path, [helper.make_node("Identity", ["x"], ["y"])],
                 [vi("x", [1, 4], TensorProto.FLOAT8E5M2)], [vi("y", [1, 4], TensorProto.FLOAT8E5M2)], opset=21, ir=10)
    out, err = io.StringIO(), io.StringIO()
    code = main(["rewrite", "-q", str(path), str(tmp_path / "out.onnx")], stdout=out, stderr=err)
    assert "internal error" not in err.getvalue()
    assert code == 0, err.getvalue()
    assert (tmp_path / "out.onnx").exists()
    extreme = input_sets(load(path), seed=0)["extreme"]["x"].astype(np.float32)
    assert np.isfinite(extreme).any()
