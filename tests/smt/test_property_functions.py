"""Differential campaign over models with model-local functions.

Random ONNX models whose main graph (and If branches) call random
model-local functions, which may call each other or themselves, are
serialised and loaded through the real loader (which inlines the calls and
leaves recursive chains as opaque operations). Both engines must then agree
on every rule, exactly as in :mod:`.test_property_differential`; the models
exercise names that inlining renames, captures of inlined bodies, and
unresolved recursive calls.
"""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from onnx import helper

from sonnx.base.errors import SonnxError
from sonnx.loader import load_model
from sonnx.model.graph import Model

from .test_property_differential import _check

pytestmark = pytest.mark.rule("GRAPH-FUNCTION-SHADOWING")

FUNCS = ["F0", "F1"]
KINDS = ["Add", "Relu", "Neg", "RandomUniformLike", *FUNCS]


def _node(draw: st.DrawFn, pool: list[str], out: str, tag: str) -> onnx.NodeProto:
    kind = draw(st.sampled_from(KINDS))
    arity = 2 if kind in ("Add", *FUNCS) else 1
    ins = [draw(st.sampled_from(pool)) for _ in range(arity)]
    domain = "local" if kind in FUNCS else ""
    return helper.make_node(kind, ins, [out], name=f"{tag}_{out}", domain=domain)


def _vi(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, 1, None)


@st.composite
def models_with_functions(draw: st.DrawFn) -> bytes:
    functions = []
    for f in FUNCS:
        pool = ["a", "b"]
        nodes = []
        for k in range(draw(st.integers(1, 3))):
            out = f"v{k}"
            nodes.append(_node(draw, pool, out, f))
            pool.append(out)
        result = draw(st.sampled_from(pool[2:]))
        nodes.append(helper.make_node("Identity", [result], ["o"]))
        functions.append(helper.make_function("local", f, ["a", "b"], ["o"], nodes, [helper.make_opsetid("", 17)]))
    if draw(st.integers(0, 3)) == 0:
        # a function that shadows the standard Neg (GRAPH-FUNCTION-SHADOWING); the loader inlines it for Neg
        body = [helper.make_node("Identity", ["a"], ["o"])]
        functions.append(helper.make_function("", "Neg", ["a"], ["o"], body, [helper.make_opsetid("", 17)]))
    pool = ["x", "y"]
    nodes = []
    for k in range(draw(st.integers(1, 4))):
        out = f"t{k}"
        if draw(st.integers(0, 5)) == 0:
            branch = [_node(draw, pool, f"br{k}", "then")]
            other = [helper.make_node("Relu", [draw(st.sampled_from(pool))], [f"el{k}"])]
            nodes.append(
                helper.make_node(
                    "If",
                    ["c"],
                    [out],
                    name=f"if{k}",
                    then_branch=helper.make_graph(branch, f"then{k}", [], [_vi(f"br{k}")]),
                    else_branch=helper.make_graph(other, f"else{k}", [], [_vi(f"el{k}")]),
                )
            )
        else:
            nodes.append(_node(draw, pool, out, "main"))
        pool.append(out)
    outputs = draw(st.lists(st.sampled_from(pool[2:]), min_size=1, max_size=2, unique=True))
    graph = helper.make_graph(
        nodes,
        "main",
        [helper.make_tensor_value_info(n, 1, [2]) for n in ("x", "y")] + [helper.make_tensor_value_info("c", 9, [])],
        [helper.make_tensor_value_info(n, 1, None) for n in outputs],
    )
    model = helper.make_model(
        graph,
        functions=functions,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
    )
    model.ir_version = 8
    return bytes(model.SerializeToString())


def _load(data: bytes, tmp: Path) -> Model:
    path = tmp / "m.onnx"
    path.write_bytes(data)
    try:
        return load_model(str(path))
    except SonnxError:
        reject()
        raise


_LOADED = settings().max_examples
CI_EXAMPLES = 50
"""Each example runs both engines in both modes (~0.4 s): 50 in CI; the fuzz profile's full count otherwise."""


@settings(max_examples=CI_EXAMPLES if _LOADED <= 200 else _LOADED)
@given(models_with_functions())
def test_property_models_with_functions_engines_agree(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        m = _load(data, Path(d))
    _check(m)
