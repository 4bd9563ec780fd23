"""GRAPH-DETERMINISM (direct engine): can a nondeterministic value reach a graph output?

Each case also states the GRAPH-R2 verdict, to show the two findings apart:
a random operation feeding only dead operations breaks R2, not determinism.
"""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.model.graph import make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import init, model, run, tensors

ID = "GRAPH-DETERMINISM"


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
@pytest.mark.parametrize("random_first", [True, False])
def test_random_feeding_only_a_dead_operation_breaks_r2_not_determinism(random_first: bool) -> None:
    # listed first or after the operations that reach the output: only the random operation's own successors
    # are followed, never those of the operations listed before it
    live = [op("Relu", ["x"], ["a"]), op("Neg", ["a"], ["y"])]
    dead = [op("RandomNormalLike", ["x"], ["r"]), op("Add", ["x", "r"], ["dead"])]
    m = model(make_graph("g", ["x"], ["y"], dead + live if random_first else live + dead))
    assert run("GRAPH-R2", m).status is Status.VIOLATED
    assert run(ID, m).status is Status.PROVED


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_random_reaching_an_output_is_a_violation_with_its_path() -> None:
    g = make_graph(
        "g",
        ["x"],
        ["y"],
        [
            op("RandomUniformLike", ["x"], ["r"], name="rnd"),
            op("Add", ["x", "r"], ["s"], name="add"),
            op("Relu", ["s"], ["y"], name="relu"),
        ],
    )
    v = run(ID, model(g))
    assert v.status is Status.VIOLATED and v.witness is not None
    data = v.witness.data
    assert data["output"] == "y"
    assert data["source"]["operation"] == "RandomUniformLike:rnd"
    assert [s["operation"] for s in data["path"]] == ["RandomUniformLike:rnd", "Add:add", "Relu:relu"]
    assert [s["tensor"] for s in data["path"]] == ["r", "s", "y"]
    assert "pseudo-random" in data["source_reason"]


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_nondeterministic_nested_graph_makes_its_holder_a_source() -> None:
    then_g = make_graph("then", [], ["a"], [op("RandomNormalLike", ["x"], ["a"])])
    else_g = make_graph("else", [], ["b"], [op("Relu", ["x"], ["b"])])
    g = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)])
    v = run(ID, model(g))
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["source"]["operation"] == "If:if"
    assert "nested graph" in v.witness.data["source_reason"]


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_the_holder_is_the_operation_that_holds_the_nondeterministic_graph() -> None:
    # a deterministic If comes first, so the holder of the second If's branch must be found by identity
    calm_then = make_graph("calm_then", [], ["p"], [op("Relu", ["x"], ["p"])])
    calm_else = make_graph("calm_else", [], ["q"], [op("Neg", ["x"], ["q"])])
    wild_then = make_graph("wild_then", [], ["a"], [op("RandomNormalLike", ["x"], ["a"])])
    wild_else = make_graph("wild_else", [], ["b"], [op("Relu", ["x"], ["b"])])
    ops = [
        op("If", ["c"], ["u"], name="calm", then_branch=calm_then, else_branch=calm_else),
        op("If", ["c"], ["y"], name="wild", then_branch=wild_then, else_branch=wild_else),
    ]
    v = run(ID, model(make_graph("g", ["c", "x"], ["y", "u"], ops)))
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["output"] == "y" and v.witness.data["source"]["operation"] == "If:wild"


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_deterministic_nested_graphs_and_dropout_in_inference_are_proved() -> None:
    then_g = make_graph("then", [], ["a"], [op("Relu", ["x"], ["a"])])
    else_g = make_graph("else", [], ["b"], [op("Neg", ["x"], ["b"])])
    g = make_graph(
        "g",
        ["c", "x"],
        ["y", "z"],
        [
            op("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
            op("Dropout", ["x", "ratio", "mode"], ["z"]),
        ],
        tensors(init("ratio", 0.5), init("mode", False, 9)),
    )
    assert run(ID, model(g)).status is Status.PROVED


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_unknown_operator_reaching_an_output_is_unknown_not_a_pass() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Mystery", ["x"], ["y"], domain="com.vendor")])
    v = run(ID, model(g, opset_imports={"": 17, "com.vendor": 1}))
    assert v.status is Status.UNKNOWN and "Mystery" in (v.reason or "")


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_a_nested_graph_of_unknown_determinism_makes_its_holder_unknown_and_says_so() -> None:
    then_g = make_graph("then", [], ["a"], [op("Mystery", ["x"], ["a"], domain="com.vendor")])
    else_g = make_graph("else", [], ["b"], [op("Relu", ["x"], ["b"])])
    g = make_graph("g", ["c", "x"], ["y"], [op("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)])
    v = run(ID, model(g, opset_imports={"": 17, "com.vendor": 1}))
    assert v.status is Status.UNKNOWN
    assert v.reason == (
        "If:if, of unknown determinism (nested graph g/If:if.then_branch has operations of unknown determinism), "
        "reaches graph output 'y'"
    )


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_unknown_operator_feeding_nothing_leaves_the_outputs_deterministic() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Mystery", ["x"], ["m"], domain="com.vendor"), op("Relu", ["x"], ["y"])])
    assert run(ID, model(g, opset_imports={"": 17, "com.vendor": 1})).status is Status.PROVED


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-DETERMINISM")
def test_not_decided_on_a_cyclic_graph() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Add", ["x", "y"], ["y"])])
    v = run(ID, model(g))
    assert v.status is Status.UNKNOWN and "GRAPH-ACYCLIC" in (v.reason or "")


@pytest.mark.rule("GRAPH-C1", "GRAPH-DETERMINISM")
def test_not_decided_without_single_assignment() -> None:
    g = make_graph("g", ["x"], ["y"], [op("Relu", ["x"], ["y"]), op("Neg", ["x"], ["y"])])
    v = run(ID, model(g))
    assert v.status is Status.UNKNOWN and "GRAPH-C1" in (v.reason or "")
