"""The execution semantics (spec/graph.rst, dynamic semantics) over the symbolic domain."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sonnx.model import (
    FileOrder,
    LastReadyOrder,
    SeededRandomOrder,
    evaluate,
    executable,
    fire,
    initial_state,
    is_executable,
    make_graph,
    make_operation,
    run,
)
from sonnx.model.graph import Graph, Operation
from sonnx.model.symbolic import SymbolicInterpretation, Term, atom

SYM = SymbolicInterpretation()


def seed001_graph() -> Graph:
    """The example of the SONNX V2 informal specification (Constant output named c)."""
    return make_graph(
        "Test",
        ["I1", "I2"],
        ["O1", "O2"],
        [
            make_operation("Add", ["I1", "I2"], ["O1"]),
            make_operation("Constant", [], ["c"], value=2.0),
            make_operation("Mul", ["O1", "c"], ["O2"]),
            make_operation("Sub", ["I1", "I2"], ["op4_out"]),
        ],
    )


def inputs_of(g: Graph) -> dict[str, Term]:
    return {n: atom(n) for n in g.inputs}


def test_seed001_example_gives_the_expected_terms() -> None:
    out = evaluate(seed001_graph(), inputs_of(seed001_graph()), SYM)
    assert str(out["O2"]) == "Mul(Add(I1, I2), c)"
    assert str(out["O1"]) == "Add(I1, I2)"


def test_initially_only_inputs_have_values_and_executable_follows_inputs() -> None:
    g = seed001_graph()
    s0 = initial_state(g, inputs_of(g))
    assert set(s0.values) == {"I1", "I2"}
    # Add, Constant (no inputs) and Sub are executable; Mul waits for O1 and c.
    assert executable(g, s0) == (0, 1, 3)
    s1 = fire(g, s0, 0, SYM)
    assert set(s0.values) == {"I1", "I2"}, "fire must not change the state it is given"
    assert "O1" in s1.values and 0 in s1.fired
    assert not is_executable(g, s1, 0), "an operation fires at most once"
    with pytest.raises(ValueError):
        fire(g, s1, 2, SYM)  # Mul still lacks c


def test_run_stops_when_nothing_is_executable_and_fires_each_operation_once() -> None:
    g = seed001_graph()
    final = run(g, initial_state(g, inputs_of(g)), SYM, FileOrder())
    assert final.fired == frozenset(range(4))
    assert executable(g, final) == ()


def test_operation_waiting_on_an_undefined_tensor_never_fires() -> None:
    g = make_graph("g", ["x"], ["y"], [make_operation("Add", ["x", "ghost"], ["y"])])
    final = run(g, initial_state(g, {"x": atom("x")}), SYM, FileOrder())
    assert final.fired == frozenset()
    assert "y" not in final.values


def test_omitted_optional_input_is_not_required() -> None:
    g = make_graph("g", ["x"], ["y"], [make_operation("Clip", ["x", "", "hi"], ["y"]),
                                       make_operation("Constant", [], ["hi"], value=1.0)])
    out = evaluate(g, {"x": atom("x")}, SYM)
    assert str(out["y"]) == "Clip(x, <absent>, hi)"


def test_if_runs_both_branches_symbolically_with_captured_outer_tensors() -> None:
    then_g = make_graph("then", [], ["t"], [make_operation("Neg", ["a"], ["t"])])
    else_g = make_graph("else", [], ["e"], [make_operation("Abs", ["a"], ["e"])])
    g = make_graph(
        "main",
        ["x", "cond"],
        ["y"],
        [
            make_operation("Relu", ["x"], ["a"]),
            make_operation("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
        ],
    )
    assert g.operations[1].implicit_inputs == ("a",)
    assert g.operations[1].required_inputs == ("cond", "a")
    s0 = initial_state(g, inputs_of(g))
    assert executable(g, s0) == (0,), "If must wait for the outer tensor its branches capture"
    out = evaluate(g, inputs_of(g), SYM)
    assert str(out["y"]) == "If(cond, Neg(Relu(x)), Abs(Relu(x)))"


def test_multi_output_terms_are_indexed() -> None:
    g = make_graph("g", ["x"], ["a", "b"], [make_operation("Split", ["x"], ["a", "b"], axis=0)])
    out = evaluate(g, {"x": atom("x")}, SYM)
    assert (str(out["a"]), str(out["b"])) == ("Split(x)[0]", "Split(x)[1]")


def nested_ifs(depth: int) -> Graph:
    """``depth`` If operations, each holding the next as its then_branch; the innermost reads outer x."""
    inner = make_graph("g0", [], ["y0"], [make_operation("Identity", ["x"], ["y0"])])
    for d in range(1, depth + 1):
        leaf = make_graph(f"e{d}", [], [f"z{d}"], [make_operation("Identity", ["x"], [f"z{d}"])])
        node = make_operation("If", ["c"], [f"y{d}"], then_branch=inner, else_branch=leaf)
        inner = make_graph(f"g{d}", [], [f"y{d}"], [node])
    return make_graph("main", ["c", "x"], list(inner.outputs), list(inner.operations))


def test_captures_and_nesting_need_no_recursion() -> None:
    g = nested_ifs(2000)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        assert g.operations[0].implicit_inputs == ("c", "x")
        assert g.captures == frozenset()
        assert sum(1 for _ in g.nested()) == 1 + 2 * 2000
    finally:
        sys.setrecursionlimit(old)


@st.composite
def random_dags(draw: st.DrawFn) -> Graph:
    """Random acyclic graphs of unary and binary operators over 1-3 inputs, in shuffled file order."""
    n_inputs = draw(st.integers(1, 3))
    names = [f"i{k}" for k in range(n_inputs)]
    ops: list[Operation] = []
    for k in range(draw(st.integers(1, 12))):
        arity = draw(st.integers(1, 2))
        args = [draw(st.sampled_from(names)) for _ in range(arity)]
        ops.append(make_operation("Add" if arity == 2 else "Neg", args, [f"t{k}"]))
        names.append(f"t{k}")
    order = draw(st.permutations(range(len(ops))))
    outputs = sorted({draw(st.sampled_from(names[n_inputs:])) for _ in range(2)})
    return make_graph("g", names[:n_inputs], outputs, [ops[i] for i in order])


@given(random_dags(), st.integers(0, 2**32 - 1))
def test_every_schedule_gives_the_same_outputs(g: Graph, seed: int) -> None:
    ins = inputs_of(g)
    reference = evaluate(g, ins, SYM, FileOrder())
    assert evaluate(g, ins, SYM, SeededRandomOrder(seed)) == reference
    assert evaluate(g, ins, SYM, LastReadyOrder()) == reference


@given(random_dags(), st.integers(0, 2**32 - 1))
def test_run_agrees_with_repeated_fire(g: Graph, seed: int) -> None:
    """``run`` is the closure of ``fire`` over ``executable`` (checked step by step)."""
    s = initial_state(g, inputs_of(g))
    import random

    rng = random.Random(seed)
    while True:
        ready = executable(g, s)
        if not ready:
            break
        s = fire(g, s, rng.choice(ready), SYM)
    fast = run(g, initial_state(g, inputs_of(g)), SYM, SeededRandomOrder(seed))
    assert fast.fired == s.fired
    assert fast.values == s.values
