"""GRAPH-R2's value conditions in both engines, case by case (the targeted mutation campaign).

Guards :mod:`sonnx.smt.classify` (the SMT side of the determinism
classification) and :mod:`sonnx.rules.graph_r2` (the direct side) against the
mutants that survived ``tests/rules/test_graph_r2.py``: most of its value
conditions were only run through the direct engine. Every case here runs both
engines and checks the exact status, and for a violation that both name the
same operations with the same reason (the duplicate pair and the element it
addresses, which the SMT side computes apart and has the solver check).
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Attribute, Model, Operation, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from sonnx.rules import determinism_table as table
from sonnx.smt import classify, scatter_terms
from sonnx.smt.encodings import graph_r2
from sonnx.smt.engine import run_smt
from tests.common.rulekit import data, init, model, run, tensors

ID = "GRAPH-R2"
DUP = next(e.reason for e in table.TABLE if e.operator == "ScatterND" and e.condition == table.DUPLICATE_INDICES)
UNDETERMINED = "determinism of 1 operation(s) not established: "
IDX = "indices 'idx' (defined in g), an initializer, "
NOT_ESTABLISHED = "holds negative indices and the data's dimensions are not established: "
SYMBOLIC = "graph input 'data' declares a dimension that is not a fixed size (a symbolic name is checked by no runtime)"


def both(m: Model, same_reasons: bool = False) -> tuple[Verdict, Verdict]:
    """The direct verdict and the SMT verdict: same status, same operations (and reasons, if asked) in a witness."""
    direct = run(ID, m)
    smt = {v.rule_id: v for v in run_smt(m).verdicts}[ID]
    assert direct.status is smt.status, (direct, smt)
    # an exception in the encoding or a script z3 refuses is UNKNOWN too, with another reason: never here
    if smt.status is Status.UNKNOWN:
        assert (smt.reason or "").startswith("determinism of "), smt
    if direct.status is Status.VIOLATED:
        d, s = data(direct), data(smt)
        key = ("scope", "index", "operation", "reason") if same_reasons else ("scope", "index", "operation")
        listed = [[[f[k] for k in key] for f in w["nondeterministic"]] for w in (d, s)]
        assert listed[0] == listed[1], (d, s)
        assert d["unknown_count"] == s["unknown_count"]
    return direct, smt


def reasons(v: Verdict) -> list[str]:
    return [f["reason"] for f in data(v)["nondeterministic"]]


def scatter(
    operator: str,
    indices: Any,
    declared: tuple[int | str, ...] | None = None,
    outputs: tuple[str, ...] = ("y",),
    **attrs: Any,
) -> Model:
    s = op(operator, ["data", "idx", "upd"], list(outputs), name="s", **attrs)
    ty = None if declared is None else TensorType("tensor", 1, declared)
    arr = indices if isinstance(indices, np.ndarray | np.generic) else np.asarray(indices, dtype=np.int64)
    ts = tensors(init("idx", arr, 7), Tensor("data", ty, None))
    return model(make_graph("g", ["data", "upd"], ["y"], [s], ts), 18)


def pair(a: int, b: int, key: list[int]) -> str:
    return f"indices 'idx' (defined in g), an initializer,: entries {a} and {b} address the same element {key}; {DUP}"


# -- ScatterND ----------------------------------------------------------------------------------------------------


def expect_pair(v: Verdict, expected: tuple[int, int, list[int]] | None) -> None:
    """PROVED without an expected pair; VIOLATED with exactly that pair's reason otherwise."""
    if expected is None:
        assert v.status is Status.PROVED
    else:
        assert v.status is Status.VIOLATED
        assert reasons(v) == [pair(*expected)]


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("indices", "declared", "expected"),
    [
        # negative indices wrapped by the declared dimension (data of rank 1 and of rank 2)
        ([[-1], [2]], (3,), (0, 1, [2])),
        ([[-1], [2]], (3, 4), (0, 1, [2])),
        ([[0], [-3]], (3,), (0, 1, [0])),
        ([[-1], [1]], (3,), None),
        # tuples of two coordinates: every coordinate counts
        ([[0, 0], [0, 1]], None, None),
        ([[0, 1], [0, 1]], None, (0, 1, [0, 1])),
        ([[-1, 0], [2, 0]], (3, 2), (0, 1, [2, 0])),
        # two groups of equal tuples: the pair is the first in the lexicographic order of the tuples
        ([[1, 0], [1, 0], [0, 1], [0, 1]], None, (2, 3, [0, 1])),
        # the equal tuples are neither adjacent nor the smallest
        ([[1], [0], [1]], None, (0, 2, [1])),
        ([[2], [0], [1], [0]], None, (1, 3, [0])),
        # indices of rank 3: the tuples are the last dimension
        ([[[0], [0]]], None, (0, 1, [0])),
        ([[[0, 1]], [[0, 1]]], None, (0, 1, [0, 1])),
        ([[[0, 1]], [[1, 0]]], None, None),
        # indices of rank 1: a single tuple
        ([1], None, None),
        ([0, 1], (2, 2), None),
    ],
)
def test_scatter_nd_pairs(
    indices: Any, declared: tuple[int, ...] | None, expected: tuple[int, int, list[int]] | None
) -> None:
    _direct, smt = both(same_reasons=True, m=scatter("ScatterND", indices, declared))
    expect_pair(smt, expected)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("indices", "declared", "why"),
    [
        ([[-1], [2]], None, f"{NOT_ESTABLISHED}graph input 'data' declares no tensor type"),
        ([[-1], [2]], ("N", 4), f"{NOT_ESTABLISHED}{SYMBOLIC}"),
        ([[-1, 0], [2, 0]], (3,), f"{NOT_ESTABLISHED}the data's rank 1 does not fit the indices"),
        (np.int64(1), (3,), "is a scalar, not index tuples"),
    ],
)
def test_scatter_nd_unknown(indices: Any, declared: tuple[int | str, ...] | None, why: str) -> None:
    direct, smt = both(same_reasons=True, m=scatter("ScatterND", indices, declared))
    assert direct.status is Status.UNKNOWN
    assert direct.reason == f"{UNDETERMINED}indices 'idx' (defined in g), an initializer, {why}"
    # the SMT side names the constant and the table entry (its evaluation is the solver's)
    assert (smt.reason or "").startswith(f"{UNDETERMINED}indices 'idx' (defined in g), an initializer,: {DUP}")


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("outputs", [(), ("",)])
def test_scatter_nd_data_shape_is_read_from_the_data_input_not_the_outputs(outputs: tuple[str, ...]) -> None:
    # an operation without outputs, or whose output is omitted, still has a data input of declared shape
    _direct, smt = both(same_reasons=True, m=scatter("ScatterND", [[-1], [2]], (3,), outputs))
    assert reasons(smt) == [pair(0, 1, [2])]


