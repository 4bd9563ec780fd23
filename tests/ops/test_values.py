"""The value conventions of the executor and the one canonical encoding every bit-exact comparison uses."""

from __future__ import annotations

import numpy as np

from sonnx.ops.values import EMPTY, same_value, value_bytes, value_digest


def test_bit_exact_means_dtype_shape_and_bits() -> None:
    a = np.array([0.0, 1.0], np.float32)
    assert same_value(a, a.copy())
    assert not same_value(a, np.array([-0.0, 1.0], np.float32))  # the sign of zero counts
    assert not same_value(a, a.astype(np.float64))
    assert not same_value(a, a.reshape(2, 1))


def test_strings_compare_by_content_not_by_pointer() -> None:
    a = np.array(["x", "yz"], dtype=object)
    b = np.array(["x", "y" + "z"], dtype=object)
    assert same_value(a, b) and not same_value(a, np.array(["x", "y"], dtype=object))
    assert value_digest(a) == value_digest(b)


def test_sequences_maps_and_optionals() -> None:
    seq = [np.ones(2, np.float32), np.zeros(3, np.float32)]
    assert same_value(seq, [x.copy() for x in seq])
    assert not same_value(seq, seq[:1]) and not same_value(seq, list(reversed(seq)))
    m1 = [{0: np.float32(0.25), 1: np.float32(0.75)}]
    m2 = [{1: np.float32(0.75), 0: np.float32(0.25)}]  # key order does not matter
    assert same_value(m1, m2) and not same_value(m1, [{0: np.float32(0.75), 1: np.float32(0.25)}])
    assert same_value(EMPTY, EMPTY) and not same_value(EMPTY, [])
    assert value_digest(seq)["kind"] == "sequence" and value_digest(m1)["kind"] == "sequence"
    assert value_bytes([[]]) != value_bytes([])


def test_a_scalar_is_not_a_one_element_vector() -> None:
    assert not same_value(np.float32(1.0), np.array([1.0], np.float32))
    assert value_digest(np.array(1.0, np.float32))["shape"] == []
