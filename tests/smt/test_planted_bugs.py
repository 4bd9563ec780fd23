"""Cases that planted bugs of the audit got wrong, each decided by both engines.

Every test names the mutant of ``docs/mutation.rst`` it kills. Each asserts the
expected status of the direct engine and of the SMT engine (both modes where the
SMT engine has two), so a bug in either engine turns the test red.
"""

from __future__ import annotations

from typing import Any

import pytest

from sonnx.base.verdict import Status, Verdict
from sonnx.model.graph import Attribute, Model, Operation, make_operation
from tests.common.smtkit import const, direct, g, model, smt

MODES = ("search", "certificate")


def op(kind: str, ins: tuple[str, ...], outs: tuple[str, ...], name: str = "", **attrs: Any) -> Operation:
    return make_operation(kind, list(ins), list(outs), name=name, **attrs)


def statuses(m: Model, rule: str) -> dict[str, Status]:
    """The status of ``rule`` from the direct engine and from the SMT engine in each mode."""
    out = {"direct": direct(m)[rule].status}
    for mode in MODES:
        out[mode] = smt(m, mode)[rule].status
    return out


def all_are(m: Model, rule: str, status: Status) -> None:
    got = statuses(m, rule)
    assert set(got.values()) == {status}, got


def smt_verdict(m: Model, rule: str, mode: str = "search") -> Verdict:
    return smt(m, mode)[rule]


# -- contribution through any output --------------------------------------------------------------


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_an_operation_contributes_through_its_second_output() -> None:
    """Kills: contribution counted only through an operation's first output."""
    split = op("Split", ("x",), ("a", "b"), "split")
    m = model(g(["x"], ["y"], [split, op("Relu", ("b",), ("y",), "relu")]))
    all_are(m, "GRAPH-R1-TRANSITIVE", Status.PROVED)
    all_are(m, "GRAPH-R1", Status.PROVED)
    # the second output directly a graph output
    m2 = model(g(["x"], ["b"], [split]))
    all_are(m2, "GRAPH-R1-TRANSITIVE", Status.PROVED)
    all_are(m2, "GRAPH-R1", Status.PROVED)


@pytest.mark.rule("GRAPH-R1", "GRAPH-R1-TRANSITIVE")
def test_an_operation_whose_outputs_are_all_unused_does_not_contribute() -> None:
    """The counterpart: with neither output used the Split is dead (so the previous test can fail)."""
    split = op("Split", ("x",), ("a", "b"), "split")
    m = model(g(["x"], ["y"], [split, op("Relu", ("x",), ("y",), "relu")]))
    all_are(m, "GRAPH-R1-TRANSITIVE", Status.VIOLATED)
    all_are(m, "GRAPH-R1", Status.VIOLATED)


# -- nested graphs: UNKNOWN goes up ---------------------------------------------------------------


