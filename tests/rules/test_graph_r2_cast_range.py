"""GRAPH-R2: conversions to integer types the text leaves open (casts, QuantizeLinear), in both engines.

Cast's text (from version 13; earlier versions say nothing at all) leaves the
conversion of a floating-point value to an integer type undefined when the
value is out of range, and the results differ between x86 and ARM: a constant
input is checked element by element (NaN and infinities are out of every
range), an input computed at run time is deterministic only when its declared
element type is an integer or boolean type, whose conversions the text defines.
QuantizeLinear saturates values out of range, but places no NaN: a NaN in a
constant input or scale decides it, 0/0 and inf/inf may, and a run-time input
is unknown.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from sonnx.base.verdict import Status
from sonnx.model.graph import Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import determinism_table as table
from tests.common.rulekit import data, engine_statuses, every_engine, init, model, tensors, value

pytestmark = pytest.mark.rule("GRAPH-R2")

ID = "GRAPH-R2"
P, V, U = Status.PROVED, Status.VIOLATED, Status.UNKNOWN
REASON = next(e.reason for e in table.TABLE if e.operator == "Cast")


def cast_of_constant(values: Any, to: int, opset: int = 21, data_type: int = TensorProto.DOUBLE) -> Model:
    cast = op("Cast", ["x"], ["y"], to=to)
    return model(make_graph("g", [], ["y"], [cast], tensors(init("x", values, data_type))), opset)


def cast_of_input(source: int, to: int, opset: int = 21) -> Model:
    x = Tensor("x", TensorType("tensor", source, (2,)) if source else None, None)
    cast = op("Cast", ["x"], ["y"], to=to)
    return model(make_graph("g", ["x"], ["y"], [cast], tensors(x)), opset)


I64_MAX_DOUBLE = float(np.nextafter(2.0**63, 0.0))
"""The greatest double below 2^63, which int64 holds."""


@pytest.mark.parametrize(
    ("values", "to", "expected"),
    [
        (np.asarray([1.5, -128.0, 127.0, -0.0], np.float32), TensorProto.INT8, P),
        (np.asarray([127.5], np.float32), TensorProto.INT8, V),  # above 127: out of range, whatever the rounding
        (np.asarray([-129.0], np.float32), TensorProto.INT8, V),
        (np.asarray([-0.5]), TensorProto.UINT8, V),
        ([0.0, 255.0], TensorProto.UINT8, P),
        ([3e9], TensorProto.INT32, V),
        ([-(2.0**31), 2.0**31 - 1], TensorProto.INT32, P),
        ([-(2.0**63), I64_MAX_DOUBLE], TensorProto.INT64, P),
        ([2.0**63], TensorProto.INT64, V),
        ([float(np.nextafter(2.0**64, 0.0))], TensorProto.UINT64, P),
        ([2.0**64], TensorProto.UINT64, V),
        ([7.0, -8.0], TensorProto.INT4, P),
        ([8.0], TensorProto.INT4, V),
        ([1.0, float("nan")], TensorProto.INT64, V),
        ([float("inf")], TensorProto.INT32, V),
        ([float("-inf")], TensorProto.UINT16, V),
        (np.asarray([float("nan")], np.float16), TensorProto.INT16, V),
        ([1e300, float("nan")], TensorProto.FLOAT, P),  # a floating-point target: defined (infinity or NaN)
        ([float("nan")], TensorProto.BOOL, P),  # "all else to True"
    ],
)
def test_constant_floats_to_integers(values: Any, to: int, expected: Status) -> None:
    assert engine_statuses(ID, cast_of_constant(values, to)) == {expected}


def test_every_version_of_cast_is_checked() -> None:
    for opset in (6, 9, 13, 19, 21, 25):
        assert engine_statuses(ID, cast_of_constant([300.0], TensorProto.UINT8, opset)) == {V}, opset
        assert engine_statuses(ID, cast_of_constant([200.0], TensorProto.UINT8, opset)) == {P}, opset


def test_integer_constants_convert_by_defined_rules() -> None:
    # integers out of range keep their low bits, booleans give 0 or 1: the text defines both
    assert engine_statuses(ID, cast_of_constant(np.asarray([300, -1], np.int64), TensorProto.INT8, data_type=7)) == {P}
    assert engine_statuses(ID, cast_of_constant(np.asarray([True]), TensorProto.UINT4, data_type=9)) == {P}


def test_a_string_constant_to_an_integer_is_unknown() -> None:
    strings = np.asarray(["2.718"], dtype=object)
    assert engine_statuses(ID, cast_of_constant(strings, TensorProto.INT32, data_type=8)) == {U}
    assert engine_statuses(ID, cast_of_constant(strings, TensorProto.FLOAT, data_type=8)) == {P}


@pytest.mark.parametrize(
    ("source", "to", "expected"),
    [
        (TensorProto.FLOAT, TensorProto.INT64, U),
        (TensorProto.DOUBLE, TensorProto.UINT8, U),
        (TensorProto.BFLOAT16, TensorProto.INT32, U),
        (TensorProto.STRING, TensorProto.INT32, U),
        (0, TensorProto.INT64, U),  # no declared type: it may be a floating-point type
        (TensorProto.INT64, TensorProto.INT8, P),
        (TensorProto.UINT32, TensorProto.INT4, P),
        (TensorProto.BOOL, TensorProto.INT32, P),
        (TensorProto.FLOAT, TensorProto.FLOAT16, P),
        (0, TensorProto.DOUBLE, P),
    ],
)
def test_computed_inputs_by_their_declared_type(source: int, to: int, expected: Status) -> None:
    assert engine_statuses(ID, cast_of_input(source, to)) == {expected}


def test_a_computed_float_input_is_unknown_with_the_reason() -> None:
    for v in every_engine(ID, cast_of_input(TensorProto.FLOAT, TensorProto.INT64)):
        assert v.status is U
        assert "input 'x' (defined in g) is a graph input, given at run time: " + REASON in (v.reason or "")


def test_the_witness_names_the_value_and_the_range() -> None:
    direct, *smt = every_engine(ID, cast_of_constant([1.0, 2.0, 300.0], TensorProto.UINT8))
    (f,) = data(direct)["nondeterministic"]
    assert f["reason"] == (
        "input 'x' (defined in g), an initializer, holds 300.0 at flat position 2, outside [0, 255] of UINT8; "
        + REASON
    )
    for v in smt:
        (g,) = data(v)["nondeterministic"]
        assert g["reason"] == "input 'x' (defined in g), an initializer,: " + REASON


def castlike(values: Any, target: int) -> Model:
    t = Tensor("t", TensorType("tensor", target, (1,)), None)
    c = op("CastLike", ["x", "t"], ["y"])
    return model(make_graph("g", ["t"], ["y"], [c], tensors(init("x", values, 1), t)), 21)


@pytest.mark.parametrize(
    ("values", "target", "expected"),
    [
        ([1.0, 2.5], TensorProto.INT32, P),
        ([3e9], TensorProto.INT32, V),
        ([float("nan")], TensorProto.UINT8, V),
        ([3e9], TensorProto.FLOAT16, P),
    ],
)
def test_castlike_reads_the_target_from_its_second_input(values: Any, target: int, expected: Status) -> None:
    assert engine_statuses(ID, castlike(values, target)) == {expected}


def test_a_cast_of_a_computed_value_in_a_nested_graph_is_unknown() -> None:
    body = make_graph("then", [], ["z"], [op("Cast", ["x"], ["z"], to=TensorProto.INT32)])
    branch = op("If", ["c"], ["y"], then_branch=body, else_branch=body)
    x = Tensor("x", TensorType("tensor", TensorProto.FLOAT, (1,)), None)
    m = model(make_graph("g", ["c", "x"], ["y"], [branch], tensors(x)), 21)
    assert engine_statuses(ID, m) == {U}


def test_an_omitted_input_is_unknown() -> None:
    cast = Operation("Cast", "", "", ("",), ("y",), op("Cast", ["x"], ["y"], to=TensorProto.INT8).attributes)
    assert engine_statuses(ID, model(make_graph("g", [], ["y"], [cast]), 21)) == {U}


ZERO_TYPES = {np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint16): TensorProto.UINT16}


def quantize(x: Any, scale: Any, zero: Any = None, opset: int = 21, **attrs: Any) -> Model:
    """QuantizeLinear of ``x`` by ``scale`` (either may be "runtime": a graph input) with an optional zero point."""
    ts = [Tensor("s", TensorType("tensor", 1, ()), None) if scale == "runtime" else init("s", np.float32(scale), 1)]
    ts.append(Tensor("x", TensorType("tensor", 1, (2,)), None) if x == "runtime" else init("x", np.float32(x), 1))
    if zero is not None:
        et = ZERO_TYPES[np.asarray(zero).dtype]
        ts.append(Tensor("z", TensorType("tensor", et, ()), value(zero, et)))
    graph_inputs = [n for n, v in (("x", x), ("s", scale)) if isinstance(v, str)]
    q = op("QuantizeLinear", ["x", "s"] if zero is None else ["x", "s", "z"], ["y"], **attrs)
    return model(make_graph("g", graph_inputs, ["y"], [q], tensors(*ts)), opset)


@pytest.mark.parametrize(
    ("x", "scale", "zero", "attrs", "expected"),
    [
        ([1.0, 1e30], 0.5, None, {}, P),  # out of range: saturated, as the text says
        ([1.0, float("nan")], 0.5, None, {}, V),
        ([float("nan")], 0.5, np.int8(0), {}, V),
        ([float("nan")], 0.5, np.uint16(0), {}, V),
        ([0.0, 1.0], 0.0, None, {}, U),  # 0/0 may be NaN
        ([1.0, 2.0], 0.0, None, {}, P),  # 1/0 is infinity, saturated
        ([float("inf")], float("inf"), None, {}, U),
        ([1.0], float("nan"), None, {}, V),
        ("runtime", 0.5, None, {}, U),
        ([1.0], "runtime", None, {}, U),
        ([float("nan")], 0.5, None, {"output_dtype": TensorProto.FLOAT8E4M3FN}, P),  # NaN is a float8 value
        ([float("nan")], 0.5, None, {"output_dtype": TensorProto.INT4}, V),
        ("runtime", 0.5, None, {"output_dtype": TensorProto.FLOAT8E5M2}, P),
    ],
)
def test_quantize_linear_of_nan(x: Any, scale: Any, zero: Any, attrs: dict[str, Any], expected: Status) -> None:
    assert engine_statuses(ID, quantize(x, scale, zero, **attrs)) == {expected}


def test_quantize_linear_reads_a_stored_zero_point_type_not_its_declaration() -> None:
    """An initializer's type is that of its stored value (spec 9.4): without a declaration it is still known."""
    m = quantize([1.0], 0.5, np.int8(0))
    z = m.graph.tensors["z"]._replace(type=None)
    m = model(make_graph("g", [], ["y"], list(m.graph.operations), {**m.graph.tensors, "z": z}), 21)
    assert engine_statuses(ID, m) == {P}


