"""Write the example models of ``examples/``: one conforming CNN block and one model per rule violation.

Run ``python examples/make_examples.py [OUT_DIR]``. The output is byte-for-byte
reproducible (fixed seeds, no timestamps); a test regenerates the files and
compares them with the committed ones. What each model is expected to give is
written, by hand, in ``examples/expected.json`` and checked by a test.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR = 8
F = TensorProto.FLOAT


def _model(graph: onnx.GraphProto, functions: list[onnx.FunctionProto] | None = None,
           extra_opsets: dict[str, int] | None = None) -> onnx.ModelProto:
    opsets = [helper.make_opsetid("", OPSET)]
    for domain, version in sorted((extra_opsets or {}).items()):
        opsets.append(helper.make_opsetid(domain, version))
    m = helper.make_model(graph, opset_imports=opsets, functions=functions or [], producer_name="sonnx-examples")
    m.ir_version = IR
    return m


def _vi(name: str, shape: list[int], elem: int = F) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def cnn_block() -> onnx.ModelProto:
    """A CNN block: Conv, Relu, MaxPool, Flatten, Gemm, Softmax, all attributes explicit, the strict profile's
    metadata given. It conforms to the sonnx profile, with one warning (GRAPH-ARITY: MaxPool's optional Indices
    output is left out); under sonnx-strict that warning is an error, and Gemm broadcasts its bias of shape [10]
    to [1, 10] (STRICT-BROADCAST)."""
    rng = np.random.default_rng(2026)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "conv.weight")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "conv.bias")
    fw = numpy_helper.from_array((0.05 * rng.standard_normal((10, 512))).astype(np.float32), "fc.weight")
    fb = numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "fc.bias")
    nodes = [
        helper.make_node("Conv", ["image", "conv.weight", "conv.bias"], ["conv"], name="conv",
                         auto_pad="NOTSET", dilations=[1, 1], group=1, kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool", auto_pad="NOTSET", ceil_mode=0,
                         dilations=[1, 1], kernel_shape=[2, 2], pads=[0, 0, 0, 0], storage_order=0,
                         strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], name="fc",
                         alpha=1.0, beta=1.0, transA=0, transB=1),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    g = helper.make_graph(
        nodes, "cnn_block", [_vi("image", [1, 3, 16, 16])], [_vi("probabilities", [1, 10])],
        initializer=[w, b, fw, fb],
        value_info=[_vi("conv", [1, 8, 16, 16]), _vi("relu", [1, 8, 16, 16]), _vi("pool", [1, 8, 8, 8]),
                    _vi("flat", [1, 512]), _vi("logits", [1, 10])],
    )
    m = _model(g)
    # The metadata the sonnx-strict profile requires by default (STRICT-METADATA, REQ-FO-040/050).
    helper.set_model_props(m, {
        "sonnx.io_semantics": "image: one RGB image, values in [0, 1]; probabilities: the 10 class scores",
        "sonnx.dimension_semantics": "image: batch, channel, height, width; probabilities: batch, class",
        "sonnx.execution_order": '["conv", "relu", "pool", "flatten", "fc", "softmax"]',
        "sonnx.target": "any CPU (example)",
    })
    return m


def seed001_example() -> onnx.ModelProto:
    """The example graph of the SONNX V2 informal specification: Sub's output is never used."""
    c = numpy_helper.from_array(np.array([2.0], dtype=np.float32), "c_value")
    nodes = [
        helper.make_node("Add", ["I1", "I2"], ["O1"], name="add"),
        helper.make_node("Constant", [], ["c"], name="constant", value=c),
        helper.make_node("Mul", ["O1", "c"], ["O2"], name="mul"),
        helper.make_node("Sub", ["I1", "I2"], ["op4_out"], name="sub"),
    ]
    g = helper.make_graph(nodes, "Test", [_vi("I1", ["N", "M"]), _vi("I2", ["N", "M"])],
                          [_vi("O1", ["N", "M"]), _vi("O2", ["N", "M"])])
    return _model(g)


