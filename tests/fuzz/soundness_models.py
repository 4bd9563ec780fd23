"""Models for the soundness campaign: a nondeterminism source, where it hides, and how its deciding value is written.

Each model combines one *source* (an operator the determinism table of GRAPH-R2
knows, one outside the table whose result runtimes may read differently, or a
model-local function that shadows a random operator), one *place* (a chain of
wrappers from the inside out: model-local functions, nested functions, If,
Loop and Scan bodies, a graph passed as a function's graph attribute), one
*encoding* of the value that decides the source's determinism (an
initializer, an initializer that is also a graph input, a ``Constant`` with a
``value`` tensor or a ``value_int(s)``/``value_float(s)`` form, a function
attribute's default, an attribute reference the caller fills or leaves out)
and one *payload* (canonical raw or typed storage, or a non-canonical one: a
BOOL stored as 256 or 2, two storage fields that disagree, the wrong field, an
attribute outside its definition or in the wrong field). Optional decoys add
deterministic operations and conditional operators whose conditions really
hold (``training_mode`` false, ``sorted`` 1, unique constant indices).

Model number ``k`` depends only on the campaign seed and ``k``. The first
``len(product(seed))`` models (about 6,500) walk the product of every valid
combination of source, place, encoding, payload and deciding value in a
seeded order, interleaved so that the first ``len(SOURCES)`` models hold every
source, source number ``s`` starting at place number ``s`` (so that they hold
nearly every place too); the models after that draw each axis at random.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

N = 512
"""Elements of the graph input: enough that two random draws or two dropout masks differ."""
LOCAL = "local.fuzz"


@dataclass(frozen=True)
class Spec:
    """What model ``k`` combines."""

    k: int
    source: str
    place: tuple[str, ...]
    encoding: str
    payload: str
    risky: bool
    """Whether the deciding value is the one that makes the source nondeterministic."""
    decoy: bool

    def label(self) -> str:
        place = "+".join(self.place) or "main"
        return f"{self.k:05d}-{self.source}-{place}-{self.encoding}-{self.payload}-{'risky' if self.risky else 'safe'}"


@dataclass
class Source:
    opset: int
    value: str
    """``none``, ``attr`` (an INT attribute of the source node) or the element type of a deciding tensor input."""
    build: Callable[[str, str, str | None, AttributeProto | None], list[onnx.NodeProto]]
    risky: Any = None
    safe: Any = None
    omittable: bool = False
    """Whether leaving the deciding input out is allowed (Dropout's training_mode, Scan-8's sequence_lens)."""
    shadow: str = ""
    """Domain of a model-local function named like the operator, with an Identity body ("" for none)."""
    functions: list[onnx.FunctionProto] = field(default_factory=list)


def _c(name: str, array: np.ndarray) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name))


def _node(op: str, inputs: list[str], outputs: list[str], attr: AttributeProto | None, **kw: Any) -> onnx.NodeProto:
    n = helper.make_node(op, inputs, outputs, **kw)
    if attr is not None:
        n.attribute.append(attr)
    return n


def _to_float(src: str, out: str) -> onnx.NodeProto:
    return helper.make_node("Cast", [src], [out], to=TensorProto.FLOAT)


def _random(op: str) -> Callable[[str, str, str | None, AttributeProto | None], list[onnx.NodeProto]]:
    def build(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
        if op in ("RandomNormal", "RandomUniform"):
            return [_node(op, [], [o + "_r"], attr, shape=[N]), helper.make_node("Add", [o + "_r", i], [o])]
        if op == "Multinomial":
            return [_c(o + "_s", np.array([N // 8, 8], np.int64)),
                    helper.make_node("Reshape", [i, o + "_s"], [o + "_l"]),
                    _node(op, [o + "_l"], [o + "_m"], attr, sample_size=8), _to_float(o + "_m", o)]
        if op == "Bernoulli":
            return [helper.make_node("Sigmoid", [i], [o + "_p"]), _node(op, [o + "_p"], [o], attr)]
        return [_node(op, [i], [o], attr)]

    return build


def _dropout12(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
    ratio = [_c(o + "_q", np.array(0.5, np.float32))]
    return [*ratio, helper.make_node("Dropout", [i, o + "_q"] + ([dv] if dv else []), [o])]


def _dropout_old(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
    return [_node("Dropout", [i], [o], attr, ratio=0.5)]


def _topk(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
    return [_c(o + "_k", np.array([N // 2], np.int64)), _node("TopK", [i, o + "_k"], [o, o + "_ix"], attr)]


def _scatter(op: str) -> Callable[[str, str, str | None, AttributeProto | None], list[onnx.NodeProto]]:
    def build(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
        assert dv is not None
        upd = _c(o + "_u", np.arange(1, 5, dtype=np.float32) * 100)
        if op == "ScatterND":
            shape = _c(o + "_sh", np.array([4, 1], np.int64))
            return [upd, shape, helper.make_node("Reshape", [dv, o + "_sh"], [o + "_ix"]),
                    helper.make_node(op, [i, o + "_ix", o + "_u"], [o])]
        return [upd, helper.make_node(op, [i, dv, o + "_u"], [o], axis=0)]

    return build


def _mod(fmod: int) -> Callable[[str, str, str | None, AttributeProto | None], list[onnx.NodeProto]]:
    def build(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
        assert dv is not None
        if fmod:
            return [helper.make_node("Mod", [i, dv], [o], fmod=1)]
        ten = _c(o + "_t", np.array(10, np.float32))
        return [ten, helper.make_node("Mul", [i, o + "_t"], [o + "_m"]),
                helper.make_node("Cast", [o + "_m"], [o + "_n"], to=TensorProto.INT64),
                helper.make_node("Mod", [o + "_n", dv], [o + "_r"]), _to_float(o + "_r", o)]

    return build


def _scan8(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
    body = helper.make_graph([helper.make_node("Neg", ["e_in"], ["e_out"])], "scan8_body",
                             [helper.make_tensor_value_info("e_in", TensorProto.FLOAT, [])],
                             [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [])])
    shape = _c(o + "_s", np.array([2, N // 2], np.int64))
    scan = helper.make_node("Scan", [dv or "", o + "_b"], [o + "_y"], body=body, num_scan_inputs=1)
    return [shape, helper.make_node("Reshape", [i, o + "_s"], [o + "_b"]), scan,
            _c(o + "_f", np.array([N], np.int64)), helper.make_node("Reshape", [o + "_y", o + "_f"], [o])]


def _cast(target: int) -> Callable[[str, str, str | None, AttributeProto | None], list[onnx.NodeProto]]:
    def build(i: str, o: str, dv: str | None, attr: AttributeProto | None) -> list[onnx.NodeProto]:
        assert dv is not None
        return [helper.make_node("Cast", [dv], [o + "_c"], to=target), _to_float(o + "_c", o + "_f"),
                helper.make_node("Concat", [o + "_f", i], [o], axis=0)]

    return build


_BIG = np.array([3.0e9, -3.0e9, 1.0e20, np.nan], np.float32)
SOURCES: dict[str, Source] = {
    "RandomNormal": Source(17, "attr", _random("RandomNormal")),
    "RandomUniform": Source(17, "attr", _random("RandomUniform")),
    "RandomNormalLike": Source(17, "attr", _random("RandomNormalLike")),
    "RandomUniformLike": Source(17, "attr", _random("RandomUniformLike")),
    "Multinomial": Source(17, "attr", _random("Multinomial")),
    "Bernoulli": Source(17, "attr", _random("Bernoulli")),
    "Dropout12": Source(17, "bool", _dropout12, np.array(True), np.array(False), omittable=True),
    "Dropout10": Source(11, "none", _dropout_old),
    "Dropout6": Source(6, "attr", _dropout_old, 0, 1),
    "TopK": Source(17, "attr", _topk, 0, 1),
    "ScatterElements": Source(17, "int64", _scatter("ScatterElements"), np.array([3, 3, 5, 5], np.int64),
                              np.array([3, 4, 5, 6], np.int64)),
    "ScatterND": Source(17, "int64", _scatter("ScatterND"), np.array([3, 3, 5, 5], np.int64),
                        np.array([3, 4, 5, 6], np.int64)),
    "Scatter9": Source(10, "int64", _scatter("Scatter"), np.array([3, 3, 5, 5], np.int64),
                       np.array([3, 4, 5, 6], np.int64)),
    "ModInt": Source(17, "int64", _mod(0), np.array([3, 0, 7, 2], np.int64)[1:2], np.array([3], np.int64)),
    "ModFloat": Source(17, "float", _mod(1), np.array([0.0], np.float32), np.array([0.75], np.float32)),
    "Scan8": Source(8, "int32", _scan8, np.array([N // 4, N // 8], np.int32), None, omittable=True),
    "CastE8M0": Source(24, "float", _cast(TensorProto.FLOAT8E8M0), np.array([-1.0, -0.0, 2.0, -4.0], np.float32),
                       np.array([1.0, 0.5, 2.0, 4.0], np.float32)),
    "CastIntRange": Source(17, "float", _cast(TensorProto.INT32), _BIG, np.array([3.0, -3.0, 1e6, 7.5], np.float32)),
    "ShadowRandom": Source(17, "none", _random("RandomNormalLike"), shadow=""),
    "ShadowRandomAiOnnx": Source(17, "none", _random("RandomNormalLike"), shadow="ai.onnx"),
}
"""Every source: the table's generators and conditional operators, two outside the table, two shadowing functions."""

