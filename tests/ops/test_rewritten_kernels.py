"""Kernels rewritten for speed give, bit for bit, what their earlier, plainer form gave.

The earlier forms are kept here as the reference: the executor is the oracle
the cross-check trusts, so a faster kernel may change how many passes it makes
over memory, never an operation or its rounding.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from sonnx.ops.op_sigmoid import sigmoid_

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 88.0, -88.0, 104.0, -104.0, 1e4, -1e4]


def sigmoid_before(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    one = np.ones((), dtype=x.dtype)
    return np.where(x >= 0, one / (one + e), e / (one + e)).astype(x.dtype, copy=False)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("shape", [(), (7,), (3, 50, 41)])
def test_sigmoid_bits(dtype: type, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape))
    x = (rng.standard_normal(shape) * 12).astype(dtype)
    if x.size >= len(SPECIAL):
        x.reshape(-1)[: len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    with np.errstate(all="ignore"):
        got = sigmoid_(x)
        want = sigmoid_before(x)
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_slice_and_split_give_views_of_their_input() -> None:
    """No copy where a view is exact: the parts share the input's memory and hold its elements."""
    from sonnx.ops.op_slice import slice_attributes
    from sonnx.ops.op_split import split_13

    x = np.arange(2 * 6 * 5, dtype=np.float32).reshape(2, 6, 5)
    part = slice_attributes(x, starts=[3], ends=[6], axes=[1])
    assert np.shares_memory(part, x)
    np.testing.assert_array_equal(part, x[:, 3:6])
    pieces = split_13(x, np.array([2, 4], dtype=np.int64), axis=1)
    assert all(np.shares_memory(p, x) for p in pieces)
    np.testing.assert_array_equal(np.concatenate(pieces, axis=1), x)
    assert [p.shape for p in pieces] == [(2, 2, 5), (2, 4, 5)]


def test_erf_float32_rounds_as_the_float64_erf() -> None:
    """The faster float32 Erf gives erf(x) rounded to float32, bit for bit, near midpoints too."""
    from sonnx.ops import _erf
    from sonnx.ops.op_erf import erf

    rng = np.random.default_rng(17)
    x = np.concatenate(
        [
            rng.standard_normal(300_000) * 2,
            np.linspace(-7, 7, 100_001),
            10.0 ** rng.uniform(-45, 1, 20_000) * rng.choice([-1.0, 1.0], 20_000),
            np.array([*SPECIAL, 1e-45, -1e-45, 2.0, -2.0, 6.0, -6.0]),
        ]
    ).astype(np.float32)
    with np.errstate(all="ignore"):
        want = _erf.erf(x.astype(np.float64)).astype(np.float32)
        got = erf(x.reshape(4, -1) if x.size % 4 == 0 else x)
    assert got.dtype == np.float32
    assert got.reshape(-1).tobytes() == want.tobytes()
    # some elements of the sample lie near a float32 midpoint and took the double-double path
    y = _erf._series_float64(np.abs(x[np.abs(x) < 2].astype(np.float64)))
    assert _erf._near_float32_midpoint(y, y.astype(np.float32)).sum() > 10
    assert erf(np.float32(0.5) * np.ones((), np.float32)).shape == ()


def test_erf_float64_series_error_is_far_inside_the_margin() -> None:
    """The plain float64 series is within FAST_ERROR (relative) of the double-double erf on [0, 2); the margin is
    1.5e-11."""
    from sonnx.ops import _erf

    x = np.linspace(0, 2, 400_001)[:-1]
    fast = _erf._series_float64(x)
    precise = _erf.erf(x)
    relative = np.abs(fast - precise) / np.maximum(np.abs(precise), np.finfo(np.float64).tiny)
    assert relative.max() < _erf.FAST_ERROR < _erf.MIDPOINT_MARGIN / 20


def test_erf_float64_series_truncation_bound() -> None:
    """The bound the float32 path's proof uses: the first term left out, over the smallest sum, below 5e-13."""
    import math
    from fractions import Fraction

    from sonnx.ops import _erf

    n = _erf.FAST_TERMS
    left_out = Fraction(4**n, math.factorial(n) * (2 * n + 1))
    assert left_out < Fraction(22, 10**14) and left_out / Fraction(441, 1000) < Fraction(5, 10**13)
    assert math.erf(2.0) * math.sqrt(math.pi) / 4 > 0.441