@pytest.mark.rule("GRAPH-R2")
def test_a_wrong_untrusted_pair_is_never_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pair named in the witness is proposed outside the solver and checked by it: a pair of entries that
    # differ makes the violation obligation unsat, whatever the formula says of the indices
    real = scatter_terms._pair

    def lying(*args: Any) -> tuple[int, int, list[int]] | None:
        p = real(*args)
        assert p == (0, 1, [1])
        return 0, 2, [1]

    monkeypatch.setattr(scatter_terms, "_pair", lying)
    smt = {v.rule_id: v for v in run_smt(scatter("ScatterND", [[1], [1], [0]])).verdicts}[ID]
    assert smt.status is Status.UNKNOWN, smt


@pytest.mark.rule("GRAPH-R2")
def test_a_wrong_pair_of_equal_positions_is_rejected_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scatter_terms, "_pair", lambda *args: (1, 1, [0]))
    smt = {v.rule_id: v for v in run_smt(scatter("ScatterND", [[1], [1], [0]])).verdicts}[ID]
    assert smt.status is Status.UNKNOWN, smt


# -- ScatterElements ----------------------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("indices", "axis", "declared", "expected"),
    [
        ([[1, 1], [0, 1]], 1, None, (0, 1, [0, 1])),
        ([[1, 1], [0, 1]], -1, None, (0, 1, [0, 1])),
        ([[0, 0], [1, 1]], None, None, None),
        ([[0, 0], [1, 1]], 0, None, None),
        ([[0, 0], [1, 1]], -2, None, None),
        ([[0, 0], [1, 1]], 1, None, (0, 1, [0, 0])),
        ([[1, 0], [1, 0]], 0, None, (1, 3, [0, 1])),
        ([[1, 0], [1, 0]], None, None, (1, 3, [0, 1])),
        ([1, 1], -1, None, (0, 1, [1])),
        ([1, 1], 0, None, (0, 1, [1])),
        ([2, 0, 2], None, None, (0, 2, [2])),
        # negative values wrapped by the data's declared dimensions (same rank as the indices)
        ([[-1, 1]], 1, (2, 2), (0, 1, [0, 1])),
        ([[-1, 0]], 1, (2, 2), None),
        ([[-2], [0]], 0, (2, 1), (0, 1, [0, 0])),
        # indices of rank 3
        ([[[0, 0]]], 2, None, (0, 1, [0, 0, 0])),
        ([[[0, 1]]], 2, None, None),
    ],
)
def test_scatter_elements_pairs(
    indices: Any, axis: int | None, declared: tuple[int, ...] | None, expected: tuple[int, int, list[int]] | None
) -> None:
    attrs = {} if axis is None else {"axis": axis}
    _direct, smt = both(same_reasons=True, m=scatter("ScatterElements", indices, declared, **attrs))
    expect_pair(smt, expected)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("indices", "axis", "declared", "why"),
    [
        ([1, 1], 1, None, "axis 1 is outside the indices' rank 1"),
        ([[0, 1]], 2, None, "axis 2 is outside the indices' rank 2"),
        ([[0, 1]], -3, None, "axis -1 is outside the indices' rank 2"),
        ([[-1, 1]], 1, None, f"{IDX}{NOT_ESTABLISHED}graph input 'data' declares no tensor type"),
        ([[-1, 1]], 1, (2,), f"{IDX}{NOT_ESTABLISHED}the data's rank 1 does not fit the indices"),
        # indices of rank 1 on data of rank 2: the data dimensions are not those of the indices
        ([-1, 1], 0, (2, 2), f"{IDX}{NOT_ESTABLISHED}the data's rank 2 does not fit the indices"),
        ([[-1, 1]], 1, (2, "N"), f"{IDX}{NOT_ESTABLISHED}{SYMBOLIC}"),
    ],
)
def test_scatter_elements_unknown(indices: Any, axis: int, declared: tuple[int | str, ...] | None, why: str) -> None:
    direct, smt = both(same_reasons=True, m=scatter("ScatterElements", indices, declared, axis=axis))
    assert direct.status is Status.UNKNOWN
    assert direct.reason == f"{UNDETERMINED}{why}"
    assert (smt.reason or "").startswith(f"{UNDETERMINED}indices 'idx' (defined in g), an initializer,: {DUP}")


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize("declared", [None, ()])
def test_scatter_elements_with_a_scalar_index_on_scalar_data_is_unknown_in_both(
    declared: tuple[int, ...] | None
) -> None:
    # ScatterElements defines axes of ranks of at least 1: axis 0 of a scalar is no axis (GRAPH-ATTRIBUTES), so
    # neither engine rests a verdict on it
    direct, smt = both(same_reasons=True, m=scatter("ScatterElements", np.int64(0), declared, axis=0))
    assert smt.status is Status.UNKNOWN and "attribute 'axis' = 0 is outside its definition" in (direct.reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_scatter_elements_without_indices_values_is_unknown_in_both() -> None:
    s = op("ScatterElements", ["data", "idx", "upd"], ["y"], name="s", axis=1)
    _direct, smt = both(model(make_graph("g", ["data", "idx", "upd"], ["y"], [s]), 18))
    assert smt.status is Status.UNKNOWN and "graph input, given at run time" in (smt.reason or "")


# -- Dropout's training_mode -----------------------------------------------------------------------------------


def dropout(value: Any, data_type: int) -> Model:
    d = op("Dropout", ["x", "", "t"], ["y"], name="d")
    return model(make_graph("g", ["x"], ["y"], [d], tensors(init("t", value, data_type))), 13)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("value", "data_type", "expected"),
    [
        (False, TensorProto.BOOL, Status.PROVED),
        (True, TensorProto.BOOL, Status.VIOLATED),
        ([False, False], TensorProto.BOOL, Status.VIOLATED),
        ([[False]], TensorProto.BOOL, Status.PROVED),
        (np.zeros((0,), dtype=bool), TensorProto.BOOL, Status.VIOLATED),
        (np.float32(0.0), TensorProto.FLOAT, Status.PROVED),
        (np.float32(-0.0), TensorProto.FLOAT, Status.PROVED),
        (np.float32(0.5), TensorProto.FLOAT, Status.VIOLATED),
        (np.float32(np.nan), TensorProto.FLOAT, Status.VIOLATED),
        (np.int64(0), TensorProto.INT64, Status.PROVED),
        (np.int64(-2), TensorProto.INT64, Status.VIOLATED),
    ],
)
def test_training_mode_values(value: Any, data_type: int, expected: Status) -> None:
    _direct, smt = both(dropout(value, data_type))
    assert smt.status is expected


