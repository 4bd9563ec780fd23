"""``sonnx rewrite`` and ``sonnx equiv`` end to end: examples, exit codes, JSON, refusals, the postcondition."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from sonnx.base.verdict import Status
from sonnx.checking.pipeline import check_file
from sonnx.cli import main
from sonnx.model.graph import Model, Operation
from sonnx.rewrite import Pass, PostconditionError, rewrite_model
from sonnx.rewrite.base import prune, rebuild, with_graph
from tests.common.rewrite_models import build, init, load, vi

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXPECTED = json.loads((EXAMPLES / "expected.json").read_text())


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _conforming(name: str) -> bool:
    """Whether the example satisfies every rule of the SONNX profile, FORMAT-ONNX included: a rewrite refuses a file
    onnx's full check rejects (an example stored out of topological order is refused too)."""
    return any(
        c["model"] == name and c["profile"] == "sonnx" and not c["violated"] and not c["unknown"]
        for c in EXPECTED["cases"]
    )


@pytest.mark.rule("FORMAT-ONNX")
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.onnx")), ids=lambda p: p.name)
def test_rewrite_on_every_shipped_example(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.onnx"
    code, stdout, stderr = run("rewrite", str(path), str(out))
    if _conforming(path.name):
        assert code == 0, stderr
        assert out.is_file() and "REWRITTEN" in stdout
        # the rewritten file keeps what the input's file had: no graph rule fails, FORMAT-ONNX as before
        failing = {v.rule_id for v in check_file(str(out)).verdicts if v.fails or v.status is Status.UNKNOWN}
        assert failing == {r for c in EXPECTED["cases"] if c["model"] == path.name and c["profile"] == "sonnx"
                           for r in c["violated"]}
        code2, stdout2, _ = run("equiv", str(path), str(out))
        assert code2 == 0, stdout2
    else:
        assert code == 2 and not out.exists()
        assert stderr.count("\n") == 1 and "does not conform" in stderr


def test_rewrite_of_the_cnn_example_turns_flatten_into_reshape(tmp_path: Path) -> None:
    out = tmp_path / "cnn.onnx"
    code, stdout, _ = run("rewrite", str(EXAMPLES / "cnn_block.onnx"), str(out), "--json")
    doc = json.loads(stdout)
    assert code == 0 and doc["written"] and doc["ok"]
    assert [a["pass_name"] for a in doc["applications"]] == ["flatten"]
    assert all(o["bit_exact"] for s in doc["validation"] for o in s["outputs"].values())
    ops = [n.op_type for n in onnx.load(str(out)).graph.node]
    assert "Flatten" not in ops and "Reshape" in ops


def test_rewrite_usage_errors_are_one_line(tmp_path: Path) -> None:
    code, _, err = run("rewrite", str(EXAMPLES / "cnn_block.onnx"), str(tmp_path / "o.onnx"), "--pass", "nope")
    assert code == 2 and "unknown pass" in err and err.count("\n") == 1
    code, _, err = run("rewrite", str(tmp_path / "missing.onnx"), str(tmp_path / "o.onnx"))
    assert code == 2 and err.count("\n") == 1


class _ReluToIdentity(Pass):
    """A wrong pass (for the test): replaces Relu by Identity, which changes the values."""

    name = "wrong"
    operators = ("Relu",)

    def requires(self, model: Model, op: Operation) -> str | None:
        return None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        new = op._replace(operator="Identity")
        ops = [new if o is op else o for o in model.graph.operations]
        return with_graph(model, rebuild(model.graph, ops)), "Relu -> Identity"


class _DropsOperation(Pass):
    """A wrong pass (for the test): deletes the operation and leaves its readers dangling."""

    name = "dangling"
    operators = ("Neg",)

    def requires(self, model: Model, op: Operation) -> str | None:
        return None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        ops = [o for o in model.graph.operations if o is not op]
        return with_graph(model, rebuild(model.graph, ops)), "deleted"


def _relu_neg(tmp: Path) -> Path:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Neg", ["a"], ["b"]),
        helper.make_node("Abs", ["b"], ["y"]),
    ]
    return build(tmp, nodes, [vi("x", [4])], [vi("y", [4])])


def test_translation_validation_catches_a_wrong_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = rewrite_model(load(_relu_neg(tmp_path)), [_ReluToIdentity()])
    assert not r.ok
    bad = [s for s in r.validation if not s.ok]
    assert bad and any(c.outside > 0 or c.mismatch for s in bad for c in s.outputs.values())
    # The command line refuses to write it (exit 1, figures printed).
    import sonnx.cli.rewrite as cli_rewrite

    monkeypatch.setattr(cli_rewrite, "select", lambda names: (_ReluToIdentity(),))
    out = tmp_path / "o.onnx"
    code, stdout, _ = run("rewrite", str(_relu_neg(tmp_path)), str(out))
    assert code == 1 and not out.exists() and "nothing written" in stdout and "outside tolerance" in stdout