def _midpoint_sample(count: int, seed: int) -> np.ndarray:
    """float32 values in (-2, 2) whose fast series value lies near a float32 midpoint (they are recomputed)."""
    from sonnx.ops import _erf

    x = np.random.default_rng(seed).uniform(-2, 2, 400_000).astype(np.float32)
    a = np.abs(x.astype(np.float64))
    y = _erf._series_float64(a)
    near = x[_erf._near_float32_midpoint(y, y.astype(np.float32))]
    assert near.size >= count
    return near[:count]


def test_erf_series_of_one_float_is_the_array_series_bit_for_bit() -> None:
    """``series_scalar`` does the double-double series's operations on a Python float: the same doubles."""
    from sonnx.ops import _erf

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(0, 2, 3000), np.abs(_midpoint_sample(100, 4)).astype(np.float64),
                        [0.0, 5e-324, 1e-300, 1e-8, 0.5, 1.0, 1.9999999999999998]])
    want = _erf._series(x)
    got = np.array([_erf.series_scalar(v) for v in x.tolist()])
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("size", [1, 7, 2176])
def test_erf_float32_with_few_elements_to_recompute_rounds_as_the_float64_erf(size: int) -> None:
    """A small tensor whose few near-midpoint elements take the one-float path gives the same bits as erf."""
    from sonnx.ops import _erf
    from sonnx.ops.op_erf import erf

    rng = np.random.default_rng(size)
    hard = _midpoint_sample(min(size, _erf.SCALAR_REDO), size)
    x = rng.standard_normal(size).astype(np.float32) * 2
    x[: hard.size] = hard
    x = rng.permutation(x)
    assert 0 < hard.size <= _erf.SCALAR_REDO  # the one-float path, not the array erf
    with np.errstate(all="ignore"):
        want = _erf.erf(x.astype(np.float64)).astype(np.float32)
    got = erf(x)
    assert got.dtype == np.float32 and got.tobytes() == want.tobytes()


def _layouts(x: np.ndarray) -> list[np.ndarray]:
    """``x`` itself, a transposed view, a reversed view, and an unaligned copy (the layouts a kernel may get)."""
    raw = np.empty(x.nbytes + 1, dtype=np.uint8)[1:].view(x.dtype).reshape(x.shape)
    raw[...] = x
    return [x, np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2), x[..., ::-1], raw]


@pytest.mark.parametrize("xtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("stash", [np.float32, np.float64, ml_dtypes.bfloat16])
@pytest.mark.parametrize("divide", [False, True])
def test_standardize_bits(xtype: type, stash: type, divide: bool) -> None:
    from sonnx.ops._normalize import standardize, standardize_stepwise

    rng = np.random.default_rng(5)
    cases = [((3, 7, 33), (2,)), ((2, 5, 9, 17), (2, 3)), ((1, 16, 32), (1, 2)), ((4, 1), (1,)), ((2, 3000), (1,)),
             ((2, 0, 3), (2,))]
    for shape, axes in cases:
        x = (rng.standard_normal(shape) * 40 + 3).astype(xtype)
        if x.size > 5:
            x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
        for layout in _layouts(x):
            for eps in (1e-5, 0.0):
                got = standardize(layout, axes, eps, np.dtype(stash), divide=divide)
                want = standardize_stepwise(layout, axes, eps, np.dtype(stash), divide=divide)
                for g, w in zip(got, want, strict=True):
                    assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()


@pytest.mark.parametrize("shape", [(), (3,), (1, 3), (2, 1, 3), (0,), (4, 0)])
def test_unidirectional_broadcast_is_numpys(shape: tuple[int, ...]) -> None:
    from sonnx.ops._broadcast import broadcasts_to

    for target in [(), (3,), (1,), (2, 3), (2, 1, 3), (5, 2, 4, 3), (0,), (4, 0), (4, 1), (2, 0, 3)]:
        try:
            want = np.broadcast_shapes(shape, target) == target
        except ValueError:
            want = False
        assert broadcasts_to(shape, target) == want, (shape, target)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int8, np.int32, np.int64])