# -- Mod's divisor ---------------------------------------------------------------------------------------------


def mod(divisor: Any, data_type: int) -> Model:
    return model(make_graph("g", ["x"], ["y"], [op("Mod", ["x", "d"], ["y"], name="m")],
                            tensors(init("d", divisor, data_type))))


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("divisor", "data_type", "expected"),
    [
        (np.array([3, 0], dtype=np.int64), TensorProto.INT64, Status.VIOLATED),
        (np.array([0, 3], dtype=np.int64), TensorProto.INT64, Status.VIOLATED),
        (np.array([0], dtype=np.int64), TensorProto.INT64, Status.VIOLATED),
        (np.array([-3, 4], dtype=np.int64), TensorProto.INT64, Status.PROVED),
        (np.array([-3], dtype=np.int64), TensorProto.INT64, Status.PROVED),
        (np.array([], dtype=np.int64), TensorProto.INT64, Status.PROVED),
        (np.array([2.5, -0.0], dtype=np.float32), TensorProto.FLOAT, Status.VIOLATED),
        (np.array([2.5, -1.5], dtype=np.float32), TensorProto.FLOAT, Status.PROVED),
        (np.array([np.nan], dtype=np.float32), TensorProto.FLOAT, Status.PROVED),
        # the smallest subnormal double is not zero: every bit of the significand is written
        (np.array([5e-324, 1.0]), TensorProto.DOUBLE, Status.PROVED),
        (np.array([-5e-324]), TensorProto.DOUBLE, Status.PROVED),
    ],
)
def test_mod_divisors(divisor: Any, data_type: int, expected: Status) -> None:
    _direct, smt = both(mod(divisor, data_type))
    assert smt.status is expected


@pytest.mark.rule("GRAPH-R2")
def test_mod_divisor_given_at_run_time_or_omitted_is_unknown() -> None:
    g = make_graph("g", ["x", "d"], ["y"], [op("Mod", ["x", "d"], ["y"])])
    _direct, smt = both(model(g))
    reason = next(e.reason for e in table.TABLE if e.operator == "Mod")
    assert (smt.reason or "").startswith(
        f"{UNDETERMINED}divisor 'd' (defined in g) is a graph input, given at run time: {reason}"
    )
    g = make_graph("g", ["x"], ["y"], [op("Mod", ["x"], ["y"])])
    _direct, smt = both(model(g))
    assert smt.status is Status.UNKNOWN