def test_quantize_linear_whose_zero_point_type_is_not_established_is_unknown() -> None:
    """A computed zero point's declared type is enforced by no runtime (spec 9.4), so the output type is open."""
    m = quantize([1.0], 0.5, np.int8(0))
    zc = Tensor("zc", TensorType("tensor", TensorProto.INT8, ()), None)
    ops = [op("Identity", ["z"], ["zc"]), op("QuantizeLinear", ["x", "s", "zc"], ["y"])]
    m = model(make_graph("g", [], ["y"], ops, {**m.graph.tensors, "zc": zc}), 21)
    assert engine_statuses(ID, m) == {U}


def dynamic(x: Any) -> Model:
    ts = [Tensor("x", TensorType("tensor", 1, (2,)), None) if x == "runtime" else init("x", np.float32(x), 1)]
    q = op("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    return model(make_graph("g", ["x"] if x == "runtime" else [], ["y"], [q], tensors(*ts)), 11)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        ([1.0, -2.0, 0.0], P),
        ([1.0, float("nan")], V),
        ([float("inf"), 1.0], V),  # the scale is infinite: inf/inf
        ([0.0, -0.0], V),  # the scale is 0: 0/0
        ("runtime", U),
    ],
)
def test_dynamic_quantize_linear(x: Any, expected: Status) -> None:
    assert engine_statuses(ID, dynamic(x)) == {expected}