PLACES: tuple[tuple[str, ...], ...] = (
    (), ("fn",), ("fn", "fn"), ("if",), ("loop",), ("scan",), ("gattr",), ("fn", "if"), ("loop", "fn"),
    ("if", "scan"), ("scan", "fn", "loop"),
)
"""Wrappers from the inside out: ``fn`` a model-local function, ``if``/``loop``/``scan`` a body, ``gattr`` a graph
passed to a function as a graph attribute that its If uses by reference."""

TENSOR_ENCODINGS = ("init", "init-input", "const", "const-scalar", "const-list", "fn-default", "fn-ref", "omitted")
ATTR_ENCODINGS = ("attr", "absent", "fn-default", "fn-ref", "fn-ref-missing")
PAYLOADS: dict[str, tuple[str, ...]] = {
    "bool": ("raw", "typed", "bool256", "bool2", "rawbyte2", "two-fields"),
    "int64": ("raw", "typed", "two-fields", "int32-field"),
    "int32": ("raw", "typed", "two-fields"),
    "float": ("raw", "typed", "two-fields"),
    "attr": ("int", "outside", "wrong-field", "float-typed"),
    "none": ("-",),
}
_ELEM = {"bool": TensorProto.BOOL, "int64": TensorProto.INT64, "int32": TensorProto.INT32, "float": TensorProto.FLOAT}
_NP = {"bool": np.bool_, "int64": np.int64, "int32": np.int32, "float": np.float32}


