"""Error figures of :func:`sonnx.differential.metrics.compare_arrays` and the tolerance policy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonnx.base.errors import UsageError
from sonnx.differential.metrics import Tolerance, compare_arrays, ulp_distance
from sonnx.differential.tolerance import DEFAULT_TOLERANCES

FLOATS = (np.float16, np.float32, np.float64)


def _json_ok(c: object) -> None:
    json.dumps(c.to_json(), allow_nan=False)  # type: ignore[attr-defined]


@pytest.mark.parametrize("dtype", FLOATS)
def test_identical_arrays_have_zero_error(dtype: type) -> None:
    a: np.ndarray = np.arange(-5, 7, dtype=dtype).reshape(3, 4) / dtype(3)
    c = compare_arrays(a, a.copy())
    assert c.ok and c.mismatch is None
    assert (c.max_abs, c.max_rel, c.max_ulp, c.outside, c.elements) == (0.0, 0.0, 0, 0, 12)
    assert c.worst == []
    _json_ok(c)


@pytest.mark.parametrize("dtype", FLOATS)
def test_adjacent_floats_are_one_ulp_apart(dtype: type) -> None:
    a: np.ndarray = np.array([1.0, -2.5, 1e-3, 0.0], dtype=dtype)
    b = np.nextafter(a, np.array(np.inf, dtype=dtype))
    assert ulp_distance(a, b).tolist() == [1, 1, 1, 1]
    c = compare_arrays(a, b)
    assert c.max_ulp == 1 and c.ok


def test_ulp_distance_crosses_zero_and_ignores_the_sign_of_zero() -> None:
    tiny = np.float32(1e-45)  # the smallest subnormal
    assert ulp_distance(np.array([-tiny]), np.array([tiny])).tolist() == [2]
    assert ulp_distance(np.array([-0.0], np.float32), np.array([0.0], np.float32)).tolist() == [0]
    # float64 extremes do not overflow: -inf to +inf is twice the bit pattern of +inf
    d = ulp_distance(np.array([-np.inf]), np.array([np.inf]))
    assert int(d[0]) == 2 * 0x7FF0000000000000


@given(st.floats(width=32, allow_nan=False, allow_infinity=False), st.floats(width=32, allow_nan=False))
def test_ulp_distance_is_symmetric_and_zero_only_on_equal(x: float, y: float) -> None:
    a, b = np.array([x], np.float32), np.array([y], np.float32)
    d = int(ulp_distance(a, b)[0])
    assert d == int(ulp_distance(b, a)[0])
    assert (d == 0) == (a[0] == b[0])


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_next_float32_is_one_ulp_away(x: float) -> None:
    a = np.array([x], np.float32)
    assert int(ulp_distance(a, np.nextafter(a, np.float32(np.inf)))[0]) == 1


@given(st.floats(width=32, allow_nan=False), st.floats(width=32, allow_nan=False))
def test_ulp_distance_counts_the_floats_in_between(x: float, y: float) -> None:
    lo, hi = sorted([np.float32(x), np.float32(y)])
    d = int(ulp_distance(np.array([lo]), np.array([hi]))[0])
    if d <= 3:  # walk it: d steps of nextafter lead from lo to hi (ignoring the two zeros)
        cur = lo
        for _ in range(d):
            cur = np.nextafter(cur, np.float32(np.inf))
            if cur == 0:
                cur = np.float32(0.0)
        assert cur == hi


def test_nan_in_the_same_place_is_equal_nan_against_a_number_is_outside() -> None:
    e = np.array([np.nan, 1.0, 2.0, np.nan], np.float32)
    a = np.array([np.nan, 1.0, np.nan, 3.0], np.float32)
    c = compare_arrays(e, a)
    assert not c.ok
    assert c.outside == 2 and c.nan_mismatches == 2
    assert c.max_abs == 0.0  # the figures are over the comparable elements
    assert [w.index for w in c.worst[:2]] == [(2,), (3,)]
    assert all(not w.within for w in c.worst[:2])
    _json_ok(c)


def test_infinities_of_the_same_sign_are_equal() -> None:
    e = np.array([np.inf, -np.inf, np.inf])
    c = compare_arrays(e, np.array([np.inf, -np.inf, 1e308]))
    assert c.outside == 1 and c.worst[0].index == (2,)
    assert c.max_abs == float("inf")
    assert c.to_json()["max_abs"] == "inf"
    _json_ok(c)
    big = np.array([np.finfo(np.float32).max], np.float32)
    overflow = compare_arrays(big, np.array([np.inf], np.float32), Tolerance(ulp=10))
    assert overflow.max_ulp == 1 and overflow.outside == 1  # one ULP away, but an overflow is never close


def test_relative_error_against_zero_is_infinite() -> None:
    c = compare_arrays(np.array([0.0, 1.0]), np.array([1e-300, 1.0]))
    assert c.max_rel == float("inf")
    assert c.ok  # but within atol
    assert c.to_json()["max_rel"] == "inf"


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_integers_and_booleans_are_compared_exactly(dtype: type) -> None:
    e: np.ndarray = np.array([1, 0, 1, 1], dtype=dtype)
    a = e.copy()
    a[2] = 0
    loose = Tolerance(atol=10.0, rtol=10.0, ulp=1000)
    c = compare_arrays(e, a, loose)
    assert not c.ok and c.outside == 1
    assert c.tolerance.exact and c.max_ulp is None
    assert c.worst[0].index == (2,) and c.worst[0].expected in (1, True)
    assert compare_arrays(e, e.copy(), loose).ok
    _json_ok(c)


def test_dtype_and_shape_mismatches_are_not_comparable() -> None:
    c = compare_arrays(np.zeros(3, np.float32), np.zeros(3, np.float64))
    assert not c.ok and c.mismatch is not None and "float32" in c.mismatch and c.max_abs is None
    c = compare_arrays(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))
    assert not c.ok and c.mismatch is not None and "[2, 3]" in c.mismatch
    assert c.summary().startswith("not comparable")
    _json_ok(c)


def test_default_tolerance_depends_on_the_dtype_and_options_override_it() -> None:
    e = np.ones(4, np.float32)
    a = e + np.float32(5e-4)  # within float16's rtol 1e-3, outside float32's rtol 1e-4
    assert not compare_arrays(e, a).ok
    assert compare_arrays(e.astype(np.float16), a.astype(np.float16)).ok
    assert compare_arrays(e, a, Tolerance(rtol=1e-3)).ok
    assert compare_arrays(e, a, Tolerance(atol=1e-3)).ok
    assert Tolerance().for_dtype(np.float64) == DEFAULT_TOLERANCES["float64"]
    t = Tolerance(atol=0.0, rtol=0.0, ulp=0).for_dtype(np.float32)
    assert (t.atol, t.rtol, t.ulp, t.exact) == (0.0, 0.0, 0, False)


def test_pure_ulp_policy() -> None:
    e = np.array([1.0, 1000.0], np.float32)
    a = np.nextafter(np.nextafter(e, np.float32(2e9)), np.float32(2e9))  # two ULPs up
    assert compare_arrays(e, a, Tolerance(atol=0.0, rtol=0.0, ulp=2)).ok
    c = compare_arrays(e, a, Tolerance(atol=0.0, rtol=0.0, ulp=1))
    assert c.outside == 2 and c.max_ulp == 2


def test_worst_elements_come_first_and_are_deterministic() -> None:
    e = np.zeros((3, 3), np.float64)
    a = e.copy()
    a[2, 1], a[0, 2], a[1, 1] = 0.5, 0.25, 0.5
    c = compare_arrays(e, a, worst=3)
    assert [w.index for w in c.worst] == [(1, 1), (2, 1), (0, 2)]  # ties by flat index
    assert c.outside == 3 and c.max_abs == 0.5
    assert len(compare_arrays(e, a, worst=1).worst) == 1


def test_invalid_tolerances_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        Tolerance(atol=-1.0)
    with pytest.raises(UsageError):
        Tolerance(rtol=float("nan"))
    with pytest.raises(UsageError):
        Tolerance(ulp=-3)


def test_empty_arrays_agree() -> None:
    c = compare_arrays(np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32))
    assert c.ok and c.elements == 0


def test_unicode_and_object_strings_compare_by_value() -> None:
    obj = np.array(["a", "b"], dtype=object)
    assert compare_arrays(np.array(["a", "b"]), obj).ok
    c = compare_arrays(obj, np.array(["a", "c"]))
    assert c.mismatch is None and c.outside == 1