def unsorted_acyclic() -> onnx.ModelProto:
    """A valid graph whose nodes are stored in reverse order: acyclic, only not sorted."""
    nodes = [
        helper.make_node("Relu", ["b"], ["y"], name="last"),
        helper.make_node("Neg", ["a"], ["b"], name="middle"),
        helper.make_node("Abs", ["x"], ["a"], name="first"),
    ]
    g = helper.make_graph(nodes, "unsorted", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def acyclic_cycle() -> onnx.ModelProto:
    """Two operations that feed each other: a cycle (and so an output that never gets a value)."""
    nodes = [
        helper.make_node("Add", ["x", "back"], ["sum"], name="add"),
        helper.make_node("Relu", ["sum"], ["back"], name="relu"),
    ]
    g = helper.make_graph(nodes, "cycle", [_vi("x", [4])], [_vi("sum", [4])])
    return _model(g)


def r1_dead_chain() -> onnx.ModelProto:
    """A chain Abs -> Neg whose end is never used: Neg is dead, and Abs contributes nothing either."""
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
        helper.make_node("Abs", ["x"], ["a"], name="abs"),
        helper.make_node("Neg", ["a"], ["b"], name="neg"),
    ]
    g = helper.make_graph(nodes, "dead_chain", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def c1_two_producers() -> onnx.ModelProto:
    """Two operations assign the same tensor."""
    nodes = [
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
        helper.make_node("Neg", ["x"], ["y"], name="neg"),
    ]
    g = helper.make_graph(nodes, "two_producers", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def c1_shadowing() -> onnx.ModelProto:
    """An If branch defines a tensor with the name of a tensor of the outer graph."""
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["hidden"], name="then_neg")], "then",
                               [], [_vi("hidden", [4])])
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["r"], name="else_abs")], "else",
                               [], [_vi("r", [4])])
    nodes = [
        helper.make_node("Relu", ["x"], ["hidden"], name="relu"),
        helper.make_node("If", ["cond"], ["chosen"], name="choose", then_branch=then_g, else_branch=else_g),
        helper.make_node("Add", ["hidden", "chosen"], ["y"], name="add"),
    ]
    g = helper.make_graph(nodes, "shadowing", [_vi("x", [4]), _vi("cond", [], TensorProto.BOOL)],
                          [_vi("y", [4])])
    return _model(g)


def c2_unused_input() -> onnx.ModelProto:
    """A graph input that no operation reads."""
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "unused_input",
                          [_vi("x", [4]), _vi("spare", [4])], [_vi("y", [4])])
    return _model(g)


def c3_incomplete() -> onnx.ModelProto:
    """An output computed from a tensor that nothing defines."""
    nodes = [helper.make_node("Add", ["x", "ghost"], ["y"], name="add")]
    g = helper.make_graph(nodes, "incomplete", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def r1_unused_output() -> onnx.ModelProto:
    """Dropout in inference mode whose mask output is named but unused: a warning, not an error."""
    nodes = [
        helper.make_node("Dropout", ["x"], ["y", "mask"], name="dropout"),
    ]
    g = helper.make_graph(nodes, "unused_mask", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def r2_random() -> onnx.ModelProto:
    """A random generator in the graph."""
    nodes = [
        helper.make_node("RandomNormalLike", ["x"], ["noise"], name="noise", seed=7.0),
        helper.make_node("Add", ["x", "noise"], ["y"], name="add"),
    ]
    g = helper.make_graph(nodes, "random", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def r2_random_dead() -> onnx.ModelProto:
    """A random generator whose value feeds only a dead operation: R2 is broken, the outputs are deterministic."""
    nodes = [
        helper.make_node("RandomNormalLike", ["x"], ["noise"], name="noise", seed=7.0),
        helper.make_node("Add", ["x", "noise"], ["unused"], name="dead_add"),
        helper.make_node("Relu", ["x"], ["y"], name="relu"),
    ]
    g = helper.make_graph(nodes, "random_dead", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def r2_dropout_training() -> onnx.ModelProto:
    """Dropout whose training_mode is a graph input: its result can be random."""
    ratio = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "ratio")
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"], name="dropout")]
    g = helper.make_graph(nodes, "dropout_training",
                          [_vi("x", [4]), _vi("training", [], TensorProto.BOOL)], [_vi("y", [4])],
                          initializer=[ratio])
    return _model(g)


def functions_recursion() -> onnx.ModelProto:
    """A model-local function that calls itself through an If branch."""
    then_g = helper.make_graph([helper.make_node("Twice", ["a"], ["t"], domain="local")], "then", [],
                               [_vi("t", [4])])
    else_g = helper.make_graph([helper.make_node("Identity", ["a"], ["e"])], "else", [], [_vi("e", [4])])
    body = [
        helper.make_node("ReduceMax", ["a"], ["m"], keepdims=0),
        helper.make_node("Greater", ["m", "zero"], ["pos"]),
        helper.make_node("If", ["pos"], ["b"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Constant", [], ["zero"], value=numpy_helper.from_array(np.array(0.0, np.float32))),
    ]
    fn = helper.make_function("local", "Twice", ["a"], ["b"], body, [helper.make_opsetid("", OPSET)])
    g = helper.make_graph([helper.make_node("Twice", ["x"], ["y"], name="call", domain="local")],
                          "recursion", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g, [fn], {"local": 1})


def if_branches_mismatch() -> onnx.ModelProto:
    """An If whose branches give different numbers of outputs."""
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["t"], name="then_neg")], "then", [],
                               [_vi("t", [4])])
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["e1"], name="else_abs"), helper.make_node("Relu", ["x"], ["e2"])],
        "else", [], [_vi("e1", [4]), _vi("e2", [4])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="choose", then_branch=then_g, else_branch=else_g)]
    g = helper.make_graph(nodes, "if_mismatch", [_vi("x", [4]), _vi("cond", [], TensorProto.BOOL)],
                          [_vi("y", [4])])
    return _model(g)


