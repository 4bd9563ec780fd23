"""Build the ONNX model a :class:`~tests.fuzz.soundness_models.Spec` describes.

The source is built as a block reading ``in0`` and writing ``out0``; each
wrapper of the place turns the block at level ``L`` into one at level
``L + 1`` (``in{L+1}`` to ``out{L+1}``), and the main graph feeds ``x`` in and
reads ``y`` out. A deciding value held by a function attribute stays pending
until the innermost function declares it (a default, or an attribute the
caller leaves out) or, for a reference, until the outermost function's caller
gives its value (functions in between forward it by reference).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from tests.fuzz.soundness_models import _ELEM, _NP, LOCAL, SOURCES, N, Source, Spec, _c


@dataclass
class Pending:
    """A deciding value read through the function attribute ``dv``: its value, and how it reaches the function."""

    value: AttributeProto
    mode: str


@dataclass
class Block:
    nodes: list[onnx.NodeProto]
    inp: str
    out: str
    free: list[str]
    pending: Pending | None
    functions: list[onnx.FunctionProto] = field(default_factory=list)
    rank: int = 1
    """Rank of the block's output (its dimensions are left unnamed)."""


def tensor(name: str, value: np.ndarray, other: np.ndarray, kind: str, payload: str) -> TensorProto:
    """``value`` stored as ``payload`` says; ``other`` is what a second, disagreeing field holds."""
    arr: np.ndarray = np.asarray(value).astype(_NP[kind])
    if payload == "raw":
        return numpy_helper.from_array(arr, name)
    if payload == "typed":
        return helper.make_tensor(name, _ELEM[kind], arr.shape, arr.flatten().tolist())
    t = TensorProto(name=name, data_type=_ELEM[kind], dims=arr.shape)
    flat = arr.flatten()
    if payload in ("bool256", "bool2"):
        t.int32_data.extend([(256 if payload == "bool256" else 2) if v else 0 for v in flat])
    elif payload == "rawbyte2":
        t.raw_data = bytes(2 if v else 0 for v in flat)
    elif payload == "int32-field":
        t.int32_data.extend(int(v) for v in flat)
    elif payload == "two-fields":
        t.raw_data = arr.tobytes()
        second: np.ndarray = np.resize(np.asarray(other).astype(_NP[kind]), flat.shape)
        if kind == "int64":
            t.int64_data.extend(int(v) for v in second)
        elif kind == "float":
            t.float_data.extend(float(v) for v in second)
        else:
            t.int32_data.extend(int(v) for v in second)
    else:
        raise ValueError(f"unknown payload {payload!r}")
    return t


def _attr_spec(source: str) -> tuple[str, int]:
    """The attribute that decides a source with an attribute value, and its ONNX type."""
    if source == "TopK":
        return "sorted", AttributeProto.INT
    if source == "Dropout6":
        return "is_test", AttributeProto.INT
    return "seed", AttributeProto.FLOAT


def attribute(name: str, kind: int, value: float, payload: str) -> AttributeProto:
    """An attribute holding ``value`` stored as ``payload`` says (canonical, outside the definition, wrong field)."""
    a = AttributeProto(name=name)
    a.type = kind  # type: ignore[assignment]
    if payload == "int":
        if kind == AttributeProto.INT:
            a.i = int(value)
        else:
            a.f = value
    elif payload == "outside":
        if kind == AttributeProto.INT:
            a.i = 1 << 32  # an int64 whose low 32 bits are all zero
        else:
            a.f = float("nan")
    elif payload == "wrong-field":
        if kind == AttributeProto.INT:
            a.i = int(value)
            a.ints.append(1 - int(value))
        else:
            a.f = value
            a.i = 3
    elif payload == "float-typed":
        if kind == AttributeProto.INT:
            a.type = AttributeProto.FLOAT
            a.f = float(value)
        else:
            a.type = AttributeProto.INT
            a.i = int(value)
    else:
        raise ValueError(f"unknown payload {payload!r}")
    return a


def _ref(name: str, kind: int) -> AttributeProto:
    a = AttributeProto(name=name, ref_attr_name="dv")
    a.type = kind  # type: ignore[assignment]
    return a


def _decoys(i: str, o: str, opset: int) -> list[onnx.NodeProto]:
    """Deterministic operations, and conditional operators whose conditions really hold, from ``i`` to ``o``."""
    if opset < 13:
        return [helper.make_node("Abs", [i], [o + "_a"]), helper.make_node("Identity", [o + "_a"], [o])]
    return [
        _c(o + "_tm", np.array(False)), _c(o + "_r", np.array(0.5, np.float32)),
        helper.make_node("Dropout", [i, o + "_r", o + "_tm"], [o + "_1"]),
        _c(o + "_k", np.array([N], np.int64)),
        helper.make_node("TopK", [o + "_1", o + "_k"], [o + "_2", o + "_2i"], sorted=1),
        _c(o + "_ix", np.array([0, 1, 2, 3], np.int64)), _c(o + "_u", np.zeros(4, np.float32)),
        helper.make_node("ScatterElements", [o + "_2", o + "_ix", o + "_u"], [o], axis=0),
    ]