@pytest.mark.rule("GRAPH-C3")
def test_postcondition_catches_a_dangling_reader(tmp_path: Path) -> None:
    with pytest.raises(PostconditionError, match="GRAPH-C3"):
        rewrite_model(load(_relu_neg(tmp_path)), [_DropsOperation()])


def test_equiv_not_equivalent_with_figures(tmp_path: Path) -> None:
    src = EXAMPLES / "cnn_block.onnx"
    m = onnx.load(str(src))
    for t in m.graph.initializer:
        if t.name == "fc.bias":
            arr = numpy_helper.to_array(t).copy()
            arr[3] += 100.0
            t.CopyFrom(numpy_helper.from_array(arr, t.name))
    changed = tmp_path / "changed.onnx"
    onnx.save(m, str(changed))
    code, stdout, _ = run("equiv", str(src), str(changed), "--json")
    doc = json.loads(stdout)
    assert code == 1 and doc["verdict"] == "NOT EQUIVALENT"
    normal = next(s for s in doc["numeric"] if s["set"] == "normal")
    fig = normal["outputs"]["probabilities"]
    assert fig["outside"] > 0 and fig["max_abs"] > 0 and fig["worst"]
    assert doc["checks"]["a"]["outcome"] == "PROVED" and doc["structure"]["outputs"][0]["matched_by"] == "name"


def test_equiv_structural_diff_and_position_matching(tmp_path: Path) -> None:
    a = build(
        tmp_path,
        [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Relu", ["t"], ["y"])],
        [vi("x", [3])],
        [vi("y", [3])],
        name="a.onnx",
    )
    b = build(tmp_path, [helper.make_node("Relu", ["x"], ["z"])], [vi("x", [3])], [vi("z", [3])], name="b.onnx")
    code, stdout, _ = run("equiv", str(a), str(b))
    assert code == 0, stdout
    assert "removed: Identity x1" in stdout and "output y -> z (by position)" in stdout


def test_equiv_unusable_and_interface_mismatch(tmp_path: Path) -> None:
    code, _, err = run("equiv", str(tmp_path / "nope.onnx"), str(EXAMPLES / "cnn_block.onnx"))
    assert code == 2 and err.count("\n") == 1
    a = build(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [3])], [vi("y", [3])], name="a.onnx")
    b = build(
        tmp_path,
        [helper.make_node("Add", ["x", "k"], ["y"])],
        [vi("x", [3]), vi("k", [3])],
        [vi("y", [3])],
        name="b.onnx",
    )
    code, stdout, _ = run("equiv", str(a), str(b))
    assert code == 1 and "different inputs" in stdout
    code, _, err = run("equiv", str(a), str(a), "--sets", "bogus")
    assert code == 2 and "--sets" in err


def test_equiv_compares_the_signatures_first(tmp_path: Path) -> None:
    """An INT32 model is not equivalent to a FLOAT one, even where the numbers could agree."""
    relu = [helper.make_node("Relu", ["x"], ["y"])]
    a = build(tmp_path, relu, [vi("x", [3])], [vi("y", [3])], name="a.onnx")
    b = build(tmp_path, relu, [vi("x", [3], onnx.TensorProto.INT32)], [vi("y", [3], onnx.TensorProto.INT32)],
              name="b.onnx")
    code, stdout, _ = run("equiv", str(a), str(b))
    assert code == 1 and "NOT EQUIVALENT" in stdout
    assert "input 'x': FLOAT [3] in the first model, INT32 [3] in the second" in stdout
    c = build(tmp_path, relu, [vi("x", [4])], [vi("y", [4])], name="c.onnx")
    code, stdout, _ = run("equiv", str(a), str(c))
    assert code == 1 and "FLOAT [3] in the first model, FLOAT [4] in the second" in stdout
    d = build(tmp_path, relu, [vi("x", ["N"])], [vi("y", ["N"])], name="d.onnx")  # a symbolic dimension is free
    code, stdout, _ = run("equiv", str(a), str(d))
    assert "interfaces differ" not in stdout


