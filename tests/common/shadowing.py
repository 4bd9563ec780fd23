"""Models whose local functions take (or do not take) a standard operator's name, written as ONNX files.

The two models of the function-shadowing report (``ai.onnx::Relu`` with a ``Neg`` body,
``ai.onnx::RandomNormalLike`` with an ``Identity`` body), the same calls reached through a function of a
custom domain (nested), and the controls: a custom-domain function of a standard name, and a function
named after an operator ONNX only adds in a later opset than the model imports (``Gelu``, opset 20).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import onnx
from onnx import TensorProto, helper

OPSET = 17


def local_function(
    domain: str, name: str, body: Sequence[onnx.NodeProto], inputs: Sequence[str] = ("x",),
    outputs: Sequence[str] = ("y",), attributes: Sequence[str] = (), opset: int = OPSET,
    imports: Sequence[tuple[str, int]] = (),
) -> onnx.FunctionProto:
    ops = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, v) for d, v in imports)]
    return helper.make_function(domain, name, list(inputs), list(outputs), list(body), ops, list(attributes))


def one_call(
    fn: onnx.FunctionProto, *, extra: Sequence[onnx.FunctionProto] = (), call_domain: str | None = None,
    call_name: str | None = None, inputs: Sequence[str] = ("X",), initializers: Sequence[onnx.TensorProto] = (),
    graph_inputs: Sequence[str] = ("X",), opset: int = OPSET, domains: Sequence[tuple[str, int]] = (),
    **attrs: Any,
) -> onnx.ModelProto:
    """A main graph X -> (one call of ``fn``, or of ``call_domain::call_name``) -> Y, float [4]."""
    node = helper.make_node(call_name or fn.name, list(inputs), ["Y"], name="call",
                            domain=fn.domain if call_domain is None else call_domain, **attrs)
    g = helper.make_graph(
        [node], "main", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in graph_inputs],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])], initializer=list(initializers),
    )
    imports = {"": opset, **dict(domains)}
    for f in (fn, *extra):
        if f.domain not in ("", "ai.onnx"):
            imports.setdefault(f.domain, 1)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in imports.items()],
                          functions=[fn, *extra])
    m.ir_version = 10
    return m


def relu_neg() -> onnx.ModelProto:
    """``ai.onnx::Relu`` defined locally as ``Neg``: the runtimes compute Relu, sonnx's inlining Neg."""
    return one_call(local_function("", "Relu", [helper.make_node("Neg", ["x"], ["y"])]))


def random_identity(**attrs: Any) -> onnx.ModelProto:
    """``ai.onnx::RandomNormalLike`` defined locally as ``Identity``: the runtimes draw random numbers."""
    return one_call(local_function("", "RandomNormalLike", [helper.make_node("Identity", ["x"], ["y"])]), **attrs)


def nested_random() -> onnx.ModelProto:
    """``local::Block`` calls the shadowing ``RandomNormalLike`` (the main graph only calls ``Block``)."""
    inner = local_function("", "RandomNormalLike", [helper.make_node("Identity", ["x"], ["y"])])
    block = local_function("local", "Block", [
        helper.make_node("Abs", ["x"], ["a"]),
        helper.make_node("RandomNormalLike", ["a"], ["r"]),
        helper.make_node("Neg", ["r"], ["y"]),
    ])
    return one_call(block, extra=[inner])


def custom_relu() -> onnx.ModelProto:
    """Control: ``custom::Relu`` with a ``Neg`` body is not ONNX's Relu; every runtime runs the function."""
    return one_call(local_function("custom", "Relu", [helper.make_node("Neg", ["x"], ["y"])]))


def later_gelu() -> onnx.ModelProto:
    """Control: ``ai.onnx::Gelu`` (ONNX's arrives in opset 20) in an opset-17 model; no runtime accepts it."""
    return one_call(local_function("", "Gelu", [helper.make_node("Neg", ["x"], ["y"])]))


def save(path: Path, m: onnx.ModelProto) -> str:
    onnx.save(m, str(path))
    return str(path)


