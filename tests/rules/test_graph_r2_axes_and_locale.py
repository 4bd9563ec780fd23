"""GRAPH-R2: repeated axes (Slice, Pad, Resize, CenterCropPad) and StringNormalizer's locale, in both engines.

"Behavior is undefined if an axis is repeated": constant axes are checked (a
negative axis counts from the back of the data's declared rank), axes given at
run time are unknown. StringNormalizer's locale is left to the environment: an
operation that changes case, or compares stopwords without regard to case, is
unknown.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, engine_statuses, every_engine, init, model, tensors

ID = "GRAPH-R2"
P, V, U = Status.PROVED, Status.VIOLATED, Status.UNKNOWN


def data_tensor(rank: int | None) -> Tensor:
    return Tensor("x", None if rank is None else TensorType("tensor", 1, (2,) * rank), None)


def slice13(axes: Any, rank: int | None) -> Model:
    inputs = ["x", "s", "e"] if axes is None else ["x", "s", "e", "a"]
    ts = [data_tensor(rank), init("s", np.zeros(2, np.int64), 7), init("e", np.ones(2, np.int64), 7)]
    if isinstance(axes, list):
        ts.append(init("a", np.asarray(axes, np.int64), 7))
    graph_inputs = ["x"] if not isinstance(axes, str) else ["x", "a"]
    return model(make_graph("g", graph_inputs, ["y"], [op("Slice", inputs, ["y"])], tensors(*ts)), 13)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("axes", "rank", "expected"),
    [
        ([0, 1], 2, P),
        ([0, 0], 2, V),
        ([1, -1], 2, V),  # -1 is axis 1 of a rank-2 tensor
        ([1, -1], 3, P),
        ([1, -1], None, U),  # whether -1 is axis 1 depends on a rank that is not declared
        ([1, 1], None, V),
        ([-1, -2], None, P),
        ([0, 1], None, P),
        ("runtime", 2, U),
        (None, 2, P),  # axes omitted: every axis once
    ],
)
def test_slice_axes_input(axes: Any, rank: int | None, expected: Status) -> None:
    assert engine_statuses(ID, slice13(axes, rank)) == {expected}


@pytest.mark.rule("GRAPH-R2")
def test_the_direct_witness_names_both_positions() -> None:
    direct = every_engine(ID, slice13([0, 1, -2], 2))[0]
    (f,) = data(direct)["nondeterministic"]
    assert f["reason"].startswith(
        "axes 'a' (defined in g), an initializer, holds 0 at position 0 and -2 at position 2, one axis; "
    )


def attribute_op(operator: str, opset: int, rank: int | None, **attrs: Any) -> Model:
    inputs = {"Slice": ["x"], "Resize": ["x", "", "sc"], "CenterCropPad": ["x", "sh"]}[operator]
    extra = {"Resize": [init("sc", np.ones(2, np.float32), 1)], "CenterCropPad": [init("sh", np.ones(2, np.int64), 7)]}
    o = op(operator, inputs, ["y"], **attrs)
    return model(make_graph("g", ["x"], ["y"], [o], tensors(data_tensor(rank), *extra.get(operator, []))), opset)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("operator", "opset", "attrs", "expected"),
    [
        ("Slice", 1, {"axes": [0, 0], "starts": [0, 0], "ends": [1, 1]}, V),
        ("Slice", 1, {"axes": [0, 1], "starts": [0, 0], "ends": [1, 1]}, P),
        ("Slice", 1, {"starts": [0, 0], "ends": [1, 1]}, P),
        ("Resize", 18, {"axes": [1, -2]}, V),
        ("Resize", 18, {"axes": [1, 2]}, P),
        ("Resize", 18, {}, P),
        ("CenterCropPad", 18, {"axes": [0, -1]}, P),
        ("CenterCropPad", 18, {"axes": [2, -1]}, V),
    ],
)
def test_axes_attributes(operator: str, opset: int, attrs: dict[str, Any], expected: Status) -> None:
    assert engine_statuses(ID, attribute_op(operator, opset, 3, **attrs)) == {expected}


@pytest.mark.rule("GRAPH-R2")
def test_an_axes_attribute_of_another_type_is_unknown() -> None:
    assert engine_statuses(ID, attribute_op("Resize", 18, 3, axes=1)) == {U}


def pad18(axes: list[int], rank: int) -> Model:
    ts = [data_tensor(rank), init("p", np.zeros(2 * len(axes), np.int64), 7), init("a", np.asarray(axes), 7)]
    o = op("Pad", ["x", "p", "", "a"], ["y"])
    return model(make_graph("g", ["x"], ["y"], [o], tensors(*ts)), 18)


@pytest.mark.rule("GRAPH-R2")
def test_pad_axes() -> None:
    assert engine_statuses(ID, pad18([0, -4], 4)) == {V}
    assert engine_statuses(ID, pad18([0, -4], 5)) == {P}
    assert engine_statuses(ID, pad18([0, 1], 4)) == {P}


def normalizer(**attrs: Any) -> Model:
    x = Tensor("x", TensorType("tensor", 8, (2,)), None)
    stopwords = attrs.pop("stopwords", None)
    o = op("StringNormalizer", ["x"], ["y"], **attrs)
    if stopwords is not None:
        o = o._replace(attributes=(*o.attributes, Attribute("stopwords", "STRINGS", tuple(stopwords))))
    return model(make_graph("g", ["x"], ["y"], [o], tensors(x)), 10)


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({}, P),
        ({"case_change_action": "NONE"}, P),
        ({"case_change_action": "LOWER"}, U),
        ({"case_change_action": "UPPER", "is_case_sensitive": 1}, U),
        ({"case_change_action": "SIDEWAYS"}, U),
        ({"stopwords": ["the"]}, U),  # case-insensitive by default: the locale folds case
        ({"stopwords": ["the"], "is_case_sensitive": 1}, P),
        ({"stopwords": ["the"], "is_case_sensitive": 0}, U),
        # unused by the output, but which locales are defined is left to the environment: GRAPH-ATTRIBUTES cannot
        # decide it, and an undecided attribute blocks R2 (spec, GRAPH-ATTRIBUTES)
        ({"locale": "tr_TR"}, U),
        ({"stopwords": []}, P),
    ],
)
def test_string_normalizer_locale(attrs: dict[str, Any], expected: Status) -> None:
    assert engine_statuses(ID, normalizer(**attrs)) == {expected}


@pytest.mark.rule("GRAPH-R2")
def test_operations_of_other_versions_are_untouched() -> None:
    # Pad before 18 has no axes and Resize before 18 none either: their texts leave nothing open here
    o = Operation("Pad", "", "", ("x", "p"), ("y",), ())
    m = model(make_graph("g", ["x"], ["y"], [o], tensors(data_tensor(2), init("p", np.zeros(4, np.int64), 7))), 13)
    assert engine_statuses(ID, m) == {P}
