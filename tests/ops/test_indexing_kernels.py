"""The gather, scatter, selection, Einsum, Det and loss kernels: version differences, refusals, edge cases.

ONNX backend conformance of every kernel runs in tests/conformance through the loader and executor.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from sonnx.ops.base import Kernel, KernelRegistry
from sonnx.ops.catalog_indexing import MODULES

REGISTRY = KernelRegistry(k for m in MODULES for k in m.KERNELS)


def _fn(operator: str, opset: int) -> Any:
    kernel, _ = REGISTRY.lookup("", operator, opset)
    assert isinstance(kernel, Kernel)
    return kernel.fn


I64 = np.int64


# -- GatherElements / GatherND ------------------------------------------------------------------


def test_gather_elements_indices_smaller_than_data_and_negative_axis() -> None:
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    idx = np.array([[3, -1], [0, 1]], dtype=np.int32)  # 2 x 2 inside 3 x 4, axis -1
    out = _fn("GatherElements", 13)(data, idx, axis=-1)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[3, 3], [4, 5]])


def test_gather_elements_refusals_and_empty() -> None:
    data = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="index 3 outside"):
        _fn("GatherElements", 11)(data, np.array([[3]], dtype=I64), axis=1)
    with pytest.raises(ValueError, match="larger than data"):
        _fn("GatherElements", 11)(data, np.zeros((3, 1), dtype=I64), axis=1)
    with pytest.raises(ValueError, match="axis 2 outside"):
        _fn("GatherElements", 11)(data, np.zeros((1, 1), dtype=I64), axis=2)
    with pytest.raises(ValueError, match="must be integers"):
        _fn("GatherElements", 11)(data, np.zeros((1, 1), dtype=np.float32))
    assert _fn("GatherElements", 13)(data, np.zeros((0, 3), dtype=I64)).shape == (0, 3)


def test_gather_nd_batch_dims_slices_and_negative_indices() -> None:
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[[-1], [0]], [[1], [1]]], dtype=I64)  # batch 2, two 1-tuples each
    out = _fn("GatherND", 13)(data, idx, batch_dims=1)
    np.testing.assert_array_equal(out, [[data[0, 2], data[0, 0]], [data[1, 1], data[1, 1]]])
    full = _fn("GatherND", 12)(data, np.array([[1, 2, 3], [0, -1, 0]], dtype=I64))
    np.testing.assert_array_equal(full, [23.0, 8.0])
    assert full.dtype == np.float32


def test_gather_nd_11_has_no_batch_dims_and_refusals() -> None:
    data = np.arange(4, dtype=I64).reshape(2, 2)
    np.testing.assert_array_equal(_fn("GatherND", 11)(data, np.array([[1], [0]], dtype=I64)), [[2, 3], [0, 1]])
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] = 0"):
        _fn("GatherND", 11)(data, np.zeros((2, 0), dtype=I64))
    with pytest.raises(ValueError, match=r"indices.shape\[-1\] = 3"):
        _fn("GatherND", 11)(data, np.zeros((1, 3), dtype=I64))
    with pytest.raises(ValueError, match="batch dimensions differ"):
        _fn("GatherND", 12)(data, np.zeros((3, 1), dtype=I64), batch_dims=1)
    with pytest.raises(ValueError, match="batch_dims 2"):
        _fn("GatherND", 12)(data, np.zeros((2, 1), dtype=I64), batch_dims=2)
    with pytest.raises(ValueError, match="index 2 outside"):
        _fn("GatherND", 13)(data, np.array([[2, 0]], dtype=I64))
    assert _fn("GatherND", 13)(data, np.zeros((0, 1), dtype=I64)).shape == (0, 2)


# -- ScatterElements / Scatter / ScatterND --------------------------------------------------------


def test_scatter_elements_none_with_duplicates_keeps_the_last_write() -> None:
    data = np.zeros((2, 3), dtype=np.float32)
    idx = np.array([[1, 1, 0], [1, 0, 0]], dtype=I64)
    upd = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    out = _fn("ScatterElements", 18)(data, idx, upd, axis=1)
    # row 0: positions 1, 1, 0 -> the 2.0 written after 1.0 wins; row 1: position 0 gets 6.0 (after 5.0)
    np.testing.assert_array_equal(out, [[3.0, 2.0, 0.0], [6.0, 4.0, 0.0]])
    out0 = _fn("ScatterElements", 11)(data[:1], np.array([[2, 2, 2]], dtype=I64), upd[:1], axis=-1)
    np.testing.assert_array_equal(out0, [[0.0, 0.0, 3.0]])


@pytest.mark.parametrize(
    "reduction,want",
    [("add", [8.0, 5.0, 2.0]), ("mul", [8.0, 6.0, 2.0]), ("max", [4.0, 3.0, 2.0]), ("min", [1.0, 2.0, 2.0])],
)
def test_scatter_elements_reductions_accumulate_duplicates(reduction: str, want: list[float]) -> None:
    data = np.array([1.0, 2.0, 2.0], dtype=np.float32)
    idx = np.array([0, 0, 1, 0], dtype=I64)
    upd = np.array([4.0, 2.0, 3.0, 1.0], dtype=np.float32)
    out = _fn("ScatterElements", 18)(data, idx, upd, reduction=reduction)
    np.testing.assert_array_equal(out, want)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(data, [1.0, 2.0, 2.0])  # the input is not modified


def test_scatter_elements_versions_admit_their_reductions_only() -> None:
    data = np.zeros(3, dtype=I64)
    idx = np.array([1], dtype=I64)
    upd = np.array([5], dtype=I64)
    np.testing.assert_array_equal(_fn("ScatterElements", 16)(data, idx, upd, reduction="mul"), [0, 0, 0])
    np.testing.assert_array_equal(_fn("ScatterElements", 16)(data, idx, upd, reduction=b"add"), [0, 5, 0])
    with pytest.raises(ValueError, match="reduction 'max'"):
        _fn("ScatterElements", 16)(data, idx, upd, reduction="max")
    with pytest.raises(ValueError, match="reduction 'add'"):
        _fn("ScatterElements", 13)(data, idx, upd, reduction="add")
    with pytest.raises(ValueError, match="updates have shape"):
        _fn("ScatterElements", 18)(data, idx, np.array([1, 2], dtype=I64))
    with pytest.raises(ValueError, match="index -4 outside"):
        _fn("ScatterElements", 18)(data, np.array([-4], dtype=I64), upd)


def test_scatter_9_refuses_negative_indices_and_11_counts_from_the_back() -> None:
    data = np.zeros((1, 4), dtype=np.float32)
    idx = np.array([[-1]], dtype=I64)
    upd = np.array([[7.0]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"outside \[0, s-1\]"):
        _fn("Scatter", 9)(data, idx, upd, axis=1)
    np.testing.assert_array_equal(_fn("Scatter", 11)(data, idx, upd, axis=1), [[0.0, 0.0, 0.0, 7.0]])
    np.testing.assert_array_equal(_fn("Scatter", 9)(data, idx + 2, upd, axis=1), [[0.0, 7.0, 0.0, 0.0]])


def test_scatter_nd_slices_duplicates_and_reductions() -> None:
    data = np.zeros((3, 2), dtype=np.int32)
    idx = np.array([[1], [-1], [1]], dtype=I64)
    upd = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32)
    np.testing.assert_array_equal(_fn("ScatterND", 11)(data, idx, upd), [[0, 0], [5, 6], [3, 4]])
    np.testing.assert_array_equal(_fn("ScatterND", 16)(data, idx, upd, reduction="add"), [[0, 0], [6, 8], [3, 4]])
    ones = np.ones((3, 2), dtype=np.int32)
    np.testing.assert_array_equal(_fn("ScatterND", 18)(ones, idx, upd, reduction="mul"), [[1, 1], [5, 12], [3, 4]])
    with pytest.raises(ValueError, match="reduction 'min'"):
        _fn("ScatterND", 16)(data, idx, upd, reduction="min")
    with pytest.raises(ValueError, match="reduction 'add'"):
        _fn("ScatterND", 13)(data, idx, upd, reduction="add")
    with pytest.raises(ValueError, match="expected"):
        _fn("ScatterND", 18)(data, idx, upd[:, :1])
    with pytest.raises(ValueError, match="exceeds the rank"):
        _fn("ScatterND", 18)(data, np.zeros((1, 3), dtype=I64), np.zeros(1, dtype=np.int32))


def test_scatter_nd_element_tuples_and_whole_tensor() -> None:
    data = np.arange(4, dtype=np.float64).reshape(2, 2)
    out = _fn("ScatterND", 18)(data, np.array([[0, 1], [1, 0]], dtype=I64), np.array([9.0, 8.0]), reduction="max")
    np.testing.assert_array_equal(out, [[0.0, 9.0], [8.0, 3.0]])
    # k = 0: every update replaces the whole tensor; the last one wins
    whole = _fn("ScatterND", 18)(data, np.zeros((2, 0), dtype=I64), np.stack([data + 1, data + 2]))
    np.testing.assert_array_equal(whole, data + 2)


# -- TensorScatter ---------------------------------------------------------------------------------


def test_tensor_scatter_defaults_to_position_zero_and_other_axes() -> None:
    cache = np.zeros((2, 3, 4, 1), dtype=np.float32)  # batch, heads, max_seq, dim; axis -2
    upd = np.ones((2, 3, 2, 1), dtype=np.float32)
    out = _fn("TensorScatter", 24)(cache, upd)
    np.testing.assert_array_equal(out[:, :, :, 0], np.tile([1.0, 1.0, 0.0, 0.0], (2, 3, 1)))
    # sequence axis 1 of a (batch, seq, dim) cache, per-sample write positions
    cache = np.zeros((2, 3, 2), dtype=np.int64)
    upd = np.array([[[1, 1]], [[2, 2]]], dtype=np.int64)
    out = _fn("TensorScatter", 24)(cache, upd, np.array([2, 0], dtype=I64), axis=1)
    np.testing.assert_array_equal(out, [[[0, 0], [0, 0], [1, 1]], [[2, 2], [0, 0], [0, 0]]])


def test_tensor_scatter_linear_overflow_refused_circular_wraps() -> None:
    cache = np.zeros((1, 3), dtype=np.float32)
    upd = np.array([[1.0, 2.0]], dtype=np.float32)
    with pytest.raises(ValueError, match="linear mode"):
        _fn("TensorScatter", 24)(cache, upd, np.array([2], dtype=I64), axis=1)
    out = _fn("TensorScatter", 24)(cache, upd, np.array([2], dtype=I64), axis=1, mode="circular")
    np.testing.assert_array_equal(out, [[2.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="batch axis"):
        _fn("TensorScatter", 24)(cache, upd, axis=0)
    with pytest.raises(ValueError, match="only 3"):
        _fn("TensorScatter", 24)(cache, np.zeros((1, 4), dtype=np.float32), axis=1, mode="circular")
    with pytest.raises(ValueError, match="mode 'ring'"):
        _fn("TensorScatter", 24)(cache, upd, axis=1, mode="ring")


# -- TopK --------------------------------------------------------------------------------------------


def test_top_k_ties_take_the_lower_index_first_for_both_ends() -> None:
    x = np.array([[3, 1, 3, 1, 2]], dtype=np.int32)
    v, i = _fn("TopK", 11)(x, np.array([4], dtype=I64), largest=1)
    np.testing.assert_array_equal(v, [[3, 3, 2, 1]])
    np.testing.assert_array_equal(i, [[0, 2, 4, 1]])
    v, i = _fn("TopK", 11)(x, np.array([4], dtype=I64), largest=0)
    np.testing.assert_array_equal(v, [[1, 1, 2, 3]])
    np.testing.assert_array_equal(i, [[1, 3, 4, 0]])
    assert v.dtype == np.int32 and i.dtype == np.int64


def test_top_k_versions_and_axis() -> None:
    x = np.array([[1.0, 5.0], [4.0, 2.0], [3.0, 6.0]], dtype=np.float32)
    v1, i1 = _fn("TopK", 1)(x, axis=0, k=2)
    v10, i10 = _fn("TopK", 10)(x, np.array([2], dtype=I64), axis=0)
    np.testing.assert_array_equal(v1, [[4.0, 6.0], [3.0, 5.0]])
    np.testing.assert_array_equal(i1, [[1, 2], [2, 0]])
    np.testing.assert_array_equal(v10, v1)
    np.testing.assert_array_equal(i10, i1)
    with pytest.raises(ValueError, match="k attribute"):
        _fn("TopK", 1)(x)
    # sorted = 0 returns the sorted order as well
    v, i = _fn("TopK", 24)(x, np.array([1], dtype=I64), axis=-1, sorted=0, largest=0)
    np.testing.assert_array_equal(v, [[1.0], [2.0], [3.0]])
    np.testing.assert_array_equal(i, [[0], [1], [0]])


def test_top_k_nan_is_largest_and_k_bounds() -> None:
    x = np.array([1.0, np.nan, 3.0], dtype=np.float64)
    v, i = _fn("TopK", 11)(x, np.array([2], dtype=I64))
    np.testing.assert_array_equal(i, [1, 2])
    assert np.isnan(v[0]) and v[1] == 3.0
    _, i = _fn("TopK", 11)(x, np.array([2], dtype=I64), largest=0)
    np.testing.assert_array_equal(i, [0, 2])
    v, i = _fn("TopK", 11)(x, np.array([0], dtype=I64))
    assert v.shape == (0,) and i.shape == (0,) and i.dtype == np.int64
    with pytest.raises(ValueError, match=r"k = 4 outside \[0, 3\]"):
        _fn("TopK", 11)(x, np.array([4], dtype=I64))
    with pytest.raises(ValueError, match=r"k = -1"):
        _fn("TopK", 11)(x, np.array([-1], dtype=I64))
    with pytest.raises(ValueError, match="one element"):
        _fn("TopK", 11)(x, np.array([1, 2], dtype=I64))


def test_top_k_bfloat16() -> None:
    x = np.array([0.5, 2.0, 2.0, -1.0], dtype=ml_dtypes.bfloat16)
    v, i = _fn("TopK", 24)(x, np.array([3], dtype=I64))
    assert v.dtype == x.dtype
    np.testing.assert_array_equal(v.astype(np.float32), [2.0, 2.0, 0.5])
    np.testing.assert_array_equal(i, [1, 2, 0])


# -- Unique --------------------------------------------------------------------------------------------


def test_unique_sorted_and_first_occurrence_order() -> None:
    x = np.array([[5, 2], [5, 9], [2, 7]], dtype=np.int16)
    y, first, inverse, counts = _fn("Unique", 11)(x)
    np.testing.assert_array_equal(y, [2, 5, 7, 9])
    np.testing.assert_array_equal(first, [1, 0, 5, 3])
    np.testing.assert_array_equal(inverse, [1, 0, 1, 3, 0, 2])
    np.testing.assert_array_equal(counts, [2, 2, 1, 1])
    assert y.dtype == np.int16 and first.dtype == inverse.dtype == counts.dtype == np.int64
    y, first, inverse, counts = _fn("Unique", 28)(x, sorted=0)
    np.testing.assert_array_equal(y, [5, 2, 9, 7])
    np.testing.assert_array_equal(first, [0, 1, 3, 5])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 2, 1, 3])
    np.testing.assert_array_equal(counts, [2, 2, 1, 1])


def test_unique_along_an_axis_unsorted() -> None:
    x = np.array([[3, 1, 3, 0], [4, 1, 4, 0]], dtype=np.float32)  # columns: (3,4) (1,1) (3,4) (0,0)
    y, first, inverse, counts = _fn("Unique", 11)(x, axis=1, sorted=0)
    np.testing.assert_array_equal(y, [[3, 1, 0], [4, 1, 0]])
    np.testing.assert_array_equal(first, [0, 1, 3])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 2])
    np.testing.assert_array_equal(counts, [2, 1, 1])
    y, first, inverse, counts = _fn("Unique", 11)(x, axis=-1)
    np.testing.assert_array_equal(y, [[0, 1, 3], [0, 1, 4]])
    np.testing.assert_array_equal(first, [3, 1, 0])
    np.testing.assert_array_equal(inverse, [2, 1, 2, 0])


def test_unique_nans_strings_and_empty() -> None:
    y, first, inverse, counts = _fn("Unique", 11)(np.array([np.nan, 1.0, np.nan], dtype=np.float32))
    np.testing.assert_array_equal(y, [1.0, np.nan])
    np.testing.assert_array_equal(first, [1, 0])
    np.testing.assert_array_equal(inverse, [1, 0, 1])
    np.testing.assert_array_equal(counts, [1, 2])
    y, first, _, counts = _fn("Unique", 11)(np.array(["b", "a", "b"], dtype=object))
    assert y.tolist() == ["a", "b"] and first.tolist() == [1, 0] and counts.tolist() == [1, 2]
    y, first, inverse, counts = _fn("Unique", 11)(np.zeros((0, 2), dtype=np.float32))
    assert y.shape == first.shape == inverse.shape == counts.shape == (0,)
    y, first, inverse, counts = _fn("Unique", 11)(np.zeros((2, 0), dtype=np.float32), axis=0)
    assert y.shape == (1, 0) and first.tolist() == [0] and inverse.tolist() == [0, 0] and counts.tolist() == [2]


# -- Einsum -----------------------------------------------------------------------------------------------


def test_einsum_implicit_output_puts_upper_case_first_and_ellipsis_in_front() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = _fn("Einsum", 12)(a, b, equation="aB,Bc")  # implicit: 'a' and 'c' occur once -> "ac"
    np.testing.assert_array_equal(out, a @ b)
    out = _fn("Einsum", 12)(b, a, equation="Bc,aB")  # -> "ac" still (ASCII order), i.e. (a @ b)
    np.testing.assert_array_equal(out, a @ b)
    out = _fn("Einsum", 12)(a, b, equation="Ab,bc")  # 'A' < 'c'
    np.testing.assert_array_equal(out, a @ b)
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    np.testing.assert_array_equal(_fn("Einsum", 28)(x, equation="...ij"), x)
    np.testing.assert_array_equal(_fn("Einsum", 28)(x, equation="i...j"), np.transpose(x, (1, 0, 2)))


def test_einsum_trace_scalar_and_dtype() -> None:
    m = np.arange(9, dtype=np.int32).reshape(3, 3)
    out = _fn("Einsum", 12)(m, equation="ii")
    assert out.shape == () and out.dtype == np.int32 and int(out) == 12
    h = np.full((4,), 0.5, dtype=np.float16)
    out = _fn("Einsum", 12)(h, h, equation="i , i -> ")
    assert out.dtype == np.float16 and float(out) == 1.0


@pytest.mark.parametrize(
    "equation,shapes,message",
    [
        ("ij,jk", [(2, 3)], "2 input terms for 1 inputs"),
        ("ij->j->i", [(2, 3)], "more than one '->'"),
        ("i1->i", [(2, 2)], "characters"),
        ("i....->i", [(2, 2)], "more than one ellipsis"),
        ("..i->i", [(2, 2)], "stray"),
        ("ijk", [(2, 3)], "rank 2"),
        ("i", [(2, 3)], "rank 2"),
        ("ij,jk", [(2, 3), (4, 5)], "label 'j' has sizes 3 and 4"),
        ("ij->k", [(2, 3)], "do not occur"),
        ("ij->ii", [(2, 2)], "repeated"),
        ("...i,...i", [(2, 3), (3,)], "stands for 1 axes in one term and 0"),
        ("...i->i", [(2, 3)], "output term has no '...'"),
    ],
)
def test_einsum_refuses_malformed_equations(equation: str, shapes: list[tuple[int, ...]], message: str) -> None:
    inputs = [np.zeros(s, dtype=np.float32) for s in shapes]
    with pytest.raises(ValueError, match=message):
        _fn("Einsum", 12)(*inputs, equation=equation)


def test_einsum_bfloat16() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=ml_dtypes.bfloat16)
    out = _fn("Einsum", 28)(a, a, equation="ij,jk->ik")
    assert out.dtype == a.dtype
    np.testing.assert_array_equal(out.astype(np.float32), [[7.0, 10.0], [15.0, 22.0]])


# -- Det ------------------------------------------------------------------------------------------------------


def test_det_shapes_and_types() -> None:
    m = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)
    out = _fn("Det", 11)(m)
    assert out.shape == () and out.dtype == np.float32
    np.testing.assert_allclose(out, 5.0, rtol=1e-6)
    batch = np.stack([m, 2 * m]).astype(np.float16)
    out = _fn("Det", 11)(batch)
    assert out.dtype == np.float16 and out.shape == (2,)
    np.testing.assert_allclose(out.astype(np.float32), [5.0, 20.0], rtol=1e-3)
    bf = _fn("Det", 22)(m.astype(ml_dtypes.bfloat16))
    assert bf.dtype == ml_dtypes.bfloat16 and float(bf) == 5.0
    with pytest.raises(ValueError, match=r"\[\*, M, M\]"):
        _fn("Det", 22)(np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match=r"\[\*, M, M\]"):
        _fn("Det", 22)(np.zeros(3, dtype=np.float32))


# -- NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss --------------------------------------------------------

# N = 2, C = 3, d1 = 2 (the log-probabilities are arbitrary numbers: the operator does not check them)
_X = np.array([[[1.0, 2.0], [2.0, 2.0], [3.0, 2.0]], [[0.0, 1.0], [2.0, 2.0], [1.0, 2.0]]], dtype=np.float32)
_T = np.array([[2, 1], [0, 2]], dtype=I64)
_W = np.array([0.5, 2.0, 0.25], dtype=np.float32)


def test_nll_reductions_with_weights_and_ignore_index() -> None:
    nll = _fn("NegativeLogLikelihoodLoss", 22)
    np.testing.assert_array_equal(nll(_X, _T, reduction="none"), [[-3.0, -2.0], [-0.0, -2.0]])
    np.testing.assert_allclose(nll(_X, _T), -7.0 / 4)
    np.testing.assert_allclose(nll(_X, _T, _W, reduction="sum"), -(0.75 + 4.0 + 0.0 + 0.5))
    np.testing.assert_allclose(nll(_X, _T, _W), -(0.75 + 4.0 + 0.0 + 0.5) / (0.25 + 2.0 + 0.5 + 0.25))
    # ignore label 2: only (0,1) and (1,0) remain; the mean divides by their weights
    np.testing.assert_allclose(nll(_X, _T, _W, ignore_index=2), -(4.0 + 0.0) / (2.0 + 0.5))
    np.testing.assert_allclose(nll(_X, _T, ignore_index=2), -(2.0 + 0.0) / 2)
    np.testing.assert_array_equal(nll(_X, _T, ignore_index=2, reduction="none"), [[0.0, -2.0], [-0.0, 0.0]])
    out = nll(_X, _T, reduction="sum")
    assert out.shape == () and out.dtype == np.float32


def test_nll_ignore_index_outside_the_classes_and_refusals() -> None:
    nll = _fn("NegativeLogLikelihoodLoss", 12)
    t = np.array([[-7, 1], [0, 2]], dtype=np.int32)
    np.testing.assert_allclose(nll(_X, t, ignore_index=-7, reduction="sum"), -(2.0 + 0.0 + 2.0))
    with pytest.raises(ValueError, match=r"label -7 outside \[0, 2\]"):
        nll(_X, t)
    with pytest.raises(ValueError, match="target shape"):
        nll(_X, _T[:, :1])
    with pytest.raises(ValueError, match="weight shape"):
        nll(_X, _T, _W[:2])
    with pytest.raises(ValueError, match="reduction 'max'"):
        nll(_X, _T, reduction="max")
    # every label ignored: the weighted mean is 0 / 0
    assert np.isnan(nll(_X, np.full_like(_T, 5), ignore_index=5))


def test_nll_float16_keeps_its_type() -> None:
    out = _fn("NegativeLogLikelihoodLoss", 13)(_X.astype(np.float16), _T, _W.astype(np.float16), reduction="none")
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, np.array([[-0.75, -4.0], [-0.0, -0.5]], dtype=np.float16))


def test_sce_log_prob_and_loss_agree_with_a_direct_computation() -> None:
    scores = np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]], dtype=np.float32)
    labels = np.array([2, 1], dtype=I64)
    loss, log_prob = _fn("SoftmaxCrossEntropyLoss", 13)(scores, labels, reduction="none")
    first = scores[0] - np.log(np.exp(scores[0]).sum())
    np.testing.assert_allclose(log_prob[0], first, rtol=1e-6)
    np.testing.assert_allclose(log_prob[1], [0.0, -1000.0, -2000.0], rtol=1e-6)  # no overflow
    np.testing.assert_allclose(loss, [-first[2], 1000.0], rtol=1e-6)
    assert loss.dtype == log_prob.dtype == np.float32
    mean12, _ = _fn("SoftmaxCrossEntropyLoss", 12)(scores, labels, np.array([1.0, 3.0, 1.0], dtype=np.float32))
    np.testing.assert_allclose(mean12, (-first[2] + 3000.0) / 4.0, rtol=1e-6)


def test_sce_k_dimensional_and_ignored() -> None:
    scores = np.zeros((1, 4, 2, 2), dtype=np.float64)  # uniform: every log-probability is log(1/4)
    labels = np.array([[[0, 3], [9, 1]]], dtype=I64)
    loss, log_prob = _fn("SoftmaxCrossEntropyLoss", 13)(scores, labels, ignore_index=9, reduction="none")
    assert loss.shape == (1, 2, 2) and log_prob.shape == (1, 4, 2, 2) and loss.dtype == np.float64
    np.testing.assert_allclose(loss, [[[np.log(4), np.log(4)], [0.0, np.log(4)]]])
    mean, _ = _fn("SoftmaxCrossEntropyLoss", 13)(scores, labels, ignore_index=9)
    np.testing.assert_allclose(mean, np.log(4))
    with pytest.raises(ValueError, match="label 9"):
        _fn("SoftmaxCrossEntropyLoss", 13)(scores, labels)
