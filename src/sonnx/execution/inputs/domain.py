"""The values an integer graph input may take, read from the model itself.

Drawing every integer input from one fixed range ignores what the model says
about it: an index into a two-row embedding table admits 0 and 1 (and -2 and
-1), a Loop's trip count of 2^63-1 never ends in practice, a size drawn as -7
makes no tensor. A model run on such values fails, or does not finish, and a
comparison of two models on them establishes nothing.

:func:`input_domains` follows each integer graph input (no initial value,
integer element type) through the operations that pass its values on
unchanged (:data:`PASS_THROUGH`: Cast, Identity, Reshape, ...), into nested
graphs that read it by name, to the operations that consume it, and looks the
consumer up in :data:`CONSUMERS`, one table of the admissible values with the
reason for each:

* an **index** (Gather, GatherElements, GatherND, Scatter*): from the static
  size ``d`` of the indexed axis of the data (an initializer's dimensions, or
  a declared shape with a fixed size): ``[-d, d-1]`` where the operator accepts
  negative indices (opset 11 and later), else ``[0, d-1]``. A data axis
  without a static size gives no bound;
* a **count or size** (a Loop's trip count, Range's start, limit and delta,
  ConstantOfShape, Expand's shape, Tile's repeats, OneHot's depth, Pad's pads,
  NonMaxSuppression's box count): a small range fixed in the table; TopK's K
  is bounded by the static size of the sorted axis.

An input with several consumers gets the intersection of their ranges; when
they have none in common, the narrowest range is kept and the reason says so.
The range is also cut to the element type's own range. An input no consumer
bounds has no domain here, and it is drawn over the default range (the whole
range of :func:`sonnx.execution.inputs.tensors.random_inputs`).

The domain is about drawing inputs that exercise the model (the validation of
``sonnx rewrite`` and ``sonnx equiv``, ``sonnx run`` without input files); it
is not a rule and decides no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from onnx import TensorProto

from ...base.errors import SonnxError
from ...model.graph import Graph, Model, Operation
from ...ops.values import numpy_dtype

PASS_THROUGH: frozenset[str] = frozenset(
    {"Cast", "Identity", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Expand", "Transpose"}
)
"""Operators whose output at position 0 holds only values of their input at position 0 (followed to the consumer)."""


class Consumer(NamedTuple):
    """What one operator input position admits: a range fixed here, or an index range read from the data.

    ``data`` is the position of the indexed data (an index consumer), None for
    a fixed range; ``axis`` the attribute naming the indexed axis with its
    default (None: every axis of the data is indexed, the smallest size bounds);
    ``negative`` whether negative indices count from the end (from opset
    ``negative`` on; 0 never).
    """

    low: int
    high: int
    reason: str
    data: int | None = None
    axis: tuple[str, int] | None = None
    negative: int = 0


CONSUMERS: Mapping[tuple[str, int], Consumer] = {
    ("Gather", 1): Consumer(0, 0, "an index into axis {axis} of {data}", 0, ("axis", 0), 11),
    ("GatherElements", 1): Consumer(0, 0, "an index into axis {axis} of {data}", 0, ("axis", 0), 11),
    ("GatherND", 1): Consumer(0, 0, "an index into the dimensions of {data}", 0, None, 11),
    ("Scatter", 1): Consumer(0, 0, "an index into axis {axis} of {data}", 0, ("axis", 0), 0),
    ("ScatterElements", 1): Consumer(0, 0, "an index into axis {axis} of {data}", 0, ("axis", 0), 11),
    ("ScatterND", 1): Consumer(0, 0, "an index into the dimensions of {data}", 0, None, 0),
    ("TopK", 1): Consumer(1, 0, "the number K of elements TopK takes from axis {axis} of {data}", 0, ("axis", -1), 0),
    ("Loop", 0): Consumer(0, 8, "a Loop's trip count: a few iterations exercise the body and terminate"),
    ("Range", 0): Consumer(0, 8, "Range's start: a short range"),
    ("Range", 1): Consumer(0, 16, "Range's limit: a short range"),
    ("Range", 2): Consumer(1, 4, "Range's delta: a positive step (0 makes no range)"),
    ("ConstantOfShape", 0): Consumer(1, 8, "a dimension of the tensor ConstantOfShape makes: a small size"),
    ("Expand", 1): Consumer(1, 4, "a dimension of Expand's target shape: a small size"),
    ("Tile", 1): Consumer(1, 4, "Tile's repeats: a small count"),
    ("OneHot", 1): Consumer(1, 16, "OneHot's depth: a small count"),
    ("Pad", 1): Consumer(0, 2, "Pad's pads: a small non-negative amount"),
    ("NonMaxSuppression", 2): Consumer(0, 8, "NonMaxSuppression's box count: a small count"),
}
"""The admissible values of each consuming operator input, by (operator, input position), with the reason."""


@dataclass(frozen=True)
class Domain:
    """The admissible values ``[low, high]`` of one integer graph input, and why."""

    low: int
    high: int
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"low": self.low, "high": self.high, "reasons": list(self.reasons)}

    def text(self) -> str:
        return f"[{self.low}, {self.high}] ({'; '.join(self.reasons)})"


def _static_dims(chain: tuple[Graph, ...], name: str) -> tuple[int | None, ...] | None:
    """The dimensions of ``name`` as the innermost graph of ``chain`` declaring it gives them (None: unknown)."""
    for g in reversed(chain):
        t = g.tensors.get(name)
        if t is None:
            continue
        if t.initial_value is not None:
            return tuple(t.initial_value.dims)
        if t.type is not None and t.type.kind == "tensor" and t.type.shape is not None:
            return tuple(d if isinstance(d, int) and d >= 0 else None for d in t.type.shape)
        return None
    return None


def _axis(op: Operation, default: int) -> int:
    a = op.attribute("axis")
    return int(a.value) if a is not None else default


def _range_of(op: Operation, rule: Consumer, chain: tuple[Graph, ...], opset: int) -> tuple[int, int, str] | None:
    """The admissible range this consumer gives, or None when the model does not bound it statically."""
    if rule.data is None:
        return rule.low, rule.high, rule.reason
    if rule.data >= len(op.input_mapping) or not op.input_mapping[rule.data]:
        return None
    data = op.input_mapping[rule.data]
    dims = _static_dims(chain, data)
    if not dims:
        return None
    size: int | None
    if rule.axis is None:
        if any(d is None for d in dims):
            return None
        size, axis_text = min(d for d in dims if d is not None), "every"
    else:
        axis = _axis(op, rule.axis[1])
        if not -len(dims) <= axis < len(dims):
            return None
        size, axis_text = dims[axis], str(axis)
    if size is None or size < 1:
        return None
    reason = rule.reason.format(axis=axis_text, data=repr(data)) + f" (size {size})"
    if op.operator == "TopK":
        return 1, size, reason
    low = -size if rule.negative and opset >= rule.negative else 0
    return low, size - 1, reason


def _integer_inputs(model: Model) -> list[str]:
    g = model.graph
    out = []
    for n in g.inputs:
        t = g.tensor(n)
        if t.initial_value is not None or t.type is None or t.type.kind != "tensor" or t.type.elem_type == 0:
            continue
        if t.type.elem_type in (TensorProto.INT4, TensorProto.UINT4) or _kind(t.type.elem_type) in "iu":
            out.append(n)
    return out


def _kind(elem_type: int) -> str:
    try:
        return numpy_dtype(elem_type).kind
    except SonnxError:  # an element type with no NumPy form is not an integer input here
        return "?"


def _type_range(elem_type: int) -> tuple[int, int]:
    if elem_type == TensorProto.INT4:
        return -8, 7
    if elem_type == TensorProto.UINT4:
        return 0, 15
    info = np.iinfo(numpy_dtype(elem_type))
    return int(info.min), int(info.max)


class _Readers:
    """For each graph (made once, on first use): who reads each name, at which input position, and which
    operations hold a nested graph that captures it."""

    def __init__(self) -> None:
        self._by_graph: dict[int, tuple[dict[str, list[tuple[Operation, int]]], dict[str, list[Graph]]]] = {}

    def of(self, g: Graph) -> tuple[dict[str, list[tuple[Operation, int]]], dict[str, list[Graph]]]:
        found = self._by_graph.get(id(g))
        if found is None:
            reads: dict[str, list[tuple[Operation, int]]] = {}
            nested: dict[str, list[Graph]] = {}
            for op in g.operations:
                if op.domain:
                    continue
                for pos, n in enumerate(op.input_mapping):
                    if n:
                        reads.setdefault(n, []).append((op, pos))
                for _, sub in op.subgraphs:
                    for n in sub.captures - sub.defined_names:
                        nested.setdefault(n, []).append(sub)
            found = self._by_graph[id(g)] = (reads, nested)
        return found


def _ranges(model: Model, start: str, readers: _Readers) -> list[tuple[int, int, str]]:
    """Every range a consumer of ``start`` (through pass-through operations and nested graphs) gives."""
    opset = model.opset_imports.get("", 0)
    found: list[tuple[int, int, str]] = []
    work: list[tuple[tuple[Graph, ...], str]] = [((model.graph,), start)]
    seen: set[tuple[int, str]] = set()
    while work:
        chain, name = work.pop()
        g = chain[-1]
        if (id(g), name) in seen:
            continue
        seen.add((id(g), name))
        reads, nested = readers.of(g)
        for op, pos in reads.get(name, ()):
            rule = CONSUMERS.get((op.operator, pos))
            if rule is not None:
                got = _range_of(op, rule, chain, opset)
                if got is not None:
                    found.append(got)
            if pos == 0 and op.operator in PASS_THROUGH and op.output_mapping and op.output_mapping[0]:
                work.append((chain, op.output_mapping[0]))
        work.extend(((*chain, sub), name) for sub in nested.get(name, ()))
    return found


def input_domains(model: Model) -> dict[str, Domain]:
    """The domain of every integer graph input that some consumer bounds (see the module text)."""
    out: dict[str, Domain] = {}
    g = model.graph
    readers = _Readers()
    for name in _integer_inputs(model):
        ranges = _ranges(model, name, readers)
        if not ranges:
            continue
        t_low, t_high = _type_range(g.tensor(name).type.elem_type)  # type: ignore[union-attr]
        low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
        reasons = tuple(dict.fromkeys(r[2] for r in ranges))
        if low > high:
            narrow = min(ranges, key=lambda r: r[1] - r[0])
            low, high = narrow[0], narrow[1]
            reasons = (*reasons, f"no value satisfies every consumer; the narrowest range [{low}, {high}] is used")
        low, high = max(low, t_low), min(high, t_high)
        if low > high:
            continue
        out[name] = Domain(low, high, reasons)
    return out