def _vi(name: str, elem: int = TensorProto.FLOAT, shape: Sequence[int] = (4,)) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, list(shape))


def graph_model(
    nodes: Sequence[onnx.NodeProto], functions: Sequence[onnx.FunctionProto], inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[str] = ("Y",), initializers: Sequence[onnx.TensorProto] = (), shape: Sequence[int] = (4,),
) -> onnx.ModelProto:
    """A main graph of ``nodes`` calling ``functions`` (opset 17, each custom domain imported at 1); every
    output a float tensor of ``shape``."""
    g = helper.make_graph(list(nodes), "main", list(inputs), [_vi(o, shape=shape) for o in outputs],
                          initializer=list(initializers))
    imports = {"": OPSET}
    for f in functions:
        if f.domain not in ("", "ai.onnx"):
            imports.setdefault(f.domain, 1)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in imports.items()],
                          functions=list(functions))
    m.ir_version = 10
    return m


def _identity_fn(name: str, inputs: Sequence[str], outputs: Sequence[str], domain: str = "") -> onnx.FunctionProto:
    """``domain::name`` whose every output is an Identity of its first input (a body that is deterministic)."""
    body = [helper.make_node("Identity", [inputs[0]], [o]) for o in outputs]
    return local_function(domain, name, body, inputs, outputs)


def dropout(training: str | bool | None) -> onnx.ModelProto:
    """A call of a local ``ai.onnx::Dropout`` (Identity body) whose training_mode is omitted (None), a graph
    input ("input"), or an initializer holding ``training``."""
    fn = _identity_fn("Dropout", ["x", "ratio", "training_mode"], ["y"])
    inputs, inits, args = [_vi("X")], [], ["X"]
    if training == "input":
        inputs.append(_vi("T", TensorProto.BOOL, ()))
        args += ["", "T"]
    elif isinstance(training, bool):
        inits.append(helper.make_tensor("T", TensorProto.BOOL, [], [training]))
        args += ["", "T"]
    return graph_model([helper.make_node("Dropout", args, ["Y"], name="drop")], [fn], inputs, initializers=inits)


def _topk_fn() -> onnx.FunctionProto:
    return local_function("", "TopK", [helper.make_node("Identity", ["x"], ["values"]),
                                       helper.make_node("Identity", ["k"], ["indices"])],
                          ["x", "k"], ["values", "indices"], attributes=["sorted"])


def _k() -> onnx.TensorProto:
    return helper.make_tensor("K", TensorProto.INT64, [1], [2])


def topk(sorted_: int) -> onnx.ModelProto:
    """A call of a local ``ai.onnx::TopK`` (Identity body) with ``sorted`` given at the call."""
    node = helper.make_node("TopK", ["X", "K"], ["Y", "I"], name="top", sorted=sorted_)
    return graph_model([node], [_topk_fn()], [_vi("X")], initializers=[_k()], shape=(2,))


def topk_through_block(sorted_: int) -> onnx.ModelProto:
    """``local::Block`` passes its own attribute ``s`` as the ``sorted`` of its call of the local TopK."""
    inner = helper.make_node("TopK", ["x", "k"], ["y", "i"])
    inner.attribute.append(helper.make_attribute_ref("sorted", onnx.AttributeProto.INT))
    block = local_function("local", "Block", [helper.make_node("Constant", [], ["k"], value=_k()), inner],
                           attributes=["s"])
    block.node[1].attribute[0].ref_attr_name = "s"
    call = helper.make_node("Block", ["X"], ["Y"], name="block", domain="local", s=sorted_)
    return graph_model([call], [block, _topk_fn()], [_vi("X")], shape=(2,))


def mod(divisor: Sequence[float] | None) -> onnx.ModelProto:
    """A call of a local ``ai.onnx::Mod`` (Identity body); the divisor a graph input (None) or an initializer."""
    fn = _identity_fn("Mod", ["a", "b"], ["c"])
    if divisor is None:
        return graph_model([helper.make_node("Mod", ["X", "D"], ["Y"], name="mod")], [fn], [_vi("X"), _vi("D")])
    d = helper.make_tensor("D", TensorProto.FLOAT, [len(divisor)], list(divisor))
    return graph_model([helper.make_node("Mod", ["X", "D"], ["Y"], name="mod", fmod=1)], [fn], [_vi("X")],
                       initializers=[d])


