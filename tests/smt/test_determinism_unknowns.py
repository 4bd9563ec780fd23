"""GRAPH-DETERMINISM's UNKNOWN answers under the SMT engine, each with its exact reason and mode.

Every way the rule can fall short of a verdict is its own reason: a premise
(GRAPH-ACYCLIC, GRAPH-C1) the engine did not prove, GRAPH-R2's
classification not known, no dependency order (a tool defect), and an
operation of unknown determinism that may reach an output. A reason that
is wrong, or an exception caught by the engine in its place, would tell a
safety engineer the wrong thing to fix. Each case also checks that a
nested graph's class reaches the operation holding it whichever of its
graphs is decided first.
"""

from __future__ import annotations

import pytest

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Model, Operation, make_operation
from sonnx.smt import run_smt
from tests.common.smtkit import direct, g, model, smt

ID = "GRAPH-DETERMINISM"


def _verdict(m: Model) -> Verdict:
    return smt(m)[ID]


def _random() -> Model:
    """One random operation whose value is the graph output: nondeterministic, if anything can be decided."""
    return model(g(["x"], ["y"], [Operation("RandomUniformLike", "", "r", ("x",), ("y",))]))


def _unknown(m: Model, reason: str) -> None:
    v = _verdict(m)
    assert v.status is Status.UNKNOWN, v
    assert v.reason == f"{reason} [smt/search]", v.reason


@pytest.mark.rule("GRAPH-C1", "GRAPH-DETERMINISM")
def test_a_model_breaking_graph_c1_is_unknown_for_that_reason() -> None:
    ops = [Operation("Relu", "", "a", ("x",), ("y",)), Operation("Neg", "", "b", ("x",), ("y",))]
    _unknown(
        model(g(["x"], ["y"], ops)),
        "graph determinism is stated for graphs where GRAPH-C1 holds, and the SMT engine did not prove it",
    )


@pytest.mark.rule("GRAPH-ACYCLIC", "GRAPH-DETERMINISM")
def test_a_cyclic_model_is_unknown_for_that_reason() -> None:
    ops = [Operation("Relu", "", "a", ("z",), ("y",)), Operation("Neg", "", "b", ("y",), ("z",))]
    _unknown(
        model(g(["x"], ["y"], ops)),
        "graph determinism is stated for graphs where GRAPH-ACYCLIC holds, and the SMT engine did not prove it",
    )


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
def test_without_graph_r2_classes_the_rule_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPH-R2's obligation left unanswered: no class is known, so no source either."""
    from sonnx.smt.encodings import graph_r2
    from sonnx.smt.solver import Answer

    m = _random()
    real = graph_r2.ask_one

    def withhold(ob, local=False):  # type: ignore[no-untyped-def]
        if ob.name == "r2.certain":
            yield from ()
            return Answer("unknown", "withheld by the test")
        return (yield from real(ob, local=local))

    monkeypatch.setattr(graph_r2, "ask_one", withhold)
    _unknown(m, "the classification of the operations is not known (GRAPH-R2)")


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_no_dependency_order_is_a_tool_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    from sonnx.smt.encodings import graph_determinism

    m = _random()
    monkeypatch.setattr(graph_determinism, "ranks_of", lambda f: None)
    _unknown(m, "no dependency order found for graph g (a tool defect)")


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_an_unanswered_recheck_of_a_differing_output_is_unknown_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The witness's output is confirmed by checking the solver again; an unknown there is the verdict."""
    from sonnx.smt.encodings import graph_determinism
    from sonnx.smt.solver import Answer

    monkeypatch.setattr(graph_determinism, "recheck", lambda answer, names: Answer("unknown", "withheld by the test"))
    _unknown(_random(), "withheld by the test")


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_an_operation_of_unknown_determinism_reaching_an_output() -> None:
    m = model(g(["x"], ["y"], [Operation("Mystery", "com.acme", "m", ("x",), ("y",))]))
    _unknown(m, "an operation of unknown determinism may reach an output")


def _if(then_ops: list[Operation], else_ops: list[Operation]) -> Model:
    then_g = g([], ["h"], then_ops)
    else_g = g([], ["h"], else_ops)
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    return model(g(["x", "c"], ["y"], [if_op]))


RANDOM = Operation("RandomNormalLike", "", "rn", ("x",), ("h",))
MYSTERY = Operation("Mystery", "com.acme", "m", ("x",), ("h",))


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_no_dependency_order_for_the_main_graph_keeps_the_branches_obligations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The branch holding the random operation is solved first; when the main graph then has no order, the
    verdict is the tool defect and the branch's two-run obligation stays in the record."""
    from sonnx.smt.encodings import graph_determinism

    real = graph_determinism.ranks_of
    monkeypatch.setattr(graph_determinism, "ranks_of", lambda f: None if f.index == 0 else real(f))
    m = _if([RANDOM], [Operation("Neg", "", "n", ("x",), ("h",))])
    run = run_smt(m)
    v = next(x for x in run.verdicts if x.rule_id == ID)
    assert v.status is Status.UNKNOWN
    assert v.reason == "no dependency order found for graph g (a tool defect) [smt/search]"
    assert [ob.name for ob in run.obligations if ob.rule_id == ID] == ["determinism.scope2"]


@pytest.mark.rule("GRAPH-DETERMINISM")
@pytest.mark.parametrize(
    ("then_ops", "else_ops"), [([RANDOM], [MYSTERY]), ([MYSTERY], [RANDOM])], ids=["random-then", "random-else"]
)
def test_a_nondeterministic_branch_outweighs_an_unknown_one(
    then_ops: list[Operation], else_ops: list[Operation]
) -> None:
    """One branch certainly nondeterministic, the other unknown: the If is a source, whichever comes first."""
    m = _if(then_ops, else_ops)
    v = _verdict(m)
    assert v.status is Status.VIOLATED, v
    assert v.witness is not None and v.witness.data["source"]["operation"] == "If:if"
    assert direct(m)[ID].status is Status.VIOLATED


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_every_unknown_reason_names_the_search_mode() -> None:
    """GRAPH-DETERMINISM is always decided in search mode, in certificate mode too (module docstring)."""
    m = model(g(["x"], ["y"], [Operation("Mystery", "com.acme", "m", ("x",), ("y",))]))
    v = next(x for x in run_smt(m, mode="certificate").verdicts if x.rule_id == ID)
    assert v.status is Status.UNKNOWN and (v.reason or "").endswith(" [smt/search]"), v.reason