def _if_model(then_ops: list[Operation], then_out: str) -> Model:
    then_g = g([], [then_out], then_ops)
    else_g = g([], ["k"], [op("Identity", ("x",), ("k",))])
    if_op = make_operation("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g)
    return model(g(["x", "c"], ["y"], [if_op]))


@pytest.mark.rule("GRAPH-DETERMINISM")
def test_unknown_determinism_in_a_branch_makes_the_graph_unknown() -> None:
    """Kills: UNKNOWN from a nested graph not propagated to the operation holding it."""
    mystery = Operation("Mystery", "com.acme", "m", ("x",), ("h",))
    m = _if_model([mystery], "h")
    assert direct(m)["GRAPH-DETERMINISM"].status is Status.UNKNOWN
    v = smt_verdict(m, "GRAPH-DETERMINISM")
    assert v.status is Status.UNKNOWN, v
    # the same unknown operator in a branch whose result reaches no output leaves the graph deterministic
    quiet = _if_model([mystery, op("Identity", ("x",), ("h2",))], "h2")
    assert smt_verdict(quiet, "GRAPH-DETERMINISM").status is Status.PROVED
    assert direct(quiet)["GRAPH-DETERMINISM"].status is Status.PROVED


# -- every graph output is compared ---------------------------------------------------------------


@pytest.mark.rule("GRAPH-DETERMINISM")
@pytest.mark.parametrize("mode", MODES)
def test_determinism_compares_every_graph_output(mode: str) -> None:
    """Kills: only the first graph output compared between the two runs."""
    ops = [op("Relu", ("x",), ("y",), "relu"), op("RandomUniformLike", ("x",), ("r",), "rnd")]
    m = model(g(["x"], ["y", "r"], ops))
    assert direct(m)["GRAPH-DETERMINISM"].status is Status.VIOLATED
    v = smt_verdict(m, "GRAPH-DETERMINISM", mode)
    assert v.status is Status.VIOLATED and v.witness is not None
    assert v.witness.data["output"] == "r"
    # and in a nested graph: the random value is the branch's second output
    then_g = g([], ["h", "hr"], [op("Identity", ("x",), ("h",)), op("RandomNormalLike", ("x",), ("hr",), "rn")])
    else_g = g([], ["k", "kr"], [op("Identity", ("x",), ("k",)), op("Identity", ("x",), ("kr",))])
    if_op = make_operation("If", ["c"], ["y", "z"], name="if", then_branch=then_g, else_branch=else_g)
    nested = model(g(["x", "c"], ["y", "z"], [if_op]))
    assert smt_verdict(nested, "GRAPH-DETERMINISM", mode).status is Status.VIOLATED


# -- R2 conditions -------------------------------------------------------------------------------


@pytest.mark.rule("GRAPH-R2", "GRAPH-DETERMINISM")
@pytest.mark.parametrize(("sorted_attr", "expected"), [(0, Status.VIOLATED), (1, Status.PROVED), (None, Status.PROVED)])
def test_topk_is_nondeterministic_exactly_when_unsorted(sorted_attr: int | None, expected: Status) -> None:
    """Kills: the TopK ``sorted`` test flipped (or dropped)."""
    attrs = {} if sorted_attr is None else {"sorted": sorted_attr}
    topk = op("TopK", ("x", "k"), ("v", "i"), "topk", **attrs)
    m = model(g(["x"], ["v", "i"], [topk], {"k": [1]}), opset=17)
    all_are(m, "GRAPH-R2", expected)
    all_are(m, "GRAPH-DETERMINISM", expected)


@pytest.mark.rule("GRAPH-R2")
@pytest.mark.parametrize(("is_test", "expected"), [(1, Status.PROVED), (0, Status.VIOLATED), (None, Status.VIOLATED)])
def test_dropout_6_is_inference_only_with_a_nonzero_is_test(is_test: int | None, expected: Status) -> None:
    """Kills: any ``is_test`` value (0 included) counted as inference."""
    attrs = {} if is_test is None else {"is_test": is_test}
    m = model(g(["x"], ["y"], [op("Dropout", ("x",), ("y",), "drop", **attrs)]), opset=6)
    all_are(m, "GRAPH-R2", expected)


def _dropout_13(inputs: list[str], inits: dict[str, Any]) -> Model:
    ops = [op("Dropout", ("x", "", "t"), ("y",), "drop")]
    return model(g(inputs, ["y"], ops, inits), opset=13)


@pytest.mark.rule("GRAPH-R2")
def test_training_mode_from_a_graph_input_is_a_run_time_value() -> None:
    """Kills: the training-mode-from-graph-input check dropped.

    A graph input is given at run time even when an initializer supplies a
    default (here False); only a constant that no input overrides is known.
    """
    all_are(_dropout_13(["x", "t"], {}), "GRAPH-R2", Status.VIOLATED)
    all_are(_dropout_13(["x", "t"], {"t": False}), "GRAPH-R2", Status.VIOLATED)
    all_are(_dropout_13(["x"], {"t": False}), "GRAPH-R2", Status.PROVED)
    all_are(_dropout_13(["x"], {"t": True}), "GRAPH-R2", Status.VIOLATED)


@pytest.mark.rule("GRAPH-R2")
def test_training_mode_from_a_constant_operation() -> None:
    value = Attribute("value", "TENSOR", const(False))
    ops = [Operation("Constant", "", "c", (), ("t",), (value,)), op("Dropout", ("x", "", "t"), ("y",), "drop")]
    m = model(g(["x"], ["y"], ops), opset=13)
    all_are(m, "GRAPH-R2", Status.PROVED)


def test_every_planted_mutant_still_applies_to_the_code() -> None:
    # tools/planted_mutants.py is not run in CI: a refactoring that moves a mutant's text must fail here instead
    from pathlib import Path

    from tools.planted_mutants import MUTANTS

    root = Path(__file__).resolve().parents[2]
    stale = [(m.key, m.path) for m in MUTANTS if (root / m.path).read_text(encoding="utf-8").count(m.old) != 1]
    assert not stale, f"planted mutants whose text is not found exactly once: {stale}"
