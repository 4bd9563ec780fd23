"""GRAPH-R2 and GRAPH-DETERMINISM never rest on an attribute GRAPH-ATTRIBUTES does not prove defined (both engines).

An operation whose attribute lies outside its definition, or whose check stays open, is of unknown determinism
unless the determinism table makes it nondeterministic; the reason names the attribute, and both engines give the
same verdicts and reasons.
"""

from __future__ import annotations

import re

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import Attribute, Model, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.smtkit import direct, disagreements, smt

MODES = ("search", "certificate")


def bare(reason: str | None) -> str:
    """A reason without the SMT engine's ``[smt/<mode>]`` tag."""
    return re.sub(r" \[smt/\w+\]$", "", reason or "")


def _model(ops: list, inputs: dict[str, tuple | None], opset: int = 17) -> Model:  # type: ignore[type-arg]
    ts = {n: Tensor(n, TensorType("tensor", 1, s)) for n, s in inputs.items()}
    outs = [ops[-1].output_mapping[0]]
    return Model(make_graph("g", list(inputs), outs, ops, ts), 8, {"": opset})


LOWER = _model([op("Conv", ["x", "w"], ["y"], name="c", auto_pad="same_upper")], {"x": (1, 1, 4, 4), "w": (1, 1, 3, 3)})
AUTO_PAD = "attribute 'auto_pad' = 'same_upper' is outside its definition"


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
@pytest.mark.parametrize("mode", MODES)
def test_an_attribute_outside_its_definition_makes_r2_and_determinism_unknown(mode: str) -> None:
    for verdicts in (direct(LOWER), smt(LOWER, mode)):
        r2, det = verdicts["GRAPH-R2"], verdicts["GRAPH-DETERMINISM"]
        assert r2.status is Status.UNKNOWN and AUTO_PAD in (r2.reason or ""), r2
        assert det.status is Status.UNKNOWN, det
    assert direct(LOWER)["GRAPH-R2"].reason == bare(smt(LOWER, mode)["GRAPH-R2"].reason)
    assert AUTO_PAD in (direct(LOWER)["GRAPH-DETERMINISM"].reason or "")
    assert disagreements(LOWER)[0] == []


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_the_same_operation_with_a_defined_value_is_proved_in_both_engines() -> None:
    good = _model([op("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER")], {"x": (1, 1, 4, 4), "w": (1, 1, 3, 3)})
    out, s, d = disagreements(good)
    assert out == []
    assert d["GRAPH-R2"].status is s["GRAPH-R2"].status is Status.PROVED
    assert d["GRAPH-DETERMINISM"].status is s["GRAPH-DETERMINISM"].status is Status.PROVED


@pytest.mark.rule("GRAPH-R2")
def test_an_open_attribute_check_also_keeps_r2_from_proved() -> None:
    m = _model([op("Softmax", ["x"], ["y"], axis=1)], {"x": None})
    out, s, d = disagreements(m)
    assert out == []
    assert d["GRAPH-R2"].status is Status.UNKNOWN
    assert "rank of input 'x' is not established" in (d["GRAPH-R2"].reason or "")
    assert bare(s["GRAPH-R2"].reason) == d["GRAPH-R2"].reason


@pytest.mark.rule("GRAPH-R2")
def test_the_table_overrides_the_attribute_unless_it_says_nondeterministic() -> None:
    # TopK with sorted=2: the table reads "sorted is not 0" (deterministic), but 2 is no value of the flag
    topk = _model([op("TopK", ["x", "k"], ["y", "i"], sorted=2)], {"x": (2, 3), "k": (1,)})
    # a random generator stays nondeterministic whatever its attributes say
    rnd = _model([op("RandomNormalLike", ["x"], ["y"], bogus=1)], {"x": (2, 3)})
    for m, expected in ((topk, Status.UNKNOWN), (rnd, Status.VIOLATED)):
        out, s, d = disagreements(m)
        assert out == []
        assert d["GRAPH-R2"].status is s["GRAPH-R2"].status is expected
    assert "attribute 'sorted' = 2" in (direct(topk)["GRAPH-R2"].reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_operations_with_different_attribute_reasons_keep_their_own_reasons() -> None:
    # the SMT engine groups operations by their facts: two problems, two reasons, in both engines
    ops = [
        op("Conv", ["x", "w"], ["a"], auto_pad="same_upper"),
        op("Conv", ["a", "w"], ["b"], auto_pad="valid"),
        op("Relu", ["b"], ["y"]),
    ]
    m = _model(ops, {"x": (1, 1, 4, 4), "w": (1, 1, 3, 3)})
    d, s = direct(m)["GRAPH-R2"], smt(m)["GRAPH-R2"]
    assert d.reason == bare(s.reason) and "'same_upper'" in (d.reason or "") and "'valid'" in (d.reason or "")
    assert (d.reason or "").startswith("determinism of 2 operation(s) not established")


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_an_attribute_problem_in_a_nested_graph_reaches_the_holder() -> None:
    then_g = make_graph("t", [], ["a"], [op("Softmax", ["x"], ["a"], axis=7)])
    else_g = make_graph("e", [], ["b"], [op("Relu", ["x"], ["b"])])
    holder = op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)
    ts = {"x": Tensor("x", TensorType("tensor", 1, (2, 2))), "c": Tensor("c", TensorType("tensor", 9, ()))}
    m = Model(make_graph("g", ["c", "x"], ["y"], [holder], ts), 8, {"": 17})
    out, _, d = disagreements(m)
    assert out == []
    assert d["GRAPH-DETERMINISM"].status is Status.UNKNOWN
    assert "nested graph" in (d["GRAPH-DETERMINISM"].reason or "")


@pytest.mark.rule("GRAPH-R2")
def test_a_mistyped_attribute_is_named_in_both_engines() -> None:
    bad = op("Softmax", ["x"], ["y"])._replace(attributes=(Attribute("axis", "FLOAT", 1.0),))
    m = _model([bad], {"x": (2, 3)})
    out, s, d = disagreements(m)
    assert out == [] and d["GRAPH-R2"].reason == bare(s["GRAPH-R2"].reason)
    assert "a value of type INT, not FLOAT" in (d["GRAPH-R2"].reason or "")