# -- casts to FLOAT8E8M0 -------------------------------------------------------------------------------------------


def cast(values: Any, data_type: int) -> Model:
    c = op("Cast", ["x"], ["y"], name="c", to=TensorProto.FLOAT8E8M0)
    return model(make_graph("g", [], ["y"], [c], tensors(init("x", values, data_type))), 24)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("values", "data_type", "expected"),
    [
        (np.array([1.0, 0.0], dtype=np.float32), TensorProto.FLOAT, Status.PROVED),
        (np.array([1.0, -0.0], dtype=np.float32), TensorProto.FLOAT, Status.VIOLATED),
        (np.array([-2.0, 1.0], dtype=np.float32), TensorProto.FLOAT, Status.VIOLATED),
        (np.array([np.nan, np.inf], dtype=np.float32), TensorProto.FLOAT, Status.PROVED),
        (np.array([-np.inf], dtype=np.float32), TensorProto.FLOAT, Status.VIOLATED),
        (np.array([0, 1], dtype=np.int64), TensorProto.INT64, Status.PROVED),
        (np.array([2, -1], dtype=np.int64), TensorProto.INT64, Status.VIOLATED),
        (np.array([True], dtype=bool), TensorProto.BOOL, Status.PROVED),
    ],
)
def test_cast_to_e8m0_values(values: Any, data_type: int, expected: Status) -> None:
    _direct, smt = both(cast(values, data_type))
    assert smt.status is expected


