"""Rewrites of a model that holds an If: each candidate is held by no file, and GRAPH-IF-BRANCHES is judged on the
bytes it is written as, so the postcondition keeps it PROVED when it holds and catches a pass that breaks it."""

from __future__ import annotations

import io
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from sonnx.base.verdict import Status
from sonnx.checking.pipeline import check_file
from sonnx.cli import main
from sonnx.model.graph import Model, Operation, Tensor, TensorType, make_graph, make_operation
from sonnx.rewrite import Pass, PostconditionError, rewrite_model
from sonnx.rewrite.base import rebuild, rule_statuses, with_graph
from tests.common.rewrite_models import load

pytestmark = pytest.mark.rule("GRAPH-IF-BRANCHES")

ID = "GRAPH-IF-BRANCHES"


def if_dropout(tmp: Path) -> Path:
    """y = If(c) then Identity(x) else Neg(x), plus Dropout(x): the dropout pass applies beside the If."""
    vi, node = helper.make_tensor_value_info, helper.make_node
    then_g = helper.make_graph([node("Identity", ["x"], ["t"])], "then", [], [vi("t", TensorProto.FLOAT, [2])])
    else_g = helper.make_graph([node("Neg", ["x"], ["e"])], "else", [], [vi("e", TensorProto.FLOAT, [2])])
    nodes = [
        helper.make_node("Dropout", ["x"], ["d"]),
        helper.make_node("If", ["c"], ["y0"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Add", ["y0", "d"], ["y"]),
    ]
    inputs = [vi("x", TensorProto.FLOAT, [2]), vi("c", TensorProto.BOOL, [])]
    g = helper.make_graph(nodes, "m", inputs, [vi("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(m)
    path = tmp / "if_dropout.onnx"
    onnx.save(m, str(path))
    return path


class _CastsThenBranch(Pass):
    """A wrong pass (for the test): its then branch computes INT64 under the FLOAT declaration it keeps."""

    name = "cast-then"
    operators = ("If",)

    def requires(self, model: Model, op: Operation) -> str | None:
        return None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        declared = TensorType("tensor", TensorProto.FLOAT, (2,))
        cast = make_operation("Cast", ["x"], ["t"], to=7)
        then_g = make_graph("then", [], ["t"], [cast], {"t": Tensor("t", declared)})
        else_a = op.attribute("else_branch")
        assert else_a is not None
        new = make_operation(
            "If", op.input_mapping, op.output_mapping, name=op.name, then_branch=then_g, else_branch=else_a.value
        )
        ops = [new if o is op else o for o in model.graph.operations]
        return with_graph(model, rebuild(model.graph, ops)), "then branch cast"


def test_the_rewrite_of_a_model_with_an_if_keeps_its_branches_proved(tmp_path: Path) -> None:
    r = rewrite_model(load(if_dropout(tmp_path)))
    assert r.ok and [a.pass_name for a in r.applications] == ["dropout"]
    assert r.model.source == str(tmp_path / "if_dropout.onnx")  # the candidate keeps a path its file no longer holds
    assert rule_statuses(r.model)[ID] is Status.PROVED


@pytest.mark.parametrize("infer", [False, True])
def test_the_command_line_writes_it_and_the_file_checks(tmp_path: Path, infer: bool) -> None:
    # --infer-shapes reads the model from a temporary file removed at once: the input model is held by no file too
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "out.onnx"
    code = main(["rewrite", *(["--infer-shapes"] if infer else []), str(if_dropout(tmp_path)), str(target)], out, err)
    assert code == 0 and target.exists(), err.getvalue()
    report = check_file(str(target))
    assert report.verdict(ID).status is Status.PROVED  # type: ignore[union-attr]


def test_a_pass_that_makes_the_branches_disagree_is_caught(tmp_path: Path) -> None:
    model = load(if_dropout(tmp_path))
    broken, _ = _CastsThenBranch().transform(model, next(o for o in model.graph.operations if o.operator == "If"))
    assert rule_statuses(broken)[ID] is Status.VIOLATED  # derived from the candidate's own bytes: a certain fault
    with pytest.raises(PostconditionError, match=ID):
        rewrite_model(model, [_CastsThenBranch()])
