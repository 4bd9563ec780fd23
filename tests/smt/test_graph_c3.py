"""GRAPH-C3 as SMT: every graph output is defined, captures and nested graphs included, with the witness chain."""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status
from sonnx.base.witness import LIMIT
from sonnx.model.graph import make_operation
from sonnx.smt import undefined_chain
from sonnx.smt.encodings import graph_c3
from sonnx.smt.facts import model_facts
from tests.common.smtkit import MODES, disagreements, g, model, op, smt

pytestmark = pytest.mark.rule("GRAPH-C3")


@pytest.mark.parametrize("mode", MODES)
def test_completeness(mode: str) -> None:
    ok = model(g(["x"], ["z"], [op("Relu", ("x",), ("y",)), op("Neg", ("y",), ("z",))]))
    assert smt(ok, mode)["GRAPH-C3"].status is Status.PROVED
    # a tensor without a value that no graph output needs: the outputs are still complete
    side = model(g(["x"], ["y"], [op("Relu", ("x",), ("y",)), op("Neg", ("ghost",), ("z",))]))
    assert smt(side, mode)["GRAPH-C3"].status is Status.PROVED
    bad = model(g(["x"], ["z", "y"], [op("Relu", ("x",), ("y",)), op("Neg", ("ghost",), ("z",), "neg")]))
    v = smt(bad, mode)["GRAPH-C3"]
    assert v.status is Status.VIOLATED and v.witness is not None
    d = v.witness.data
    assert d["undefined"] == [{"scope": "g", "output": "z"}]
    assert d["root"] == "ghost" and d["ends"] == "no producer"


def test_completeness_cycle_does_not_support_itself() -> None:
    m = model(g(["x"], ["b"], [op("Add", ("x", "b"), ("a",)), op("Neg", ("a",), ("b",))]))
    v = smt(m)["GRAPH-C3"]
    assert v.status is Status.VIOLATED and v.witness is not None and v.witness.data["ends"] == "cycle"


def test_captured_outer_value_is_defined_in_a_branch() -> None:
    then_g = g([], ["h"], [op("Identity", ("x",), ("h",))])
    else_g = g([], ["k"], [op("Identity", ("ghost",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    v = smt(model(g(["x", "c"], ["y"], [if_op])))["GRAPH-C3"]
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["undefined"][0]["output"] in ("k", "y")


@pytest.mark.parametrize("mode", MODES)
def test_a_branch_capturing_an_outer_initializer_is_bound_to_it(mode: str) -> None:
    """An outer initializer is a definition a branch can capture (seed 000: names are visible in nested
    graphs): the capture fact ties the branch's ``w`` to the main graph's initializer, so GRAPH-C3 is proved;
    the branch's own initializer ``w`` in the other branch shadows it and is recorded as a shadow."""
    then_g = g([], ["h"], [op("Add", ("x", "w"), ("h",))])
    else_g = g([], ["k"], [op("Identity", ("w",), ("k",))], inits={"w": [2.0]})
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y"], [if_op], inits={"w": [1.0]}))
    main, else_f, then_f = model_facts(m)  # nested graphs in the order of their attribute names
    assert sorted(then_f.captures) == sorted([(then_f.tid["w"], main.tid["w"]), (then_f.tid["x"], main.tid["x"])])
    assert else_f.shadows == [(else_f.tid["w"], main.tid["w"])] and else_f.captures == []
    assert smt(m, mode)["GRAPH-C3"].status is Status.PROVED


def test_a_chain_ending_at_an_operation_with_every_input_defined_is_named_inconsistent() -> None:
    """GRAPH-C3's witness chain follows undefined tensors back; if the values it follows (the solver's model)
    call an output undefined although everything its producer reads is defined, the chain stops there and says
    so, naming that tensor, instead of failing while it writes the witness."""
    m = model(g(["x"], ["y"], [op("Relu", ("x",), ("a",), "r"), op("Abs", ("a",), ("y",), "abs")]))
    (f,) = model_facts(m)
    steps, end = undefined_chain.chain(f, lambda t: t == f.tid["y"], f.tid["y"])
    assert end == "inconsistent model"
    listed = [undefined_chain.step_record(f, x) for x in steps]
    assert listed == [{"tensor": "y", "producer": {"index": 1, "operation": "Abs:abs"}, "missing_input": None}]
    v = graph_c3._report([(f, f.tid["y"])], lambda t: t == f.tid["y"], "search", []).verdict
    assert v.witness is not None and v.witness.data["root"] == "y" and v.witness.data["ends"] == "inconsistent model"


@pytest.mark.parametrize("mode", MODES)
def test_completeness_violated_inside_a_branch(mode: str) -> None:
    # the never-defined set of a nested graph, whose operation ids start after the main graph's
    then_g = g([], ["h"], [op("Relu", ("x",), ("a",)), op("Neg", ("ghost",), ("h",), "neg")])
    else_g = g([], ["h2"], [op("Relu", ("x",), ("h2",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    m = model(g(["x", "c"], ["y", "z"], [op("Abs", ("x",), ("z",)), if_op]))
    assert not disagreements(m)[0]
    v = smt(m, mode)["GRAPH-C3"]
    assert v.status is Status.VIOLATED and v.witness is not None, v
    # the branch's output, and the If's output y, which needs the branch
    undefined = [{"scope": "g", "output": "y"}, {"scope": "g/If:if.then_branch", "output": "h"}]
    assert v.witness.data["undefined"] == undefined


@pytest.mark.parametrize("mode", MODES)
def test_a_chain_longer_than_a_witness_list_is_counted_whole(mode: str) -> None:
    """The witness lists the first LIMIT steps back from the output; its length and root are the whole chain's."""
    n = LIMIT + 30
    ops = [op("Neg", ("ghost" if i == 0 else f"t{i - 1}",), (f"t{i}",), f"n{i}") for i in range(n)]
    v = smt(model(g(["x"], [f"t{n - 1}"], ops)), mode)["GRAPH-C3"]
    assert v.status is Status.VIOLATED and v.witness is not None
    data = v.witness.data
    assert data["chain_length"] == n + 1 and len(data["chain"]) == LIMIT and data["root"] == "ghost"
    assert data["chain"][0] == {
        "tensor": f"t{n - 1}", "producer": {"index": n - 1, "operation": f"Neg:n{n - 1}"}, "missing_input": f"t{n - 2}"
    }
    assert data["ends"] == "no producer"