@pytest.mark.rule("GRAPH-R2")
def test_cast_to_e8m0_of_a_run_time_value_is_unknown() -> None:
    c = op("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0)
    _direct, smt = both(model(make_graph("g", ["x"], ["y"], [c]), 24))
    reason = next(e.reason for e in table.TABLE if e.operator == "Cast")
    assert (smt.reason or "").startswith(
        f"{UNDETERMINED}input 'x' (defined in g) is a graph input, given at run time: {reason}"
    )


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("inputs", [[], [""]])
def test_cast_to_e8m0_of_an_omitted_input_is_unknown_in_both(inputs: list[str]) -> None:
    # before: a Cast without inputs made the direct rule raise (IndexError)
    c = op("Cast", inputs, ["y"], to=TensorProto.FLOAT8E8M0)
    reason = next(e.reason for e in table.TABLE if e.operator == "Cast")
    for v in both(model(make_graph("g", [], ["y"], [c]), 24)):
        assert (v.reason or "").startswith(f"{UNDETERMINED}the input is omitted: {reason}"), v


def castlike(target: Tensor | None, inputs: tuple[str, ...] = ("x", "t"), values: Any = (-1.0, 2.0)) -> Model:
    c = op("CastLike", list(inputs), ["y"], name="c")
    ts = [init("x", np.asarray(values, dtype=np.float32), 1)]
    if target is not None:
        ts.append(target)
    return model(make_graph("g", ["t"] if "t" in inputs else [], ["y"], [c], tensors(*ts)), 24)


def target(elem_type: int | None) -> Tensor:
    return Tensor("t", None if elem_type is None else TensorType("tensor", elem_type, (1,)), None)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("model_", "expected"),
    [
        (castlike(target(TensorProto.FLOAT8E8M0)), Status.VIOLATED),
        (castlike(target(TensorProto.FLOAT8E8M0), values=(1.0, 2.0)), Status.PROVED),
        (castlike(target(TensorProto.FLOAT)), Status.PROVED),
        (castlike(target(TensorProto.FLOAT8E8M0 - 1)), Status.PROVED),
        (castlike(target(None)), Status.UNKNOWN),
        (castlike(None), Status.UNKNOWN),
        (castlike(None, inputs=("x",)), Status.UNKNOWN),
        (castlike(None, inputs=("x", "")), Status.UNKNOWN),
    ],
)
def test_castlike_target_types(model_: Model, expected: Status) -> None:
    direct, smt = both(model_)
    assert smt.status is expected
    if expected is Status.UNKNOWN:
        assert "CastLike's target type is not established" in (direct.reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_castlike_to_e8m0_of_a_run_time_input_is_unknown() -> None:
    c = op("CastLike", ["x", "t"], ["y"])
    g = make_graph("g", ["x", "t"], ["y"], [c], tensors(target(TensorProto.FLOAT8E8M0)))
    _direct, smt = both(model(g, 24))
    assert smt.status is Status.UNKNOWN and "graph input, given at run time" in (smt.reason or "")


# -- regressions found by this campaign ------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("axis", [1.0, "1", "x"])
def test_scatter_elements_whose_axis_is_not_an_int_is_unknown_in_both(axis: object) -> None:
    # before: the direct rule read int(value) (an internal error on "x") and the SMT side read axis 0, so the
    # engines gave VIOLATED and PROVED on the same model
    direct, smt = both(scatter("ScatterElements", [[0, 0], [1, 1]], axis=axis))
    assert smt.status is Status.UNKNOWN
    what = "indices 'idx' (defined in g), an initializer,"
    shown = "FLOAT" if isinstance(axis, float) else "STRING"
    assert direct.reason == (
        f"{UNDETERMINED}{what}; the attribute 'axis' is of type {shown}, not INT, so which element an index "
        f"addresses is not known: {DUP}"
    )
    assert (smt.reason or "").startswith(f"{UNDETERMINED}{what}; {scatter_terms.AXIS_NOT_INT}: {DUP}")


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize("axis", [5, -3, 1.0])
def test_a_single_scatter_elements_index_is_unknown_in_both_whatever_its_axis(axis: object) -> None:
    # before: the SMT side gave UNKNOWN for a 0-D index with an axis outside [-1, 0], the direct rule PROVED; now
    # GRAPH-ATTRIBUTES finds no axis of a rank-0 index (nor an axis of type FLOAT), so both engines say UNKNOWN
    direct, smt = both(scatter("ScatterElements", np.int64(1), axis=axis))
    assert smt.status is Status.UNKNOWN and "attribute 'axis'" in (direct.reason or "")


# -- the facts written in the obligation are those its header documents ------------------------------------------------


def _sexpr(text: str) -> list[Any]:
    """The first s-expression of ``text`` as nested lists of atoms."""
    stack: list[list[Any]] = [[]]
    for tok in text.replace("(", " ( ").replace(")", " ) ").split():
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
            if len(stack) == 1:
                break
        else:
            stack[-1].append(tok)
    return stack[0][0]  # type: ignore[no-any-return]


def facts_of(m: Model) -> tuple[dict[str, Any], str]:
    """The arguments of the first operation's ``cls`` call in GRAPH-R2's first obligation, and the obligation."""
    ob = next(o for o in run_smt(m).obligations if o.rule_id == ID)
    line = next(x for x in ob.text.splitlines() if x.startswith("(assert (= c0 "))
    call = _sexpr(line)[1][2]
    if call[0] == "let":  # an operation GRAPH-ATTRIBUTES blocks: its class term is the let's binding
        call = call[1][0][1]
    while call[0] != "cls":  # several candidate versions: the first call
        call = call[1][1][1]
    return dict(zip(classify.PARAMS, call[1:], strict=True)), ob.text


def codes(text: str, what: str) -> dict[str, str]:
    line = next(x for x in text.splitlines() if x.startswith(f"; {what} codes: "))
    return {name: code for code, name in (p.split(" ", 1) for p in line.split(": ", 1)[1].split(", "))}


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize(
    ("attrs", "rd"),
    [({"axis": 0}, "0"), ({"axis": 0, "reduction": "none"}, "1"), ({"axis": 0, "reduction": "add"}, "2")],
)
def test_reduction_fact(attrs: dict[str, Any], rd: str) -> None:
    facts, text = facts_of(scatter("ScatterElements", [[0, 1]], **attrs))
    assert (facts["rd"], facts["g0"], facts["g1"], facts["g2"], facts["v"]) == (rd, "1", "1", "1", "18")
    assert codes(text, "operator")["ScatterElements"] == facts["p"]
    assert codes(text, "domain")["ai.onnx"] == facts["d"]


@pytest.mark.rule("GRAPH-R2")
def test_reduction_none_as_bytes_is_no_reduction_in_both() -> None:
    s = Operation("ScatterND", "", "s", ("data", "idx", "upd"), ("y",), (Attribute("reduction", "STRING", b"none"),))
    ts = tensors(init("idx", np.asarray([[1], [1]], dtype=np.int64), 7))
    _direct, smt = both(model(make_graph("g", ["data", "upd"], ["y"], [s], ts), 18), same_reasons=True)
    assert smt.status is Status.VIOLATED


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize(
    ("o", "opset", "expected"),
    [
        (op("Dropout", ["x"], ["y"], is_test=1), 6, {"itk": "1", "itv": "1", "sk": "0", "g1": "0", "g2": "0"}),
        (op("Dropout", ["x"], ["y"], is_test=-2), 6, {"itk": "1", "itv": ["-", "2"], "v": "6"}),
        (op("Dropout", ["x"], ["y"], is_test=0.5), 6, {"itk": "2", "itv": "0"}),
        (op("TopK", ["x", "k"], ["v", "i"], sorted=0), 17, {"sk": "1", "sv": "0", "itk": "0", "itv": "0", "g1": "1",
                                                            "tk": "0", "tv": "0", "rd": "0"}),
        (op("TopK", ["x", "k"], ["v", "i"], sorted="no"), 17, {"sk": "2", "sv": "0"}),
        (op("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0), 24, {"tk": "1", "tv": "24", "g0": "1"}),
        (op("Cast", ["x"], ["y"], to="x"), 24, {"tk": "2", "tv": "0"}),
        (op("Relu", ["x"], ["y"]), 17, {"itk": "0", "itv": "0", "sk": "0", "sv": "0", "tk": "0", "tv": "0",
                                         "et": "0", "rd": "0", "g0": "1", "g1": "0"}),
        # the target element type is CastLike's alone, even where input 1 is declared
        (op("Add", ["x", "k"], ["y"]), 17, {"et": "0", "g1": "1"}),
    ],
)
def test_attribute_facts(o: Operation, opset: int, expected: dict[str, Any]) -> None:
    k = Tensor("k", TensorType("tensor", TensorProto.FLOAT, (1,)), None)
    facts, text = facts_of(model(make_graph("g", ["x", "k"], ["y"], [o], tensors(k)), opset))
    assert {k: facts[k] for k in expected} == expected
    assert codes(text, "operator")[o.operator] == facts["p"]


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
def test_castlike_target_fact() -> None:
    facts, _ = facts_of(castlike(target(TensorProto.FLOAT16)))
    assert facts["et"] == str(TensorProto.FLOAT16)


@pytest.mark.rule("GRAPH-R2")
def test_codes_of_other_domains_and_operators() -> None:
    ops = [
        op("Zeta", ["x"], ["a"], domain="b.vendor"),
        op("Alpha", ["a"], ["y"], domain="a.vendor"),
        op("Abs", ["x"], ["z"]),
    ]
    text = next(o for o in run_smt(model(make_graph("g", ["x"], ["y", "z"], ops))).obligations if o.rule_id == ID).text
    doms, opers = codes(text, "domain"), codes(text, "operator")
    assert list(doms.items())[-2:] == [("a.vendor", "3"), ("b.vendor", "4")]
    n = len({e.operator for e in table.TABLE})  # the table's operators come first
    assert list(opers.items())[-3:] == [("Abs", str(n + 1)), ("Alpha", str(n + 2)), ("Zeta", str(n + 3))]


@pytest.mark.rule("GRAPH-R2")
def test_an_omitted_data_input_has_no_declared_shape_in_both() -> None:
    # before: the direct rule read the shape of a value declared with the empty name (a file may declare one)
    # for an omitted data input, the SMT side did not, and the verdicts were VIOLATED and UNKNOWN
    s = op("ScatterND", ["", "idx", "upd"], ["y"], name="s")
    declared = Tensor("", TensorType("tensor", 1, (3,)), None)
    ts = tensors(init("idx", np.asarray([[-1], [2]], dtype=np.int64), 7), declared)
    direct, _smt = both(model(make_graph("g", ["upd"], ["y"], [s], ts), 18))
    assert direct.status is Status.UNKNOWN
    assert "holds negative indices and the data's dimensions are not established: the input is omitted" in (
        direct.reason or ""
    )


@pytest.mark.rule("GRAPH-R2")
def test_scatter_of_opset_10_pairs_in_both() -> None:
    m = dataclasses.replace(scatter("Scatter", [[1, 1]], axis=1), opset_imports={"": 10})
    _direct, smt = both(m, same_reasons=True)
    assert smt.status is Status.VIOLATED
    reason = next(e.reason for e in table.TABLE if e.operator == "Scatter")
    assert reasons(smt) == [pair(0, 1, [0, 1]).replace(DUP, reason)]


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    "o", [op("RandomNormal", [], ["y"], name="r", shape=(2,)), op("Bernoulli", ["x"], ["y"], name="r")]
)
def test_the_first_and_other_table_entries_give_their_reason(o: Operation) -> None:
    _direct, smt = both(model(make_graph("g", ["x"], ["y"], [o])), same_reasons=True)
    assert reasons(smt) == [next(e.reason for e in table.TABLE if e.operator == o.operator)]


@pytest.mark.rule("GRAPH-R2")
def test_the_last_table_entry_gives_its_reason() -> None:
    last = table.TABLE[-1]
    assert last.operator == "CastLike"
    _direct, smt = both(castlike(target(TensorProto.FLOAT8E8M0)))
    assert reasons(smt) == [f"input 'x' (defined in g), an initializer,: {last.reason}"]


@pytest.mark.rule("GRAPH-R2")
def test_disagreeing_versions_reason_in_smt() -> None:
    m = model(make_graph("g", ["x"], ["y"], [op("Dropout", ["x"], ["y"], is_test=1)]), opset_imports={})
    _direct, smt = both(m)
    assert (smt.reason or "").startswith(
        f"{UNDETERMINED}the model imports no opset for this domain and the versions disagree"
    )


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
def test_codes_of_the_table_come_first_in_table_order() -> None:
    _, text = facts_of(scatter("ScatterND", [[0]]))
    names = list(dict.fromkeys(e.operator for e in table.TABLE))
    assert list(codes(text, "operator").items())[: len(names)] == [(n, str(i)) for i, n in enumerate(names, 1)]
    domains = [("ai.onnx", "0"), ("ai.onnx.ml", "1"), ("ai.onnx.preview.training", "2")]
    assert list(codes(text, "domain").items())[:3] == domains


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
def test_the_obligation_comments_name_the_table_and_the_code() -> None:
    _, text = facts_of(scatter("ScatterND", [[0]]))
    line = next(x for x in text.splitlines() if x.startswith("; the determinism table ("))
    module, attr = line.split("(", 1)[1].split(")", 1)[0].rsplit(".", 1)
    assert getattr(importlib.import_module(module), attr) is table.TABLE
    legend = ";   code = class (0 deterministic, 1 unknown, 2 nondeterministic) + 4 * number of the deciding entry"
    assert legend in text.splitlines()
    assert (graph_r2.DET, graph_r2.UNK, graph_r2.NONDET) == (0, 1, 2)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("o", "opset", "why"),
    [
        (op("Gelu", ["x"], ["y"]), 17, "ai.onnx::Gelu: no such operator at opset 17"),
        (op("Relu", ["x"], ["y"]), 999, "ai.onnx::Relu: opset 999 is newer than the schemas sonnx knows"),
    ],
)
def test_no_schema_at_the_imported_opset_in_both(o: Operation, opset: int, why: str) -> None:
    direct, smt = both(model(make_graph("g", ["x"], ["y"], [o]), opset))
    for v in (direct, smt):
        assert (v.reason or "").startswith(UNDETERMINED + why), v


# -- operations that share an instance share every fact (the lister's caches) ----------------------------------------


def all_facts(m: Model) -> list[dict[str, Any]]:
    """The ``cls`` arguments of every instance of GRAPH-R2's first obligation, in instance order."""
    ob = next(o for o in run_smt(m).obligations if o.rule_id == ID)
    out = []
    for line in ob.text.splitlines():
        if line.startswith("(assert (= c") and " (cls " in line:
            call = _sexpr(line)[1][2]
            out.append(dict(zip(classify.PARAMS, call[1:], strict=True)))
    return out


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    "ops",
    [
        [op("Relu", ["x"], ["a"]), op("RandomUniformLike", ["a"], ["y"])],
        [op("Relu", ["x"], ["a"]), op("Relu", ["a"], ["y"], domain="com.vendor")],
        [op("TopK", ["x", "k"], ["a", "i"]), op("TopK", ["a", "k"], ["y", "j"], sorted=0)],
    ],
)
def test_an_operation_after_a_deterministic_one_gets_its_own_class(ops: list[Operation]) -> None:
    m = model(make_graph("g", ["x", "k"], ["y"], ops), opset_imports={"": 17, "com.vendor": 1})
    _direct, smt = both(m)
    assert smt.status is not Status.PROVED


