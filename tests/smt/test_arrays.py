"""The array helpers of the encodings agree with the plain Python loops they replace.

:mod:`sonnx.smt.arrays` decides nothing (z3 checks every instance it helps
write), but a wrong row kept or dropped there changes the text of an
obligation, and a crash there turns a verdict UNKNOWN. Each helper is
compared here with the loop its docstring names, on random columns, including
values whose rows do not fit one 63-bit key (the ``lexsort`` fallback of
:func:`~sonnx.smt.arrays.first_rows`).
"""

from __future__ import annotations

from array import array

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sonnx.smt.arrays import as_np, distinct_lines, distinct_mixed, expand, first_rows, lines

SMALL = st.integers(-3, 3)
WIDE = st.sampled_from([0, 1, -(2**40), 2**40, 2**62, -(2**62)])
"""Values whose ranges need 41 to 63 bits each: two or three columns of them exceed one 63-bit key."""


@st.composite
def columns(draw: st.DrawFn) -> list[np.ndarray]:
    n = draw(st.integers(0, 12))
    width = draw(st.integers(1, 3))
    values = draw(st.sampled_from([SMALL, WIDE]))
    return [np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.int64) for _ in range(width)]


def _rows(cols: list[np.ndarray]) -> list[tuple[int, ...]]:
    return list(zip(*(c.tolist() for c in cols), strict=True))


@settings(max_examples=200, deadline=None)
@given(columns())
def test_first_rows_keeps_each_distinct_row_where_it_first_occurs(cols: list[np.ndarray]) -> None:
    rows = _rows(cols)
    first = {r: i for i, r in reversed(list(enumerate(rows)))}
    assert first_rows(*cols).tolist() == sorted(first.values())


def test_first_rows_past_63_bits_uses_the_stable_fallback() -> None:
    big = np.array([2**62, -(2**62), 2**62, 0, -(2**62)], dtype=np.int64)
    other = np.array([1, 1, 1, 1, 2], dtype=np.int64)
    # two columns of 63 bits each: no packed key; rows 0 and 2 are equal, the others distinct
    assert first_rows(big, other).tolist() == [0, 1, 3, 4]
    assert first_rows(big, big, other).tolist() == [0, 1, 3, 4]


@settings(max_examples=100, deadline=None)
@given(columns())
def test_distinct_lines_is_dict_fromkeys_of_the_lines(cols: list[np.ndarray]) -> None:
    template = "(" + " ".join("{}" for _ in cols) + ")"
    assert lines(template, *cols) == [template.format(*r) for r in _rows(cols)]
    assert distinct_lines(template, *cols) == list(dict.fromkeys(lines(template, *cols)))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_distinct_mixed_writes_each_row_with_its_kind_s_template(data: st.DataObject) -> None:
    templates = ["(a {} {})", "(b {} {})", "(c {} {})"]
    n = data.draw(st.integers(0, 15))
    kind = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
    left, right = (np.array(data.draw(st.lists(SMALL, min_size=n, max_size=n)), dtype=np.int64) for _ in "lr")
    want = list(dict.fromkeys(templates[k].format(a, b) for k, a, b in zip(kind, left, right, strict=True)))
    assert distinct_mixed(templates, kind, left, right) == want


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=8), st.data())
def test_expand_visits_each_key_s_row_in_order(lengths: list[int], data: st.DataObject) -> None:
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    keys = data.draw(st.lists(st.integers(0, max(0, len(lengths) - 1)), max_size=6)) if lengths else []
    owner, pos = expand(ptr, np.array(keys, dtype=np.int64))
    want = [(i, p) for i, k in enumerate(keys) for p in range(int(ptr[k]), int(ptr[k + 1]))]
    assert list(zip(owner.tolist(), pos.tolist(), strict=True)) == want
    assert owner.dtype == pos.dtype == np.int64


def test_as_np_copies_fact_arrays_lists_and_arrays_as_int64() -> None:
    for value in (array("i", [3, -1, 7]), [3, -1, 7], (3, -1, 7), np.array([3, -1, 7], dtype=np.int32)):
        out = as_np(value)
        assert out.dtype == np.int64 and out.tolist() == [3, -1, 7]
    empty = as_np(array("i"))
    assert empty.dtype == np.int64 and empty.shape == (0,)
    assert as_np([[1, 2], [3, 4]]).tolist() == [1, 2, 3, 4]