def test_rewritten_model_with_pad_fusion_round_trips(tmp_path: Path) -> None:
    w = init("w", np.linspace(-1, 1, 18).reshape(2, 1, 3, 3), np.float32)
    nodes = [
        helper.make_node(
            "Constant", [], ["p"], value=numpy_helper.from_array(np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64))
        ),
        helper.make_node("Pad", ["x", "p"], ["t"]),
        helper.make_node("Conv", ["t", "w"], ["c"], kernel_shape=[3, 3]),
        helper.make_node("Identity", ["c"], ["d"]),
        helper.make_node("Dropout", ["d"], ["y"]),
    ]
    src = build(tmp_path, nodes, [vi("x", [1, 1, 6, 6])], [vi("y", [1, 2, 7, 7])], [w], opset=13)
    out = tmp_path / "out.onnx"
    code, stdout, _ = run("rewrite", str(src), str(out))
    assert code == 0, stdout
    assert [n.op_type for n in onnx.load(str(out)).graph.node] == ["Conv"]
    shutil.copy(out, tmp_path / "copy.onnx")
    assert run("equiv", str(src), str(tmp_path / "copy.onnx"))[0] == 0


def _saturated(tmp: Path, name: str, shift: float) -> Path:
    """x -> MatMul -> logits -> Softmax: weights so large that the probabilities are exactly 0 or 1."""
    w = np.zeros((4, 3), np.float32)
    w[:, 0] = 1000.0
    w[0, 1] = shift
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits"]), helper.make_node("Softmax", ["logits"], ["y"])]
    return build(tmp, nodes, [vi("x", [1, 4])], [vi("y", [1, 3])], [init("w", w, np.float32)], name=name)


def test_equiv_looks_behind_a_saturated_softmax(tmp_path: Path) -> None:
    a, b = _saturated(tmp_path, "a.onnx", 0.0), _saturated(tmp_path, "b.onnx", 1.0)
    code, stdout, _ = run("equiv", str(a), str(b), "--sets", "normal", "--json")
    doc = json.loads(stdout)
    out = doc["numeric"][0]["outputs"]
    assert out["y"]["decides_verdict"] and out["logits"]["intermediate"] and not out["logits"]["decides_verdict"]
    assert out["logits"]["outside"] > 0 and doc["intermediates_outside_tolerance"] == ["normal/logits"]
    code_none, stdout_none, _ = run("equiv", str(a), str(b), "--sets", "normal", "--intermediates", "none")
    assert "logits" not in stdout_none and code_none == code


def test_equiv_with_an_operator_the_executor_lacks_is_unusable(tmp_path: Path) -> None:
    a = build(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", [2])], [vi("y", [2])], name="a.onnx")
    g = helper.make_graph(
        [helper.make_node("FusedThing", ["x"], ["y"], domain="com.example")], "g", [vi("x", [2])], [vi("y", [2])]
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    b = tmp_path / "b.onnx"
    onnx.save(m, str(b))
    code, _, err = run("equiv", str(a), str(b))
    assert code == 2 and "cannot compare" in err and err.count("\n") == 1


class _ShiftWeights(Pass):
    """A wrong pass (for the test): feeds the MatMul slightly different weights."""

    name = "shift"
    operators = ("MatMul",)

    def requires(self, model: Model, op: Operation) -> str | None:
        return None if op.input_mapping[1] == "w" else "already shifted"

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        from onnx import TensorProto

        from sonnx.model.graph import Tensor
        from sonnx.rewrite.base import array_value

        iv = model.graph.tensors["w"].initial_value
        assert iv is not None
        w2 = np.asarray(iv.read()).copy()
        w2[0, 1] += 1.0
        tensors = dict(model.graph.tensors)
        tensors["w2"] = Tensor("w2", None, array_value(w2, TensorProto.FLOAT))
        new = op._replace(input_mapping=(op.input_mapping[0], "w2"))
        ops = [new if o is op else o for o in model.graph.operations]
        return with_graph(model, prune(rebuild(model.graph, ops, tensors))), "shifted"


def test_rewrite_validation_looks_behind_a_saturated_softmax(tmp_path: Path) -> None:
    r = rewrite_model(load(_saturated(tmp_path, "a.onnx", 0.0)), [_ShiftWeights()])
    assert not r.ok
    normal = next(s for s in r.validation if s.name == "normal")
    assert normal.bit_exact["y"] and not normal.bit_exact["logits"] and not normal.ok


def test_infer_shapes_lets_flatten_see_intermediate_shapes(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Flatten", ["a"], ["y"])]
    src = build(tmp_path, nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 12])])
    out = tmp_path / "o.onnx"
    code, stdout, _ = run("rewrite", str(src), str(out), "--json")
    assert code == 0 and not json.loads(stdout)["applications"]
    code, stdout, _ = run("rewrite", str(src), str(out), "--json", "--infer-shapes")
    doc = json.loads(stdout)
    assert code == 0 and [a["detail"] for a in doc["applications"]] == ["Reshape to [2, 12]"]