@pytest.mark.rule("GRAPH-R2", "GRAPH-ATTRIBUTES")
@pytest.mark.parametrize("first_given", [False, True])
def test_scan_8_instances_follow_the_given_first_input(first_given: bool) -> None:
    # Scan without attributes (its body missing): only whether sequence_lens is given decides its class
    given, omitted = op("Scan", ["lens"], ["a"]), op("Scan", [""], ["b"])
    ops = [given, omitted] if first_given else [omitted, given]
    direct, smt = both(model(make_graph("g", ["lens"], ["a", "b"], ops), 8))
    # both lack their required body (GRAPH-ATTRIBUTES): the one the table calls deterministic is unknown for that,
    # the other keeps the table's reason; a shared instance would give both operations one of the two reasons
    seq = next(e.reason for e in table.TABLE if e.condition == table.SEQUENCE_LENS_GIVEN)
    for v in (direct, smt):
        reason = v.reason or ""
        assert reason.startswith("determinism of 2 operation(s) not established: "), v
        assert seq in reason and "attribute 'body' = absent is outside its definition (required)" in reason, v


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("inputs", "flags"),
    [
        ([["x"], ["x", "", "hi"]], [("1", "0", "0"), ("1", "0", "1")]),
        ([["x"], ["x", "lo"]], [("1", "0", "0"), ("1", "1", "0")]),
        ([["x", "lo", "hi"], ["x", "lo", ""]], [("1", "1", "1"), ("1", "1", "0")]),
        ([["x", "lo", "hi"], ["x", "lo"], ["x", "", "hi"], ["x"]], [("1", "1", "1"), ("1", "1", "0"), ("1", "0", "1"),
                                                                    ("1", "0", "0")]),
    ],
)
def test_operations_that_differ_in_given_inputs_get_their_own_facts(
    inputs: list[list[str]], flags: list[tuple[str, str, str]]
) -> None:
    ops = [op("Clip", i, [f"y{k}"]) for k, i in enumerate(inputs)]
    facts = all_facts(model(make_graph("g", ["x", "lo", "hi"], [f"y{k}" for k in range(len(inputs))], ops)))
    assert [(f["g0"], f["g1"], f["g2"]) for f in facts] == flags