def names_duplicate_nodes() -> onnx.ModelProto:
    """Two nodes share a name."""
    nodes = [
        helper.make_node("Abs", ["x"], ["a"], name="step"),
        helper.make_node("Relu", ["a"], ["y"], name="step"),
    ]
    g = helper.make_graph(nodes, "duplicate_names", [_vi("x", [4])], [_vi("y", [4])])
    return _model(g)


def strict_default_attribute() -> onnx.ModelProto:
    """Valid under the sonnx profile, but sonnx-strict wants Softmax's axis written out."""
    nodes = [helper.make_node("Softmax", ["x"], ["y"], name="softmax")]
    g = helper.make_graph(nodes, "default_attribute", [_vi("x", [1, 4])], [_vi("y", [1, 4])])
    return _model(g)


def strict_dense() -> onnx.ModelProto:
    """A dense layer that conforms to sonnx-strict: MatMul, Add and Relu on fully declared shapes, the bias given
    at the output's shape (no broadcasting), every output bound, the strict profile's metadata given, and the
    features' range declared so that no operation can overflow."""
    rng = np.random.default_rng(2027)
    w = numpy_helper.from_array((0.25 * rng.standard_normal((16, 8))).astype(np.float32), "dense.weight")
    b = numpy_helper.from_array(rng.standard_normal((1, 8)).astype(np.float32), "dense.bias")
    nodes = [
        helper.make_node("MatMul", ["features", "dense.weight"], ["product"], name="matmul"),
        helper.make_node("Add", ["product", "dense.bias"], ["sum"], name="bias"),
        helper.make_node("Relu", ["sum"], ["activation"], name="relu"),
    ]
    g = helper.make_graph(
        nodes, "strict_dense", [_vi("features", [1, 16])], [_vi("activation", [1, 8])],
        initializer=[w, b], value_info=[_vi("product", [1, 8]), _vi("sum", [1, 8])],
    )
    m = _model(g)
    helper.set_model_props(m, {
        "sonnx.io_semantics": "features: 16 sensor readings, scaled to [-1, 1]; activation: 8 non-negative scores",
        "sonnx.dimension_semantics": "features: batch, reading; activation: batch, score",
        "sonnx.execution_order": '["matmul", "bias", "relu"]',
        "sonnx.target": "any CPU (example)",
        "sonnx.input_range.features": "-1..1",
    })
    return m


EXAMPLES: dict[str, Callable[[], onnx.ModelProto]] = {
    "cnn_block": cnn_block,
    "seed001_example": seed001_example,
    "unsorted_acyclic": unsorted_acyclic,
    "acyclic_cycle": acyclic_cycle,
    "c1_two_producers": c1_two_producers,
    "c1_shadowing": c1_shadowing,
    "c2_unused_input": c2_unused_input,
    "c3_incomplete": c3_incomplete,
    "r1_unused_output": r1_unused_output,
    "r1_dead_chain": r1_dead_chain,
    "r2_random": r2_random,
    "r2_random_dead": r2_random_dead,
    "r2_dropout_training": r2_dropout_training,
    "functions_recursion": functions_recursion,
    "if_branches_mismatch": if_branches_mismatch,
    "names_duplicate_nodes": names_duplicate_nodes,
    "strict_default_attribute": strict_default_attribute,
    "strict_dense": strict_dense,
}


def write_all(out_dir: Path) -> list[Path]:
    """Write every example into ``out_dir``; return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, build in EXAMPLES.items():
        path = out_dir / f"{name}.onnx"
        path.write_bytes(build().SerializeToString(deterministic=True))
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for p in write_all(target):
        print(p)
