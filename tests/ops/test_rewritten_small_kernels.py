"""Kernels whose per-call work was cut for small tensors give, bit for bit, what their former form gave.

The recurrent time loop without per-entry selection when every batch entry
runs all steps (against the selecting loop, which runs for partial
lengths), the overflow switch of the recurrent loop, Resize's remembered
taps, and the short paths of Gather, Flatten, Expand, Constant and the
recurrent compute type.
"""

from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest


def _run_selecting_always(
    xw: np.ndarray, lengths: np.ndarray, backwards: bool, initial: tuple[np.ndarray, ...], step: Any
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """The recurrent time loop as it was: the selecting loop whatever the lengths, overflow warnings off."""
    from sonnx.ops import _recurrent

    with np.errstate(over="ignore"):
        return _recurrent.run_selecting(xw, lengths, backwards, initial, step)


@pytest.mark.parametrize("operator", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_recurrent_full_length_loop_bits(operator: str, dtype: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch entry running all T steps (no ``sequence_lens``, or all of them T): the same bits as the former
    loop, forwards, backwards and both ways, in both layouts, with large values that saturate the gates."""
    from sonnx.ops import _recurrent
    from sonnx.ops.base import Kernel, KernelRegistry
    from sonnx.ops.catalog_sequence_models import MODULES

    registry = KernelRegistry(k for m in MODULES for k in m.KERNELS)
    kernel, _ = registry.lookup("", operator, 22)
    assert isinstance(kernel, Kernel)
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[operator]
    rng = np.random.default_rng(gates)
    seq, batch, size, hidden = 6, 3, 5, 4
    for direction, layout, given_lens in itertools.product(("forward", "reverse", "bidirectional"), (0, 1), (0, 1)):
        nd = 2 if direction == "bidirectional" else 1
        x = (rng.standard_normal((seq, batch, size) if layout == 0 else (batch, seq, size)) * 4).astype(dtype)
        x.reshape(-1)[:3] = np.array([-0.0, 0.0, 60.0], dtype=dtype)
        w = rng.standard_normal((nd, gates * hidden, size)).astype(dtype)
        r = rng.standard_normal((nd, gates * hidden, hidden)).astype(dtype)
        b = rng.standard_normal((nd, 2 * gates * hidden)).astype(dtype)
        lens = np.full(batch, seq, dtype=np.int32) if given_lens else None
        attrs: dict[str, Any] = {"direction": direction, "hidden_size": hidden, "layout": layout}
        with np.errstate(all="ignore"):
            got = kernel.fn(x, w, r, b, lens, **attrs)
            with monkeypatch.context() as patch:
                patch.setattr(_recurrent, "run_direction", _run_selecting_always)
                want = kernel.fn(x, w, r, b, lens, **attrs)
        got_t = got if isinstance(got, tuple) else (got,)
        want_t = want if isinstance(want, tuple) else (want,)
        assert len(got_t) == len(want_t)
        for g, e in zip(got_t, want_t, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape and g.tobytes() == e.tobytes()


def test_resize_taps_remembered_per_axis_plan_and_attributes() -> None:
    """Resize keeps each axis's taps for the next run: every mode on one shape, in one order, gives the bits it gives
    computed afresh (the remembered taps cleared before each), and the remembered arrays cannot be changed."""
    from sonnx.ops import op_resize

    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 3, 7, 9)).astype(np.float32)
    scales = np.array([1, 1, 1.75, 0.6], dtype=np.float32)
    cases = [
        {"mode": mode, "coordinate_transformation_mode": coords, "nearest_mode": nearest, "exclude_outside": excl}
        for mode in ("nearest", "linear", "cubic")
        for coords in ("half_pixel", "asymmetric", "align_corners", "tf_crop_and_resize")
        for nearest in ("floor", "round_prefer_ceil")
        for excl in (0, 1)
    ]
    roi = np.array([0, 0, 0.1, -0.2, 1, 1, 0.8, 1.1], dtype=np.float32)
    op_resize._axis_taps.cache_clear()
    resize = op_resize._resize_factory(19)
    for case in cases:
        resize(x, roi, scales, **case)
    misses = op_resize._axis_taps.cache_info().misses
    remembered = [resize(x, roi, scales, **case) for case in cases]
    assert op_resize._axis_taps.cache_info().misses == misses  # the second runs took every axis's taps remembered
    for case, got in zip(cases, remembered, strict=True):
        op_resize._axis_taps.cache_clear()
        fresh = resize(x, roi, scales, **case)
        assert got.tobytes() == fresh.tobytes(), case
    _, idx, w = op_resize._axis_taps(op_resize.AxisPlan(7, 12, 1.75, 12.25), "half_pixel", "linear", "floor",
                                     -0.75, False, False)
    assert w is not None
    with pytest.raises(ValueError, match="read-only"):
        idx[0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        w[0, 0] = 1.0


def test_small_kernels_short_paths() -> None:
    """The short paths of Gather (one index), Flatten, Expand, Constant and the recurrent compute type keep the
    results and the refusals of the general ones."""
    from sonnx.ops._recurrent import compute_dtype
    from sonnx.ops.op_constant import constant
    from sonnx.ops.op_expand import expand
    from sonnx.ops.op_flatten import flatten
    from sonnx.ops.op_gather import gather

    data = np.arange(5 * 3).reshape(5, 3)
    for i in range(-5, 5):
        for dtype in (np.int64, np.int32, np.uint8):
            if i < 0 and dtype == np.uint8:
                continue
            got = gather(data, np.array(i, dtype=dtype))
            assert got.shape == (3,) and np.array_equal(got, data[i])
    for bad in (-6, 5):
        with pytest.raises(ValueError, match="outside"):
            gather(data, np.array(bad))
    with pytest.raises(ValueError, match="integers"):
        gather(data, np.array(1.0))
    assert gather(data, np.zeros((0,), dtype=np.int64)).shape == (0, 3)
    x = np.zeros((2, 0, 3, 4))
    for axis in range(-4, 5):
        got = flatten(x, axis)
        a = axis % 4 if axis < 4 else 4
        assert got.shape == (int(np.prod(x.shape[:a])), int(np.prod(x.shape[a:])))
    assert expand(np.ones((1, 3)), np.array([2, 1], dtype=np.int32)).shape == (2, 3)
    with pytest.raises(ValueError, match="integer"):
        expand(np.ones((1, 3)), np.array([2.0, 1.0]))
    value = np.arange(3.0)
    copied = constant(value=value)
    assert np.array_equal(copied, value) and not np.shares_memory(copied, value)
    with pytest.raises(ValueError, match="exactly one"):
        constant(value=value, value_int=1)
    assert constant(value_ints=[1, 2]).dtype == np.int64
    assert [compute_dtype(np.dtype(t)) for t in (np.float16, np.float32, np.float64)] == [
        np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)]
    assert compute_dtype(np.dtype(ml_dtypes.bfloat16)) == np.dtype(np.float32)


@pytest.mark.parametrize("operator", ["GRU", "LSTM"])
def test_recurrent_saturated_sigmoid_gates_raise_no_warning(operator: str) -> None:
    """The sigmoid of a very negative pre-activation overflows exp to inf and gives 0, on purpose: no warning."""
    import warnings

    from sonnx.ops.base import Kernel, KernelRegistry
    from sonnx.ops.catalog_sequence_models import MODULES

    registry = KernelRegistry(k for m in MODULES for k in m.KERNELS)
    kernel, _ = registry.lookup("", operator, 22)
    assert isinstance(kernel, Kernel)
    gates = {"GRU": 3, "LSTM": 4}[operator]
    x = np.array([[[1e4, 1e4]], [[-1e4, -1e4]]], dtype=np.float32)  # [T=2, B=1, I=2]
    w = np.ones((1, gates * 3, 2), dtype=np.float32)
    r = np.zeros((1, gates * 3, 3), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y, *_ = kernel.fn(x, w, r, hidden_size=3, direction="reverse" if operator == "GRU" else "forward")
    assert np.isfinite(y).all()
