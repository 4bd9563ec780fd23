"""The tensor and element-wise kernels: version-specific unit tests.

ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest

from sonnx.ops.base import Kernel, KernelRegistry
from sonnx.ops.catalog_tensor import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)


# -- version-specific semantics -----------------------------------------------------------------


def _fn(operator: str, opset: int) -> Any:
    kernel, _ = REGISTRY.lookup("", operator, opset)
    assert isinstance(kernel, Kernel)
    return kernel.fn


def _softmax_reference(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_11_normalises_the_flattened_trailing_part_and_13_one_axis() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    old = _fn("Softmax", 11)(x, axis=1)
    new = _fn("Softmax", 13)(x, axis=1)
    # 11: each of the 2 rows of 12 sums to 1; 13: each (i, :, k) column of 3 sums to 1
    np.testing.assert_allclose(old.reshape(2, 12).sum(axis=1), np.ones(2), rtol=1e-6)
    np.testing.assert_allclose(new.sum(axis=1), np.ones((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(old, _softmax_reference(x.reshape(2, 12), 1).reshape(2, 3, 4), rtol=1e-6)
    np.testing.assert_allclose(new, _softmax_reference(x, 1), rtol=1e-6)
    assert not np.allclose(old, new)
    # the two agree when axis is the last dimension
    np.testing.assert_allclose(_fn("Softmax", 11)(x, axis=2), _fn("Softmax", 13)(x, axis=2), rtol=1e-6)


def test_softmax_1_default_axis_is_1_and_13_is_last() -> None:
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(_fn("Softmax", 1)(x, axis=1), _fn("Softmax", 11)(x, axis=1))
    np.testing.assert_allclose(_fn("Softmax", 13)(x), _softmax_reference(x, -1), rtol=1e-6)
    with pytest.raises(ValueError, match="negative axis"):
        _fn("Softmax", 1)(x, axis=-1)


def test_softmax_large_inputs_do_not_overflow() -> None:
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(_fn("Softmax", 13)(x, axis=-1), [[0.5, 0.5], [0.0, 1.0]], atol=1e-7)


def test_reshape_allowzero() -> None:
    x = np.zeros((0, 3), dtype=np.float32)
    shape = np.array([3, 0], dtype=np.int64)
    assert _fn("Reshape", 14)(x, shape, allowzero=1).shape == (3, 0)
    with pytest.raises(ValueError):  # without allowzero, 0 copies dimension 1 (3): 9 elements wanted, 0 given
        _fn("Reshape", 14)(x, shape, allowzero=0)
    y = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert _fn("Reshape", 14)(y, np.array([0, -1], dtype=np.int64), allowzero=0).shape == (2, 3)
    with pytest.raises(ValueError, match="both 0 and -1"):
        _fn("Reshape", 14)(y, np.array([0, -1], dtype=np.int64), allowzero=1)
    with pytest.raises(ValueError, match="at most one"):
        _fn("Reshape", 14)(y, np.array([-1, -1], dtype=np.int64))


def test_reshape_1_uses_the_shape_attribute() -> None:
    x = np.arange(6, dtype=np.float32)
    out = _fn("Reshape", 1)(x, shape=[3, -1])
    np.testing.assert_array_equal(out, x.reshape(3, 2))
    with pytest.raises(ValueError, match="shape attribute"):
        _fn("Reshape", 1)(x)


@pytest.mark.parametrize("operator", ["Sub", "Mul", "Div"])
def test_legacy_broadcast_attribute(operator: str) -> None:
    a = np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4)
    b = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    ufunc = {"Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[operator]
    legacy = _fn(operator, 6)
    np.testing.assert_allclose(legacy(a, b, broadcast=1, axis=1), ufunc(a, b.reshape(1, 3, 1)))
    with pytest.raises(ValueError, match="broadcast is 0"):
        legacy(a, b, broadcast=0)
    # opset 7 broadcasts like NumPy: trailing alignment, no attribute
    c = np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32)
    np.testing.assert_allclose(_fn(operator, 7)(a, c), ufunc(a, c))


def test_legacy_comparison_and_gemm_broadcast() -> None:
    a = np.array([[1, 5], [3, 2]], dtype=np.int64)
    b = np.array([2, 3], dtype=np.int64)
    np.testing.assert_array_equal(_fn("Less", 1)(a, b, broadcast=1, axis=0), [[True, False], [False, True]])
    m = np.eye(2, dtype=np.float32)
    c = np.array([1.0, 2.0], dtype=np.float32)
    np.testing.assert_allclose(_fn("Gemm", 6)(m, m, c, broadcast=1), [[2.0, 2.0], [1.0, 3.0]])
    with pytest.raises(ValueError, match="broadcast is 0"):
        _fn("Gemm", 6)(m, m, c, broadcast=0)
    np.testing.assert_allclose(_fn("Gemm", 7)(m, m, c), [[2.0, 2.0], [1.0, 3.0]])
    with pytest.raises(ValueError, match="needs C"):
        _fn("Gemm", 9)(m, m)
    np.testing.assert_allclose(_fn("Gemm", 13)(m, m, None, alpha=2.0), 2 * m)


def test_integer_division_truncates_toward_zero() -> None:
    a = np.array([7, -7, 7, -7, 6], dtype=np.int32)
    b = np.array([2, 2, -2, -2, -3], dtype=np.int32)
    out = _fn("Div", 14)(a, b)
    np.testing.assert_array_equal(out, np.array([3, -3, -3, 3, -2], dtype=np.int32))
    assert out.dtype == np.int32
    with pytest.raises(ValueError, match="division by zero"):
        _fn("Div", 14)(a, np.zeros_like(a))


def test_dropout_inference() -> None:
    """Inference is the identity with an all-kept mask (training mode: tests/ops/test_sequence_kernels.py)."""
    x = np.arange(4, dtype=np.float32)
    out, mask = _fn("Dropout", 6)(x, is_test=1, ratio=0.5)
    np.testing.assert_array_equal(out, x)
    assert mask.dtype == np.float32 and np.all(mask == 1)
    out, mask = _fn("Dropout", 13)(x, np.array(0.5, dtype=np.float32), np.array(False))
    np.testing.assert_array_equal(out, x)
    assert mask.dtype == np.bool_ and mask.all()


def test_unsqueeze_squeeze_axes_attribute_then_input() -> None:
    x = np.zeros((3, 4), dtype=np.float32)
    assert _fn("Unsqueeze", 11)(x, axes=[0, -1]).shape == (1, 3, 4, 1)
    assert _fn("Unsqueeze", 13)(x, np.array([0, -1], dtype=np.int64)).shape == (1, 3, 4, 1)
    with pytest.raises(ValueError, match="negative axis"):
        _fn("Unsqueeze", 1)(x, axes=[-1])
    y = np.zeros((1, 3, 1), dtype=np.float32)
    assert _fn("Squeeze", 11)(y).shape == (3,)
    assert _fn("Squeeze", 13)(y, np.array([-1], dtype=np.int64)).shape == (1, 3)
    with pytest.raises(ValueError, match="not 1"):
        _fn("Squeeze", 13)(y, np.array([1], dtype=np.int64))


def test_split_needs_lengths_or_output_count() -> None:
    x = np.arange(7, dtype=np.float32)
    parts = _fn("Split", 18)(x, None, axis=0, num_outputs=3)
    assert [p.shape[0] for p in parts] == [3, 3, 1]
    with pytest.raises(ValueError, match="number of outputs"):
        _fn("Split", 13)(x, None, axis=0)
    with pytest.raises(ValueError, match="equal parts"):
        _fn("Split", 13)(x, None, axis=0, num_outputs=3)
    parts = _fn("Split", 2)(x, axis=0, split=[2, 5])
    assert [p.shape[0] for p in parts] == [2, 5]


def test_slice_negative_steps_and_clamping() -> None:
    x = np.arange(10)
    fn = _fn("Slice", 13)

    def i64(*v: int) -> np.ndarray:
        return np.array(v, dtype=np.int64)

    np.testing.assert_array_equal(fn(x, i64(-1), i64(-(2**63)), i64(0), i64(-1)), x[::-1])
    np.testing.assert_array_equal(fn(x, i64(20), i64(2), i64(0), i64(-3)), x[9:2:-3])
    np.testing.assert_array_equal(fn(x, i64(-20), i64(2**62), None, None), x)
    with pytest.raises(ValueError, match="step cannot be 0"):
        fn(x, i64(0), i64(3), i64(0), i64(0))
    np.testing.assert_array_equal(_fn("Slice", 1)(x, starts=[1], ends=[1000]), x[1:])


def test_constant_forms() -> None:
    fn = _fn("Constant", 13)
    assert fn(value_float=1.5).dtype == np.float32
    np.testing.assert_array_equal(fn(value_ints=[1, 2]), np.array([1, 2], dtype=np.int64))
    assert fn(value_strings=["a", "b"]).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="sparse_value"):
        fn(sparse_value=object())
    with pytest.raises(ValueError, match="exactly one"):
        fn(value_int=1, value_float=1.0)


def test_cast_1_takes_a_type_name() -> None:
    x = np.array([1.7, -1.7], dtype=np.float32)
    np.testing.assert_array_equal(_fn("Cast", 1)(x, to="INT32"), np.array([1, -1], dtype=np.int32))
    assert _fn("Cast", 13)(x, to=onnx.TensorProto.DOUBLE).dtype == np.float64
    assert _fn("Cast", 13)(x, to=onnx.TensorProto.BFLOAT16).dtype.name == "bfloat16"
    with pytest.raises(ValueError, match="unknown element type name"):
        _fn("Cast", 1)(x, to="FLOAT7")


def test_version_1_refuses_negative_axes_and_indices_that_later_versions_define() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    i64 = np.int64
    with pytest.raises(ValueError, match="negative axis"):
        _fn("Slice", 10)(x, np.array([0], i64), np.array([2], i64), np.array([-1], i64))
    np.testing.assert_array_equal(
        _fn("Slice", 11)(x, np.array([0], i64), np.array([2], i64), np.array([-1], i64)), x[:, :2]
    )
    with pytest.raises(ValueError, match="negative index"):
        _fn("Gather", 1)(x, np.array([-1], i64))
    np.testing.assert_array_equal(_fn("Gather", 11)(x, np.array([-1], i64)), x[[2]])
    with pytest.raises(ValueError, match="negative axis"):
        _fn("ArgMax", 1)(x, axis=-1)
    np.testing.assert_array_equal(_fn("ArgMax", 11)(x, axis=-1, keepdims=0), np.full(3, 3, dtype=i64))
    for op in ("ReduceSum", "ReduceMean", "ReduceMax"):
        with pytest.raises(ValueError, match="negative axis"):
            _fn(op, 1)(x, axes=[-1])
        assert _fn(op, 11)(x, axes=[-1]).shape == (3, 1)


def test_reductions_axes_input_and_noop() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    empty = np.array([], dtype=np.int64)
    np.testing.assert_array_equal(_fn("ReduceSum", 13)(x, empty, keepdims=0, noop_with_empty_axes=1), x)
    assert _fn("ReduceSum", 13)(x, empty, keepdims=0, noop_with_empty_axes=0) == np.float32(15)
    np.testing.assert_allclose(_fn("ReduceMean", 18)(x, np.array([1], np.int64), keepdims=1), [[1.0], [4.0]])
    out = _fn("ReduceMax", 20)(np.zeros((2, 0), np.float32), np.array([1], np.int64), keepdims=0)
    np.testing.assert_array_equal(out, [-np.inf, -np.inf])


def test_cast_strings() -> None:
    text = np.array(["+INF", "nan", "1E8", "-inf", "2.5"], dtype=object)
    np.testing.assert_array_equal(
        _fn("Cast", 13)(text, to=onnx.TensorProto.FLOAT),
        np.array([np.inf, np.nan, 1e8, -np.inf, 2.5], dtype=np.float32),
    )
    with pytest.raises(ValueError, match="not a number"):
        _fn("Cast", 13)(text[4:], to=onnx.TensorProto.INT32)
    out = _fn("Cast", 13)(np.array([1.5, np.nan, -np.inf], np.float32), to=onnx.TensorProto.STRING)
    assert out.tolist() == ["1.5", "NaN", "-INF"]


# -- MatMul: the summation order fixed by shapes and element type (spec reading A9) -------------


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((197, 1, 48), (48, 40)), ((3, 5, 7, 9), (9, 4)), ((2, 0, 6), (6, 3)), ((4, 3, 0), (0, 5)), ((1, 17, 8), (8, 8))],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_mat_mul_folds_the_batch_of_a_into_rows_when_b_is_a_matrix(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], dtype: type
) -> None:
    """``(..., M, K) @ (K, N)`` is the one ``(prod(...) * M, K) @ (K, N)`` product, bit for bit."""
    rng = np.random.default_rng(len(a_shape) + a_shape[0])
    a = (rng.standard_normal(a_shape) * 10).astype(dtype)
    b = (rng.standard_normal(b_shape) * 10).astype(dtype)
    got = _fn("MatMul", 13)(a, b)
    rows = np.matmul(a.reshape(int(np.prod(a_shape[:-1])), a_shape[-1]), b)
    want = rows.reshape(*a_shape[:-1], b_shape[1])
    assert got.dtype == np.dtype(dtype) and got.shape == np.matmul(a, b).shape
    assert got.tobytes() == want.tobytes()
    if dtype is np.int64:  # exact sums: the fold and the batched product agree
        np.testing.assert_array_equal(got, np.matmul(a, b))
    else:
        np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-4, atol=1e-3)


def test_mat_mul_order_depends_on_shapes_not_on_the_layout_of_a() -> None:
    """A transposed view and its contiguous copy give the same bits: only shapes and types choose the order."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((64, 1, 197)).astype(np.float32)
    a = base.transpose(2, 1, 0)  # (197, 1, 64), not contiguous
    b = rng.standard_normal((64, 96)).astype(np.float32)
    got = _fn("MatMul", 13)(a, b)
    assert got.tobytes() == _fn("MatMul", 13)(np.ascontiguousarray(a), b).tobytes()
    assert got.tobytes() == np.matmul(np.ascontiguousarray(a).reshape(197, 64), b).reshape(197, 1, 96).tobytes()


def test_mat_mul_refuses_a_summed_dimension_that_does_not_match() -> None:
    with pytest.raises(ValueError, match="summed dimension"):
        _fn("MatMul", 13)(np.ones((2, 3, 4), np.float32), np.ones((5, 6), np.float32))
    with pytest.raises(ValueError, match="element types"):
        _fn("MatMul", 13)(np.ones((2, 3, 4), np.float32), np.ones((4, 6), np.float64))