def core(sp: Spec, s: Source, initializers: list[TensorProto], inputs: list[onnx.ValueInfoProto]) -> Block:
    """The source at level 0, with its deciding value where the encoding puts it."""
    nodes: list[onnx.NodeProto] = []
    src_in = "in0"
    if sp.decoy:
        nodes += _decoys("in0", "out0_d", s.opset)
        src_in = "out0_d"
    free: list[str] = []
    pending: Pending | None = None
    dv: str | None = None
    attr: AttributeProto | None = None
    if s.value == "attr":
        attr_name, attr_kind = _attr_spec(sp.source)
        v = float(s.risky if sp.risky else s.safe) if s.risky is not None else 7.0
        value = attribute(attr_name, attr_kind, v, sp.payload)
        if sp.encoding == "attr":
            attr = value
        elif sp.encoding.startswith("fn-"):
            attr = _ref(attr_name, value.type)
            value.name = "dv"
            pending = Pending(value, sp.encoding)
    elif s.value != "none" and sp.encoding != "omitted":
        kind: str = s.value
        value_arr = np.asarray(s.risky if sp.risky or s.safe is None else s.safe)
        other = np.asarray(s.safe if sp.risky and s.safe is not None else s.risky)
        dv = "dv"
        if sp.encoding in ("init", "init-input"):
            initializers.append(tensor(dv, value_arr, other, kind, sp.payload))
            if sp.encoding == "init-input":
                inputs.append(helper.make_tensor_value_info(dv, _ELEM[kind], list(value_arr.shape)))
            free.append(dv)
        elif sp.encoding == "const":
            nodes.append(helper.make_node("Constant", [], [dv], value=tensor(dv, value_arr, other, kind, sp.payload)))
        elif sp.encoding in ("const-scalar", "const-list"):
            flat = value_arr.flatten()
            as_float = kind == "float"
            form: dict[str, Any]
            if sp.encoding == "const-scalar":
                form = {"value_float": float(flat[0])} if as_float else {"value_int": int(flat[0])}
            else:
                form = ({"value_floats": [float(v) for v in flat]} if as_float
                        else {"value_ints": [int(v) for v in flat]})
            if kind in ("bool", "int32"):
                nodes += [helper.make_node("Constant", [], ["dv_c"], **form),
                          helper.make_node("Cast", ["dv_c"], [dv], to=_ELEM[kind])]
            else:
                nodes.append(helper.make_node("Constant", [], [dv], **form))
        else:  # fn-default, fn-ref: a Constant whose value is the function attribute dv
            c = helper.make_node("Constant", [], [dv])
            c.attribute.append(AttributeProto(name="value", ref_attr_name="dv", type=AttributeProto.TENSOR))
            nodes.append(c)
            pending = Pending(helper.make_attribute("dv", tensor("dv", value_arr, other, kind, sp.payload)),
                              sp.encoding)
    built = s.build(src_in, "out0", dv, attr)
    functions: list[onnx.FunctionProto] = []
    if s.shadow or sp.source.startswith("Shadow"):
        for n in built:
            if n.op_type == "RandomNormalLike":
                n.domain = s.shadow
        functions.append(helper.make_function(
            s.shadow, "RandomNormalLike", ["a"], ["b"], [helper.make_node("Identity", ["a"], ["b"])],
            _opsets(s.opset)))
    return Block(nodes + built, "in0", "out0", free, pending, functions, 2 if sp.source == "Multinomial" else 1)