@pytest.mark.parametrize("size", [0, 1, 8191, 8192, 8193, 3 * 4096 + 17, 200_000])
def test_relu_bits(dtype: type, size: int) -> None:
    """Relu row by row against a row of zeros gives np.maximum(x, 0)'s bits: signed zeros, NaN payloads."""
    from sonnx.ops.op_relu import relu

    rng = np.random.default_rng(size)
    x = (rng.standard_normal(size) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -np.nan], dtype=dtype)
        x[: min(size, special.size)] = special[: min(size, special.size)]
        if dtype is np.float32 and size > 8:  # NaNs with payloads and signs
            x.view(np.uint32)[6:9] = [0x7FC00001, 0xFFC12345, 0x7F800001]
    zero = np.zeros((), dtype=dtype)
    for layout in (x, x.reshape(-1, 1) if size else x, x[::-1]):
        want = np.maximum(layout, zero)
        got = relu(layout)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_softmax_bits(dtype: type) -> None:
    """Softmax through the ufunc reductions gives what np.max and np.sum gave (masked rows included)."""
    from sonnx.ops.op_softmax import softmax, softmax_1

    rng = np.random.default_rng(9)
    x = (rng.standard_normal((3, 5, 37)) * 9).astype(dtype)
    x[0, 0] = -np.inf
    x[1, 1, :4] = [np.inf, np.nan, -0.0, 0.0]

    def before(v: np.ndarray, axis: int) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            e = np.exp(v - np.max(v, axis=axis, keepdims=True))
            return (e / np.sum(e, axis=axis, keepdims=True)).astype(v.dtype, copy=False)

    for axis in (-1, 0, 1):
        assert softmax(x, axis=axis).tobytes() == before(x, axis).tobytes()
    assert softmax_1(x, axis=1).tobytes() == before(x.reshape(3, -1), 1).reshape(x.shape).tobytes()


def test_gather_indices_as_before() -> None:
    """Gather takes non-negative indices as they are and wraps negative ones: the values np.where gave."""
    from sonnx.ops.op_gather import gather

    data = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for dtype in (np.int32, np.int64):
        for idx in ([0, 3, 1], [[-1, 0], [2, -4]], [-1, 2], [], [3]):
            indices = np.array(idx, dtype=dtype)
            for axis in (1, -2):
                want = np.take(data, np.where(indices < 0, indices + 4, indices).astype(np.int64), axis=1)
                got = gather(data, indices, axis=axis)
                assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
    with pytest.raises(ValueError, match="outside"):
        gather(data, np.array([4]), axis=1)
    with pytest.raises(ValueError, match="outside"):
        gather(data, np.array([-5]), axis=1)


@pytest.mark.parametrize("exponent", [2.0, 3.0])
@pytest.mark.parametrize("ytype", [np.float32, np.float64])
def test_float32_square_and_cube_are_correctly_rounded(exponent: float, ytype: type) -> None:
    """Pow of float32 by 2 or 3 is the exact power rounded to nearest (within 0.5 ulp, the cube's double rounding
    aside), so within one ulp of np.power's powf and inside the spec's 2 ulp for Pow."""
    from fractions import Fraction

    from sonnx.ops.op_pow import pow_

    rng = np.random.default_rng(int(exponent))
    x = np.concatenate([rng.standard_normal(3000) * 3, 10.0 ** rng.uniform(-15, 15, 1000),
                        [0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1e-40, 1e-20, np.inf, -np.inf]]).astype(np.float32)
    x[::7] *= -1
    y = np.array(exponent, dtype=ytype)
    got = pow_(x, y)
    with np.errstate(all="ignore"):
        powf = np.power(x, y).astype(np.float32)
    assert got.dtype == np.float32 and got.shape == x.shape
    assert np.array_equal(np.isinf(got), np.isinf(powf)) and np.array_equal(np.signbit(got), np.signbit(powf))
    finite = np.isfinite(got)
    assert np.all(np.abs(got[finite].view(np.int32).astype(np.int64) - powf[finite].view(np.int32)) <= 1)
    for xi, gi in zip(x[finite].tolist(), got[finite].tolist(), strict=True):
        exact = Fraction(xi) ** int(exponent)
        ulp = Fraction(float(np.spacing(np.float32(min(abs(float(exact)), 3.4e38)))))
        assert abs(Fraction(gi) - exact) <= ulp * (Fraction(1, 2) + Fraction(1, 2**20)), (xi, gi)
    nan = pow_(np.array([np.nan, 2.0], np.float32), y)
    assert np.isnan(nan[0]) and nan[1] == 2.0**exponent
    other = np.array([1.5, -2.0], np.float32)  # any other exponent goes through np.power
    with np.errstate(invalid="ignore"):
        assert pow_(other, np.array(2.5, np.float32)).tobytes() == np.power(other, np.float32(2.5)).tobytes()