def random_in_branch() -> onnx.ModelProto:
    """The shadowing RandomNormalLike called in the then-branch of an If of the main graph."""
    then = helper.make_graph([helper.make_node("RandomNormalLike", ["X"], ["t"], name="draw")], "then", [],
                             [_vi("t")])
    other = helper.make_graph([helper.make_node("Identity", ["X"], ["e"])], "else", [], [_vi("e")])
    node = helper.make_node("If", ["C"], ["Y"], name="choose", then_branch=then, else_branch=other)
    fn = _identity_fn("RandomNormalLike", ["x"], ["y"])
    return graph_model([node], [fn], [_vi("X"), _vi("C", TensorProto.BOOL, ())])


def dead_random() -> onnx.ModelProto:
    """A call of the shadowing RandomNormalLike whose value no output reads (R2 fails, determinism holds)."""
    nodes = [helper.make_node("Neg", ["X"], ["Y"]), helper.make_node("RandomNormalLike", ["X"], ["R"], name="draw")]
    return graph_model(nodes, [_identity_fn("RandomNormalLike", ["x"], ["y"])], [_vi("X")])


def custom_random() -> onnx.ModelProto:
    """Control: ``custom::RandomNormalLike`` with an Identity body is not ONNX's generator."""
    return one_call(_identity_fn("RandomNormalLike", ["x"], ["y"], domain="custom"))


def dropout_in_branch() -> onnx.ModelProto:
    """The local Dropout called in an If branch with the main graph's input T as training_mode: the branch's
    body never reads T, so no operation of the branch names it once the call is inlined."""
    then = helper.make_graph([helper.make_node("Dropout", ["X", "", "T"], ["t"], name="drop")], "then", [],
                             [_vi("t")])
    other = helper.make_graph([helper.make_node("Identity", ["X"], ["e"])], "else", [], [_vi("e")])
    node = helper.make_node("If", ["C"], ["Y"], name="choose", then_branch=then, else_branch=other)
    fn = _identity_fn("Dropout", ["x", "ratio", "training_mode"], ["y"])
    return graph_model([node], [fn], [_vi("X"), _vi("C", TensorProto.BOOL, ()), _vi("T", TensorProto.BOOL, ())])


def ml_binarizer() -> onnx.ModelProto:
    """``ai.onnx.ml::Binarizer`` defined locally as ``Neg``: onnxruntime and onnx's evaluator binarize."""
    fn = local_function("ai.onnx.ml", "Binarizer", [helper.make_node("Neg", ["x"], ["y"])])
    return one_call(fn, domains=[("ai.onnx.ml", 3)])


def if_with_random_branch() -> onnx.ModelProto:
    """A local ``ai.onnx::If`` (body: ``Identity`` of its input X, ignoring the branches) called with a then-branch
    that draws random numbers: the runtimes run the standard If and so the branch, which the inlined body never
    holds."""
    fn = local_function("", "If", [helper.make_node("Identity", ["x"], ["y"])], ["cond", "x"], ["y"],
                        attributes=["then_branch", "else_branch"])
    fn.input.pop()  # the standard If takes one input: the body reads its X from the graph instead
    fn.node[0].input[0] = "cond"
    then = helper.make_graph([helper.make_node("RandomNormal", [], ["t"], shape=[4])], "then", [], [_vi("t")])
    other = helper.make_graph([helper.make_node("Constant", [], ["e"], value=helper.make_tensor(
        "v", TensorProto.FLOAT, [4], [0.0] * 4))], "else", [], [_vi("e")])
    node = helper.make_node("If", ["C"], ["Y"], name="choose", then_branch=then, else_branch=other)
    return graph_model([node], [fn], [_vi("C", TensorProto.BOOL, ())])