# -- constants whose elements are not numbers (regressions found by this campaign) -----------------------------------


STRINGS = np.array(["a", "b"], dtype=object)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(
    ("m", "why"),
    [
        (scatter("ScatterND", np.array([["a"], ["b"]], dtype=object)), "holds values of type object, not integers"),
        (scatter("ScatterND", np.array([[1.5], [1.2]])), "holds values of type float64, not integers"),
        (scatter("ScatterElements", np.array([True, True]), axis=0), "holds values of type bool, not integers"),
        (mod(STRINGS, TensorProto.STRING), "holds values of type object, not numbers"),
        (mod(np.array([1j, 0j]), TensorProto.COMPLEX128), "holds values of type complex128, not numbers"),
        (dropout(np.array(["yes"], dtype=object), TensorProto.STRING), "holds values of type object, not booleans"),
        (cast(np.array(["-1", "x"], dtype=object), TensorProto.STRING), "holds values of type object, not numbers"),
    ],
)
def test_a_constant_that_does_not_hold_numbers_is_unknown_in_both(m: Model, why: str) -> None:
    # before: string indices, divisors, training_mode or cast inputs ended in an internal error (the direct rule
    # raised; the SMT encoding failed), a string divisor was PROVED by the direct rule, and float or bool
    # indices were truncated to integers
    direct, _smt = both(m)
    assert direct.status is Status.UNKNOWN
    assert why in (direct.reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_a_stray_axis_on_scatter_nd_is_not_in_its_reason() -> None:
    # ScatterND has no axis: an attribute of that name, of any type, is not read
    direct, smt = both(scatter("ScatterND", [[-1], [2]], axis="x"))
    assert direct.status is Status.UNKNOWN
    assert (smt.reason or "").startswith(f"{UNDETERMINED}indices 'idx' (defined in g), an initializer,: {DUP}")


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("to", [None, "FLOAT8E8M0"])
def test_the_smt_reason_of_a_cast_whose_to_is_not_known(to: str | None) -> None:
    cast = op("Cast", ["x"], ["y"], **({} if to is None else {"to": to}))
    _direct, smt = both(model(make_graph("g", [], ["y"], [cast], tensors(init("x", [1.0], 1))), 24))
    reason = next(e.reason for e in table.TABLE if e.operator == "Cast")
    assert (smt.reason or "").startswith(
        f"{UNDETERMINED}Cast's attribute 'to' is absent or not an INT, so the target type is not known: {reason}"
    )


@pytest.mark.rule("GRAPH-R2")
def test_the_smt_reason_of_a_castlike_without_an_established_target_says_why() -> None:
    _direct, smt = both(castlike(target(None)))
    reason = next(e.reason for e in table.TABLE if e.operator == "CastLike")
    why = "CastLike's target type is not established (graph input 't' declares no tensor type)"
    assert (smt.reason or "").startswith(f"{UNDETERMINED}{why}: {reason}")


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("empty_first", [True, False])
def test_an_operator_named_like_its_domain_shares_no_instance(empty_first: bool) -> None:
    # an operation of the default domain whose operator name is empty, and a Relu: one unknown, one deterministic
    empty, relu = Operation("", "", "e", ("x",), ("a",), ()), op("Relu", ["x"], ["y"])
    ops = [empty, relu] if empty_first else [relu, empty]
    for v in both(model(make_graph("g", ["x"], ["y", "a"], ops))):
        assert (v.reason or "").startswith(UNDETERMINED), v


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize("vendor_first", [True, False])
def test_operators_of_two_domains_share_no_instance(vendor_first: bool) -> None:
    vendor, default = op("Relu", ["x"], ["a"], domain="com.vendor"), op("Relu", ["x"], ["y"])
    ops = [vendor, default] if vendor_first else [default, vendor]
    for v in both(model(make_graph("g", ["x"], ["y", "a"], ops), opset_imports={"": 17, "com.vendor": 1})):
        assert (v.reason or "").startswith(UNDETERMINED), v


@pytest.mark.rule("GRAPH-R2")
def test_scan_8_without_an_opset_import_disagrees_with_the_later_versions() -> None:
    # only version 8 of the candidates (8, 9, 11, ...) has an entry: the first version alone disagrees
    scan = op("Scan", ["lens"], ["a"])
    for v in both(model(make_graph("g", ["lens"], ["a"], [scan]), opset_imports={})):
        assert (v.reason or "").startswith(
            f"{UNDETERMINED}the model imports no opset for this domain and the versions disagree"
        ), v


@pytest.mark.rule("GRAPH-R2")
def test_two_operations_with_a_value_condition_are_classified_apart() -> None:
    ops = [op("Mod", ["x", "d1"], ["a"], name="m1"), op("Mod", ["a", "d2"], ["y"], name="m2")]
    ts = tensors(init("d1", np.asarray([1], dtype=np.int64), 7), init("d2", np.asarray([0], dtype=np.int64), 7))
    _direct, smt = both(model(make_graph("g", ["x"], ["y"], ops, ts)))
    assert [f["operation"] for f in data(smt)["nondeterministic"]] == ["Mod:m2"]


@pytest.mark.rule("GRAPH-R2")
def test_an_attribute_less_operation_after_one_with_attributes_gets_its_own_class() -> None:
    ops = [op("TopK", ["x", "k"], ["a", "i"], name="t1", sorted=0), op("TopK", ["a", "k"], ["y", "j"], name="t2")]
    _direct, smt = both(model(make_graph("g", ["x", "k"], ["y"], ops)))
    assert [f["operation"] for f in data(smt)["nondeterministic"]] == ["TopK:t1"]


@pytest.mark.rule("GRAPH-R2")
def test_castlike_of_another_domain_keeps_its_own_target_type() -> None:
    ops = [op("CastLike", ["x", v], [o], domain="com.vendor") for v, o in (("t", "a"), ("u", "b"))]
    ts = tensors(target(TensorProto.FLOAT), Tensor("u", TensorType("tensor", TensorProto.INT8, (1,)), None))
    facts = all_facts(model(make_graph("g", ["x", "t", "u"], ["a", "b"], ops, ts), opset_imports={"": 24}))
    assert [f["et"] for f in facts] == [str(TensorProto.FLOAT), str(TensorProto.INT8)]


@pytest.mark.rule("GRAPH-R2")
def test_an_initializer_of_a_model_loaded_without_weights_is_unread_in_both() -> None:
    m = dataclasses.replace(dropout(False, TensorProto.BOOL), weights_loaded=False)
    for v in both(m):
        assert "the model was loaded without its weights, so the value was not read" in (v.reason or ""), v