def _fvi(name: str, shape: list[int] | int = 1) -> onnx.ValueInfoProto:
    """A float tensor of the given shape, or of that many unnamed dimensions."""
    dims: list[int | None] = [None] * shape if isinstance(shape, int) else list(shape)
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def wrap(b: Block, wrapper: str, level: int, outer_fns: int, opset: int) -> Block:
    """The block one level up: called from a function, or run by an If, Loop or Scan, or passed as a graph."""
    i, o = f"in{level + 1}", f"out{level + 1}"
    ops = _opsets(opset)
    if wrapper == "fn":
        attrs: list[str] = []
        defaults: list[AttributeProto] = []
        given: AttributeProto | None = None
        pending = b.pending
        if pending is not None:
            if pending.mode == "fn-default":
                defaults.append(pending.value)
                pending = None
            elif pending.mode == "fn-ref-missing":
                attrs.append("dv")
                pending = None
            else:
                attrs.append("dv")
                given = _ref("dv", pending.value.type) if outer_fns else pending.value
                pending = pending if outer_fns else None
        f = helper.make_function(LOCAL, f"f{level}", [b.inp, *b.free], [b.out], b.nodes, ops, attributes=attrs,
                                 attribute_protos=defaults)
        call = helper.make_node(f"f{level}", [i, *b.free], [o], domain=LOCAL)
        if given is not None:
            call.attribute.append(given)
        return Block([call], i, o, b.free, pending, [*b.functions, f], b.rank)
    if wrapper == "gattr":
        # the graph reads the function's input under the caller's name, which both scopes define
        graph = helper.make_graph([helper.make_node("Identity", [i], [b.inp]), *b.nodes], f"g{level}", [],
                                  [_fvi(b.out, b.rank)])
        branch = helper.make_node("If", [f"gc{level}"], [f"gout{level}"],
                                  else_branch=_else(i, f"ge{level}", b.rank))
        branch.attribute.append(AttributeProto(name="then_branch", ref_attr_name="g", type=AttributeProto.GRAPH))
        body = [_c(f"gc{level}", np.array(True)), branch]
        f = helper.make_function(LOCAL, f"g{level}", [i, *b.free], [f"gout{level}"], body, ops, attributes=["g"])
        call = helper.make_node(f"g{level}", [i, *b.free], [o], domain=LOCAL, g=graph)
        return Block([call], i, o, b.free, b.pending, [*b.functions, f], b.rank)
    enter = helper.make_node("Identity", [i], [b.inp])
    if wrapper == "if":
        then = helper.make_graph([enter, *b.nodes], f"then{level}", [], [_fvi(b.out, b.rank)])
        other = _else(i, f"else{level}", b.rank)
        nodes = [_c(f"cond{level}", np.array(True)),
                 helper.make_node("If", [f"cond{level}"], [o], then_branch=then, else_branch=other)]
    elif wrapper == "loop":
        # one loop-carried value, which Loop-1 requires
        body = helper.make_graph(
            [helper.make_node("Identity", [f"ci{level}"], [f"co{level}"]),
             helper.make_node("Identity", [f"vi{level}"], [f"vo{level}"]), enter, *b.nodes], f"loop{level}",
            [helper.make_tensor_value_info(f"it{level}", TensorProto.INT64, []),
             helper.make_tensor_value_info(f"ci{level}", TensorProto.BOOL, []), _fvi(f"vi{level}", [])],
            [helper.make_tensor_value_info(f"co{level}", TensorProto.BOOL, []), _fvi(f"vo{level}", []),
             _fvi(b.out, b.rank)])
        nodes = [_c(f"trip{level}", np.array(2, np.int64)), _c(f"lc{level}", np.array(True)),
                 _c(f"v{level}", np.array(0.0, np.float32)),
                 helper.make_node("Loop", [f"trip{level}", f"lc{level}", f"v{level}"], [f"vf{level}", o], body=body)]
    elif wrapper == "scan":
        body = helper.make_graph(b.nodes, f"scan{level}", [_fvi(b.inp, [N])], [_fvi(b.out, b.rank)])
        nodes = [helper.make_node("Concat", [i, i], [f"cat{level}"], axis=0),
                 _c(f"ssh{level}", np.array([2, -1], np.int64)),
                 helper.make_node("Reshape", [f"cat{level}", f"ssh{level}"], [f"stk{level}"]),
                 helper.make_node("Scan", [f"stk{level}"], [o], body=body, num_scan_inputs=1)]
    else:
        raise ValueError(f"unknown wrapper {wrapper!r}")
    return Block(nodes, i, o, b.free, b.pending, b.functions, b.rank + (wrapper in ("loop", "scan")))


def _else(i: str, o: str, rank: int) -> onnx.GraphProto:
    """An else branch giving ``i`` reshaped to ``rank`` dimensions (the then branch's rank)."""
    shape = np.array([1] * (rank - 1) + [-1], np.int64)
    return helper.make_graph([_c(o + "_s", shape), helper.make_node("Reshape", [i, o + "_s"], [o])], o, [],
                             [_fvi(o, rank)])


def _opsets(opset: int) -> list[onnx.OperatorSetIdProto]:
    """The default domain, its ``ai.onnx`` spelling (a shadowing function's domain) and the local functions."""
    return [helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx", opset), helper.make_opsetid(LOCAL, 1)]


def build(sp: Spec) -> onnx.ModelProto:
    """The model of ``sp``: graph input ``x`` (float, N elements), graph output ``y``."""
    s = SOURCES[sp.source]
    initializers: list[TensorProto] = []
    inputs = [_fvi("x", [N])]
    b = core(sp, s, initializers, inputs)
    for level, wrapper in enumerate(sp.place):
        b = wrap(b, wrapper, level, sum(1 for w in sp.place[level + 1:] if w == "fn"), s.opset)
    nodes = [helper.make_node("Identity", ["x"], [b.inp]), *b.nodes, helper.make_node("Identity", [b.out], ["y"])]
    graph = helper.make_graph(nodes, "soundness", inputs, [_fvi("y", b.rank)], initializer=initializers)
    model = helper.make_model(graph, opset_imports=_opsets(s.opset), producer_name="sonnx-soundness-fuzz")
    model.ir_version = 11 if s.opset >= 23 else 10
    model.functions.extend(b.functions)
    return model


def feeds(sp: Spec) -> dict[str, np.ndarray]:
    """The graph input's value for model ``sp``: fixed by the model's number."""
    return {"x": np.random.default_rng(sp.k).standard_normal(N).astype(np.float32)}