def _valid(source: str, place: tuple[str, ...], encoding: str, payload: str) -> bool:
    s = SOURCES[source]
    if s.opset < 9 and "scan" in place:
        return False  # the place's Scan is Scan-9's form
    if s.value == "none":
        return encoding == "-"
    encodings = ATTR_ENCODINGS if s.value == "attr" else TENSOR_ENCODINGS
    if encoding not in encodings or payload not in PAYLOADS[s.value]:
        return False
    if encoding == "omitted" and not s.omittable:
        return False
    if encoding in ("const-scalar", "const-list", "omitted", "absent", "fn-ref-missing"):
        return payload == PAYLOADS[s.value][0]  # these forms carry no storage field to vary
    return True


def placed(place: tuple[str, ...], encoding: str) -> tuple[str, ...]:
    """The place, with a function around the source when the encoding needs one to hold the attribute."""
    if encoding.startswith("fn-") and "fn" not in place:
        return ("fn", *place)
    return place


def product(seed: int) -> list[tuple[str, tuple[str, ...], str, str, bool, bool]]:
    """Every valid combination once, in a seeded order interleaving sources, and places within a source.

    Decoys are not an axis of the product: each combination has them or not at random (seeded)."""
    rng = random.Random(f"sonnx-soundness-product:{seed}")
    groups: list[list[tuple[str, tuple[str, ...], str, str, bool, bool]]] = []
    for s_index, name in enumerate(SOURCES):
        s = SOURCES[name]
        encodings = ("-",) if s.value == "none" else ATTR_ENCODINGS if s.value == "attr" else TENSOR_ENCODINGS
        by_place: list[list[tuple[str, tuple[str, ...], str, str, bool, bool]]] = []
        for p_index in range(len(PLACES)):
            place = PLACES[(p_index + s_index) % len(PLACES)]  # source s starts at place s: the first round has all
            combos = [(name, placed(place, e), e, p, r, rng.random() < 0.5) for e, p, r in itertools.product(
                encodings, PAYLOADS[s.value], (True, False)) if _valid(name, place, e, p)]
            rng.shuffle(combos)
            if combos:
                by_place.append(combos)
        groups.append([c for round_ in itertools.zip_longest(*by_place) for c in round_ if c is not None])
    return [c for round_ in itertools.zip_longest(*groups) for c in round_ if c is not None]


def spec(k: int, seed: int, walk: list[tuple[str, tuple[str, ...], str, str, bool, bool]] | None = None) -> Spec:
    """Model number ``k`` of campaign ``seed``: the product's k-th combination, or a random one past its end."""
    walk = product(seed) if walk is None else walk
    if k < len(walk):
        return Spec(k, *walk[k])
    rng = random.Random(f"sonnx-soundness:{seed}:{k}")
    while True:
        name = rng.choice(list(SOURCES))
        s = SOURCES[name]
        place = rng.choice(PLACES)
        encoding = "-" if s.value == "none" else rng.choice(ATTR_ENCODINGS if s.value == "attr" else TENSOR_ENCODINGS)
        payload = rng.choice(PAYLOADS[s.value])
        if _valid(name, place, encoding, payload):
            return Spec(k, name, placed(place, encoding), encoding, payload, rng.random() < 0.5, rng.random() < 0.5)