def _every_float32(low: float, high: float) -> np.ndarray:
    """Every float32 in [low, high) (0 < low < high), in increasing order."""
    first, stop = np.array([low, high], dtype=np.float32).view(np.int32)
    return np.arange(first, stop, dtype=np.int32).view(np.float32)


def test_erf_float32_is_the_float64_erf_on_every_float32_from_2_to_6() -> None:
    """Where the float32 path cuts the continued fraction at FAST_DEPTH levels: every positive input (and every
    64th negative one: the sign is applied last, by ``copysign``)."""
    from sonnx.ops import _erf

    every = _every_float32(2.0, 6.0)
    assert every.size > 12_000_000 and every[0] == 2 and every[-1] == np.nextafter(np.float32(6), np.float32(0))
    for start in range(0, every.size, 1 << 20):
        x = every[start : start + (1 << 20)]
        x = np.concatenate([x, -x[::64]])
        want = _erf.erf(x.astype(np.float64)).astype(np.float32)
        assert _erf.erf_float32(x).tobytes() == want.tobytes()


def test_erf_shortened_fraction_is_within_its_bound_on_every_float32_from_2_to_6() -> None:
    """The denominators at depths FAST_DEPTH and FRACTION_DEPTH differ by at most the gap between depths FAST_DEPTH
    and FAST_DEPTH + 1, below 6.4e-11 relative (the bound the float32 path's proof uses; the test above checks every
    float32 of the range end to end)."""
    from sonnx.ops import _erf

    def denominator(x: np.ndarray, depth: int) -> np.ndarray:
        d = x.copy()
        for k in range(depth, 0, -1):
            d = x + (k / 2.0) / d
        return d

    every = _every_float32(2.0, 6.0)[::8].astype(np.float64)  # every eighth float32: 1.6 million inputs
    worst_gap = worst_cut = 0.0
    for start in range(0, every.size, 1 << 21):
        x = every[start : start + (1 << 21)]
        short = denominator(x, _erf.FAST_DEPTH)
        full = denominator(x, _erf.FRACTION_DEPTH)
        gap = np.abs(denominator(x, _erf.FAST_DEPTH + 1) - short) / short
        cut = np.abs(full - short) / short
        assert (cut <= gap * (1 + 1e-6) + 1e-15).all()
        worst_gap, worst_cut = max(worst_gap, float(gap.max())), max(worst_cut, float(cut.max()))
    assert worst_cut < worst_gap < 6.4e-11
    assert 0.0047 * 6.4e-11 + 4 * 2.0**-53 < 3.1e-13 < _erf.FAST_ERROR
    assert math.erfc(2.0) < 0.0047


def test_erf_short_series_truncation_bound() -> None:
    """Below SHORT_CUT = 1 the terms shrink; the first term left out over the smallest sum p(1) is below 3.4e-14."""
    from fractions import Fraction

    from sonnx.ops import _erf

    n = _erf.SHORT_TERMS
    assert _erf.SHORT_CUT == 1.0
    left_out = Fraction(1, math.factorial(n) * (2 * n + 1))
    assert left_out < Fraction(25, 10**15) and left_out / Fraction(746, 1000) < Fraction(34, 10**15)
    assert math.erf(1.0) * math.sqrt(math.pi) / 2 > 0.746
    # every term smaller than the one before for z <= 1: z (2k + 1) / ((k + 1) (2k + 3)) < 1
    assert all(Fraction(2 * k + 1, (k + 1) * (2 * k + 3)) < 1 for k in range(n))


