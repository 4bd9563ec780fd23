"""GRAPH-IF-BRANCHES: output counts, declared and produced types of If branches, declared shapes."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from sonnx.base.verdict import Status
from sonnx.loader import load_model
from sonnx.loader.writer import save_model
from sonnx.model.graph import Graph, Model, Tensor, TensorType, make_graph
from sonnx.model.graph import make_operation as op
from tests.common.rulekit import data, model, run

pytestmark = pytest.mark.rule("GRAPH-IF-BRANCHES")

ID = "GRAPH-IF-BRANCHES"
F32 = TensorType("tensor", 1, (2, 3))


def branch(name: str, outs: list[str], types: dict[str, TensorType] | None = None) -> Graph:
    ops = [op("Identity", ["x"], [o]) for o in outs]
    return make_graph(name, [], outs, ops, {n: Tensor(n, t) for n, t in (types or {}).items()})


def main(then_g: Graph, else_g: Graph, outs: list[str] = ["y"]) -> Graph:  # noqa: B006
    return make_graph(
        "main", ["c", "x"], outs, [op("If", ["c"], outs, name="s", then_branch=then_g, else_branch=else_g)],
        {"c": Tensor("c", TensorType("tensor", 9, ())), "x": Tensor("x", F32)},
    )


def on_file(g: Graph, tmp_path: Path) -> Model:
    """The model of ``g`` written to a file and read back: the types the branches produce are derived from it."""
    path = str(tmp_path / "m.onnx")
    save_model(model(g), path)
    return load_model(path)


def test_matching_branches_pass(tmp_path: Path) -> None:
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"], {"b": TensorType("tensor", 1, (5,))}))
    assert run(ID, on_file(g, tmp_path)).status is Status.PROVED  # shapes may differ


def test_a_model_changed_after_it_was_read_is_not_judged_on_its_file(tmp_path: Path) -> None:
    # the file's branches agree; the model checked has a then branch that computes INT64 under a FLOAT declaration
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"], {"b": F32}))
    read = on_file(g, tmp_path)
    then_g = make_graph("t", [], ["a"], [op("Cast", ["x"], ["a"], to=7)], {"a": Tensor("a", F32)})
    changed = main(then_g, branch("e", ["b"], {"b": F32}))
    v = run(ID, dataclasses.replace(read, graph=changed))
    assert v.status is Status.UNKNOWN and "changed after it was read" in (v.reason or ""), v
    # a symbolic name the inputs share is renamed in the file read again: still the same model
    vec = TensorType("tensor", 1, ("N",))
    ts = {"c": Tensor("c", TensorType("tensor", 9, ())), "x": Tensor("x", vec), "z": Tensor("z", vec)}
    shared = make_graph(g.name, ["c", "x", "z"], g.outputs, g.operations, ts)
    assert run(ID, on_file(shared, tmp_path)).status is Status.PROVED


def test_agreeing_declarations_of_a_model_without_a_file_are_not_enough() -> None:
    # the declared types are no fact about the values (spec 9.4): the produced ones are derived from the file
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"], {"b": F32}))
    v = run(ID, model(g))
    assert v.status is Status.UNKNOWN and "not read from a file" in (v.reason or ""), v


def test_produced_types_that_differ_are_a_violation(tmp_path: Path) -> None:
    # both branches declare FLOAT; the then branch computes INT64
    then_g = make_graph("t", [], ["a"], [op("Cast", ["x"], ["a"], to=7)], {"a": Tensor("a", F32)})
    v = run(ID, on_file(main(then_g, branch("e", ["b"], {"b": F32})), tmp_path))
    assert v.status is Status.VIOLATED, v
    (f,) = data(v)["mismatches"]
    assert f["problem"] == "produced output types differ" and f["position"] == 0
    assert f["then_branch"] == {"tensor": "a", "type": "tensor(7)"} and f["else_branch"]["type"] == "tensor(1)"


def test_produced_types_not_derived_are_unknown(tmp_path: Path) -> None:
    # an operator of a domain onnx does not know: inference derives no type for the then branch's output
    then_g = make_graph("t", [], ["a"], [op("Mystery", ["x"], ["a"], domain="vendor")], {"a": Tensor("a", F32)})
    m = dataclasses.replace(model(main(then_g, branch("e", ["b"], {"b": F32}))), opset_imports={"": 17, "vendor": 1})
    path = str(tmp_path / "m.onnx")
    save_model(m, path)
    v = run(ID, load_model(path))
    assert v.status is Status.UNKNOWN and "derives no element type" in (v.reason or ""), v


def test_undeclared_types_are_unknown_never_proved() -> None:
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"]))
    v = run(ID, model(g))
    assert v.status is Status.UNKNOWN and "not declared" in (v.reason or "") and "output 0" in (v.reason or "")
    # an undeclared element type inside a sequence is open too
    seq_open = TensorType("sequence", 0, None, TensorType("tensor", 0))
    seq_f = TensorType("sequence", 0, None, TensorType("tensor", 1))
    assert run(ID, model(main(branch("t", ["a"], {"a": seq_f}), branch("e", ["b"], {"b": seq_open})))).status is (
        Status.UNKNOWN
    )
    # and so is a sequence, an optional or a map whose element type is not given at all
    for kind, elem in (("sequence", 0), ("optional", 0), ("map", 7)):
        bare = TensorType(kind, elem, None, None)
        v = run(ID, model(main(branch("t", ["a"], {"a": bare}), branch("e", ["b"], {"b": bare}))))
        assert v.status is Status.UNKNOWN, kind
    # a map whose key type is not given, even with its value type given
    keyless = TensorType("map", 0, None, TensorType("tensor", 1))
    v = run(ID, model(main(branch("t", ["a"], {"a": keyless}), branch("e", ["b"], {"b": keyless}))))
    assert v.status is Status.UNKNOWN


def test_a_certain_mismatch_wins_over_an_open_position() -> None:
    g = main(branch("t", ["a", "a2"], {"a": F32}), branch("e", ["b"]), ["y", "z"])
    assert run(ID, model(g)).status is Status.VIOLATED


def test_output_count_mismatch() -> None:
    v = run(ID, model(main(branch("t", ["a"]), branch("e", ["b", "b2"]))))
    assert v.status is Status.VIOLATED
    (f,) = data(v)["mismatches"]
    assert f["operation"] == "If:s" and f["scope"] == "main" and f["index"] == 0
    assert f["counts"] == {"then_branch": 1, "else_branch": 2, "if": 1}


def test_branches_agree_but_not_with_the_if() -> None:
    (f,) = data(run(ID, model(main(branch("t", ["a"]), branch("e", ["b"]), ["y", "z"]))))["mismatches"]
    assert f["counts"] == {"then_branch": 1, "else_branch": 1, "if": 2}
    # the If's extra output declares a shape: no branch output stands at its position to compare it with
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"], {"b": F32}), ["y", "z"])
    g = make_graph(g.name, g.inputs, g.outputs, g.operations, {"y": Tensor("y", F32), "z": Tensor("z", F32)})
    (f,) = data(run(ID, model(g)))["mismatches"]
    assert f["counts"] == {"then_branch": 1, "else_branch": 1, "if": 2}


def test_element_type_mismatch() -> None:
    g = main(branch("t", ["a"], {"a": F32}), branch("e", ["b"], {"b": TensorType("tensor", 7, (2, 3))}))
    (f,) = data(run(ID, model(g)))["mismatches"]
    assert f["problem"] == "output types differ" and f["position"] == 0
    assert f["then_branch"] == {"tensor": "a", "type": "tensor(1)"} and f["else_branch"]["type"] == "tensor(7)"


def test_kind_mismatch_inside_a_sequence() -> None:
    seq_f = TensorType("sequence", 0, None, TensorType("tensor", 1))
    seq_i = TensorType("sequence", 0, None, TensorType("tensor", 7))
    g = main(branch("t", ["a"], {"a": seq_f}), branch("e", ["b"], {"b": seq_i}))
    assert run(ID, model(g)).status is Status.VIOLATED
    g = main(branch("t", ["a"], {"a": seq_f}), branch("e", ["b"], {"b": F32}))
    assert run(ID, model(g)).status is Status.VIOLATED


def test_missing_branch() -> None:
    g = make_graph("main", ["c", "x"], ["y"], [op("If", ["c"], ["y"], then_branch=branch("t", ["a"]))])
    (f,) = data(run(ID, model(g)))["mismatches"]
    assert f["problem"] == "attribute else_branch is missing or is not a graph"
    g = make_graph("main", ["c"], ["y"], [op("If", ["c"], ["y"])])
    assert data(run(ID, model(g)))["count"] == 2
    node = op("If", ["c"], ["y"], then_branch=branch("t", ["a"]), else_branch=3)  # an INT, not a graph
    (f,) = data(run(ID, model(make_graph("main", ["c", "x"], ["y"], [node]))))["mismatches"]
    assert f["problem"] == "attribute else_branch is missing or is not a graph"


def test_mismatch_in_a_nested_if() -> None:
    inner = op("If", ["c"], ["t"], name="inner", then_branch=branch("t2", ["a"]), else_branch=branch("e2", []))
    then_g = make_graph("t", [], ["t"], [inner])
    (f,) = data(run(ID, model(main(then_g, branch("e", ["b"])))))["mismatches"]
    assert f["scope"] == "main/If:s.then_branch" and f["operation"] == "If:inner"


# -- shapes (graph.md v23, "The if operator"): the If's declared shape is compatible with each branch's ---------


def shaped(if_shape: tuple[Any, ...] | None, then_shape: tuple[Any, ...] | None,
           else_shape: tuple[Any, ...] | None) -> Graph:
    def t(shape: tuple[Any, ...] | None) -> TensorType:
        return TensorType("tensor", 1, shape)

    then_g, else_g = branch("t", ["a"], {"a": t(then_shape)}), branch("e", ["b"], {"b": t(else_shape)})
    node = op("If", ["c"], ["y"], name="s", then_branch=then_g, else_branch=else_g)
    inputs = {"c": Tensor("c", TensorType("tensor", 9, ())), "x": Tensor("x", F32)}
    return make_graph("main", ["c", "x"], ["y"], [node], {**inputs, "y": Tensor("y", t(if_shape))})


def test_compatible_shapes_pass(tmp_path: Path) -> None:
    def proved(g: Graph) -> bool:
        return run(ID, on_file(g, tmp_path)).status is Status.PROVED

    # the branches may differ from each other; an open If dimension takes either size
    assert proved(shaped((2, "N"), (2, 3), (2, 4)))
    # each unknown dimension is a size of its own, on either side: two of them take 2 and 3
    assert proved(shaped((None, None), (2, 3), (2, 3)))
    assert proved(shaped((2, 3), (None, None), (None, None)))
    assert proved(shaped((2, None), (2, 3), (2, 4)))
    assert proved(shaped((2, 3), (2, None), ("M", 3)))
    # a shape nobody declares claims nothing
    assert proved(shaped(None, (2, 3), (5,)))
    assert proved(shaped((2, 3), None, None))


def test_incompatible_dimension_is_witnessed() -> None:
    v = run(ID, model(shaped((2, 3), (2, 3), (2, 4))))
    (f,) = data(v)["mismatches"]
    assert f["problem"] == "output shapes incompatible" and f["position"] == 0 and f["operation"] == "If:s"
    assert f["if"] == {"tensor": "y", "shape": [2, 3]} and f["else_branch"] == {"tensor": "b", "shape": [2, 4]}
    assert f["why"] == "dimension 1: 3 against 4" and "then_branch" not in f


def test_incompatible_rank_and_repeated_name() -> None:
    (f,) = data(run(ID, model(shaped((2, 3), (2, 3, 1), (2, 3)))))["mismatches"]
    assert f["why"] == "rank 2 against 3" and f["then_branch"]["shape"] == [2, 3, 1]
    # one name is one size within the pair: N cannot be both 2 and 3
    (f,) = data(run(ID, model(shaped(("N", "N"), (2, 3), (2, 2)))))["mismatches"]
    assert f["why"] == "dimension 1: 2 against 3" and "then_branch" in f


def test_a_name_bound_to_a_size_keeps_it() -> None:
    """Once a branch's ``N`` meets the If's 3 it is 3: the If's 4 at the next dimension cannot be ``N`` too,
    whichever side names the dimension (the size moves to the class the two are merged into)."""
    for if_shape, branch_shape, why in (((3, 4), ("N", "N"), "4 against 3"), (("N", "N"), (3, 4), "3 against 4")):
        (f,) = data(run(ID, model(shaped(if_shape, branch_shape, if_shape))))["mismatches"]
        assert f["problem"] == "output shapes incompatible" and f["why"] == f"dimension 1: {why}"


def test_a_shape_conflict_inside_sequences_is_found_at_its_element_level() -> None:
    """Sequences of tensors: the sequence types have no shape of their own (``None`` in the witness), the
    conflict is in their element tensors, and ``why`` says at which level."""

    def seq(shape: tuple[Any, ...]) -> TensorType:
        return TensorType("sequence", 0, None, TensorType("tensor", 1, shape))

    g = main(branch("t", ["a"], {"a": seq((2, 3))}), branch("e", ["b"], {"b": seq((2, 3))}))
    g = make_graph(g.name, g.inputs, g.outputs, g.operations, {"y": Tensor("y", seq((2, 4)))})
    found = data(run(ID, model(g)))["mismatches"]
    why = "dimension 1: 4 against 3 (element level 1)"
    assert [(f["if"], f["why"]) for f in found] == [({"tensor": "y", "shape": None}, why)] * 2
    assert [f.get("then_branch", f.get("else_branch")) for f in found] == [
        {"tensor": "a", "shape": None},
        {"tensor": "b", "shape": None},
    ]