def test_erf_short_series_error_is_far_inside_the_margin() -> None:
    """The short series on [0, 1) against the double-double erf (a grid), and against the long series on every float32
    of [0.5, 1): both within FAST_ERROR."""
    from sonnx.ops import _erf

    x = np.linspace(0, 1, 200_001)[:-1]
    short = _erf._series_float64(x, _erf.SHORT_TERMS)
    precise = _erf.erf(x)
    relative = np.abs(short - precise) / np.maximum(np.abs(precise), np.finfo(np.float64).tiny)
    assert relative.max() < _erf.FAST_ERROR
    every = _every_float32(0.5, 1.0).astype(np.float64)
    for start in range(0, every.size, 1 << 21):
        part = every[start : start + (1 << 21)]
        short, long = _erf._series_float64(part, _erf.SHORT_TERMS), _erf._series_float64(part)
        assert (np.abs(short - long) / long).max() < 2 * _erf.FAST_ERROR


@pytest.mark.parametrize("scale", [0.45, 3.0])
def test_erf_float32_both_block_forms_round_as_the_float64_erf(scale: float) -> None:
    """Activations mostly below SHORT_CUT (short series, the others gathered) and mostly above it (long series for
    the whole block), with special values among them: erf(x) rounded to float32, bit for bit."""
    from sonnx.ops import _erf

    rng = np.random.default_rng(int(scale * 100))
    x = (rng.standard_normal(200_000) * scale).astype(np.float32)
    x[: len(SPECIAL)] = np.array(SPECIAL, dtype=np.float32)
    x[len(SPECIAL) : len(SPECIAL) + 6] = [1.0, -1.0, np.nextafter(np.float32(1), np.float32(0)), 2.0, 1e-45, 6.0]
    x = rng.permutation(x)
    share = np.count_nonzero(np.abs(x[:32768]) >= _erf.SHORT_CUT) * _erf.WIDE_SHARE / 32768
    assert (share < 1) == (scale < 1)  # each block form is taken
    with np.errstate(all="ignore"):
        want = _erf.erf(x.astype(np.float64)).astype(np.float32)
    assert _erf.erf_float32(x).tobytes() == want.tobytes()


def test_erf_float32_recomputes_the_far_elements_near_a_midpoint() -> None:
    """The proof's safety net for 2 <= |x| < 6: an element whose faster value lies within MIDPOINT_MARGIN of a float32
    midpoint is recomputed by ``erf`` (on every float32 of the range the net happens never to change a bit, see
    above, but the proof rests on it)."""
    from sonnx.ops import _erf

    x = _every_float32(2.0, 4.0)[::16].astype(np.float64)
    _, redo = _erf._erf_float32_wide(x, np.abs(x))
    y = 1.0 - _erf._complement(x, _erf.FAST_DEPTH)
    near = np.flatnonzero(_erf._near_float32_midpoint(y, y.astype(np.float32)))
    assert near.size > 10
    assert np.array_equal(redo, near)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int8, np.int64])
@pytest.mark.parametrize("size", [0, 1, 8191, 8192, 3 * 4096 + 17, 200_000])
def test_relu_in_place_bits(dtype: type, size: int) -> None:
    """Relu written over its input gives Relu's bits (signed zeros, NaN payloads), in that very array."""
    from sonnx.ops.op_relu import relu, relu_in_place

    rng = np.random.default_rng(size + 1)
    x = (rng.standard_normal(size) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f" or dtype is ml_dtypes.bfloat16:
        special = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, -np.nan], dtype=dtype)
        x[: min(size, special.size)] = special[: min(size, special.size)]
        if dtype is np.float32 and size > 8:
            x.view(np.uint32)[6:9] = [0x7FC00001, 0xFFC12345, 0x7F800001]
    for layout in (x.reshape(-1, 1) if size else x, x[::-1], x.reshape(1, -1)[:, ::2]):
        want = relu(layout)
        spaced = np.empty(2 * layout.size, dtype=dtype)[::2].reshape(layout.shape)  # not contiguous
        for target in (layout.copy(), spaced):
            target[...] = layout
            got = relu_in_place(target)
            assert got is target
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
