"""Immutable graph, tensor and operation types (spec vocabulary of SONNX V2).

The words follow the informal specification V2 (``spec/graph.rst``):

* a **graph** has designated *inputs* and *outputs*, a set of *tensors* and a
  set of *operations*;
* a **tensor** is a variable; it may hold a value before execution starts (an
  ONNX initializer) or be uninitialized;
* an **operation** applies an *operator* to tensors through an *input mapping*
  (operator input position -> tensor) and an *output mapping* (operator output
  position -> tensor), and carries the operator's *attributes*.

Control-flow operators carry nested graphs as attributes (``GRAPH`` and
``GRAPHS``). A nested graph may read tensors of the enclosing graphs by name
(lexical scoping); those names are its *captures*, and they are *implicit
inputs* of the operation that holds the nested graph (rule GRAPH-C3 and the
execution semantics both treat them as inputs).

``Operation`` and ``Tensor`` are ``NamedTuple`` classes: a model of a million
operations is built from them, and tuples are the cheapest immutable record
CPython has. Nothing here recurses on the nesting depth of graphs. The
records of a tensor's type and initial value are in :mod:`.tensors`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple

from .scopes import child_segments, scope_path
from .tensors import Dim as Dim
from .tensors import ExternalLocation as ExternalLocation
from .tensors import InitialValue as InitialValue
from .tensors import Tensor as Tensor
from .tensors import TensorType as TensorType


class Attribute(NamedTuple):
    """An attribute of an operation.

    ``type`` is the ONNX ``AttributeProto.AttributeType`` name (``INT``,
    ``FLOATS``, ``GRAPH``...). For ``GRAPH`` the value is a :class:`Graph`, for
    ``GRAPHS`` a tuple of graphs, for ``TENSOR`` an :class:`InitialValue`.
    """

    name: str
    type: str
    value: Any


class Operation(NamedTuple):
    """One application of an operator to tensors.

    ``input_mapping[k]`` is the tensor bound to the operator's k-th input and
    ``output_mapping[k]`` the tensor bound to its k-th output; the empty
    string marks an optional input or output that is left out (as in ONNX).
    ``name`` is the ONNX node name, possibly empty. ``domain`` spells the
    default domain ``""``, never ``"ai.onnx"``: the loader and
    :func:`make_operation` normalise it, so code compares with ``""`` alone.
    """

    operator: str
    domain: str
    name: str
    input_mapping: tuple[str, ...]
    output_mapping: tuple[str, ...]
    attributes: tuple[Attribute, ...] = ()

    def attribute(self, name: str) -> Attribute | None:
        """The attribute called ``name``, or None when it is not given."""
        for a in self.attributes:
            if a.name == name:
                return a
        return None

    @property
    def subgraphs(self) -> tuple[tuple[str, Graph], ...]:
        """The nested graphs held by this operation, as (attribute path, graph) pairs."""
        out: list[tuple[str, Graph]] = []
        for a in self.attributes:
            if a.type == "GRAPH":
                out.append((a.name, a.value))
            elif a.type == "GRAPHS":
                out.extend((f"{a.name}[{i}]", g) for i, g in enumerate(a.value))
        return tuple(out)

    @property
    def implicit_inputs(self) -> tuple[str, ...]:
        """Outer tensors read by the nested graphs of this operation (their captures), sorted."""
        if not self.attributes:
            return ()
        names: set[str] = set()
        for _, g in self.subgraphs:
            names.update(g.captures)
        return tuple(sorted(names))

    @property
    def required_inputs(self) -> tuple[str, ...]:
        """Every tensor that must have a value before the operation can fire.

        The non-empty entries of the input mapping, followed by the implicit
        inputs, without repetition.
        """
        seen: dict[str, None] = {}
        for n in self.input_mapping:
            if n:
                seen[n] = None
        for n in self.implicit_inputs:
            seen[n] = None
        return tuple(seen)

    @property
    def label(self) -> str:
        """How witnesses name the operation: its node name, else its first output (seed 003)."""
        first = next((o for o in self.output_mapping if o), "")
        shown = self.name or first or "<no output>"
        return f"{self.operator}:{shown}"


@dataclass(frozen=True, eq=False, repr=False)
class Graph:
    """A SONNX graph: designated inputs and outputs, declared tensors, operations.

    ``tensors`` holds one entry per *declared* tensor (graph inputs, graph
    outputs, value_info, initializers), with its type and initial value. The
    other tensors of the graph are those named only in operation mappings;
    :meth:`tensor` returns a bare :class:`Tensor` for them.

    ``redeclared`` lists names declared more than once in the same role by the
    source file (two initializers of one name, say), as (name, role) pairs; a
    mapping cannot hold them, and rule GRAPH-NAMES reports them.
    """

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    tensors: Mapping[str, Tensor]
    operations: tuple[Operation, ...]
    redeclared: tuple[tuple[str, str], ...] = ()
    metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __repr__(self) -> str:
        # Shallow on purpose: a nested graph's repr would recurse as deep as the nesting.
        return (
            f"Graph(name={self.name!r}, inputs={self.inputs!r}, outputs={self.outputs!r}, "
            f"operations=<{len(self.operations)}>)"
        )

    def tensor(self, name: str) -> Tensor:
        """The declared tensor ``name``, or an undeclared one with no type and no value."""
        t = self.tensors.get(name)
        return t if t is not None else Tensor(name)

    @property
    def initialized(self) -> tuple[str, ...]:
        """Names of the tensors that hold a value before execution (initializers), sorted."""
        return tuple(sorted(n for n, t in self.tensors.items() if t.initial_value is not None))

    @cached_property
    def defined_names(self) -> frozenset[str]:
        """Every name this graph defines: inputs, initializers and operation outputs."""
        names = set(self.inputs)
        names.update(n for n, t in self.tensors.items() if t.initial_value is not None)
        for op in self.operations:
            names.update(o for o in op.output_mapping if o)
        return frozenset(names)

    @property
    def captures(self) -> frozenset[str]:
        """Names this graph (or a graph nested in it) reads but does not define.

        They must come from an enclosing graph. Computed bottom-up without
        recursion, so a deep nesting of bodies costs no Python stack.
        """
        cached = self.__dict__.get("_captures")
        if cached is None:
            _fill_captures(self)
            cached = self.__dict__["_captures"]
        return cached

    def nested(self) -> Iterator[tuple[str, Graph]]:
        """This graph and every graph nested in it, with a scope path, in pre-order.

        The path names each level as ``<operation label>.<attribute>``;
        the top level is the graph's own name (see :func:`scope_path` for
        very deep nesting). Iterative: no recursion.
        """
        stack: list[tuple[tuple[str, ...], int, Graph]] = [((self.name or "main",), 0, self)]
        while stack:
            segments, depth, g = stack.pop()
            yield scope_path(segments, depth), g
            children: list[tuple[tuple[str, ...], int, Graph]] = []
            for op in g.operations:
                if op.attributes:
                    for attr, sub in op.subgraphs:
                        children.append((child_segments(segments, f"{op.label}.{attr}"), depth + 1, sub))
            stack.extend(reversed(children))


def names_used(graphs: Iterable[Graph]) -> set[str]:
    """Every tensor name that ``graphs`` declare or bind (inputs, outputs, tensors, operation mappings)."""
    names: set[str] = set()
    for g in graphs:
        names.update(g.inputs, g.outputs, g.tensors)
        for op in g.operations:
            names.update(op.input_mapping, op.output_mapping)
    names.discard("")
    return names


def _fill_captures(root: Graph) -> None:
    """Compute and cache ``captures`` of ``root`` and every graph below it, children first."""
    order: list[Graph] = []
    stack = [root]
    while stack:
        g = stack.pop()
        if "_captures" in g.__dict__:
            continue
        order.append(g)
        for op in g.operations:
            if op.attributes:
                stack.extend(sub for _, sub in op.subgraphs)
    for g in reversed(order):
        used: set[str] = set()
        for op in g.operations:
            used.update(n for n in op.input_mapping if n)
            if op.attributes:
                for _, sub in op.subgraphs:
                    used.update(sub.__dict__["_captures"])
        used.update(g.outputs)
        g.__dict__["_captures"] = frozenset(used - g.defined_names)


@dataclass(frozen=True, eq=False)
class Function:
    """A model-local function: an operator whose meaning is a graph (seed 001, function nodes).

    ``body`` uses the function's formal inputs and outputs as its graph
    inputs and outputs; ``attribute_names`` are the formal attributes the body
    may refer to.

    ``overload`` is the ONNX ``FunctionProto.overload`` (IR 10; empty when
    unused): two functions may share domain and name and differ by it.
    ``attribute_defaults`` are the formal attributes that have a default
    value (``FunctionProto.attribute_proto``).
    """

    domain: str
    name: str
    body: Graph
    attribute_names: tuple[str, ...] = ()
    opset_imports: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    overload: str = ""
    attribute_defaults: tuple[Attribute, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.domain, self.name)


class InlinedCall(NamedTuple):
    """Where a call of a model-local function was, once inlining replaced it by the function's body.

    ``function`` is the function's (domain, name, overload), the default
    domain spelled ``""``. ``call`` is the calling operation with the names it
    has in ``graph``, the inlined graph that holds the copy of the body: its
    actual inputs and outputs are tensors of that graph, and inside another
    function's body its attribute references are resolved as for the body's
    operations. The loader keeps one for each call of a function whose
    domain and name ONNX defines at some version (the rules decide which of
    them shadow a standard operator at the model's opset, GRAPH-R2 and
    GRAPH-DETERMINISM weigh the standard operator's meaning at each).
    """

    function: tuple[str, str, str]
    call: Operation
    graph: Graph


@dataclass(frozen=True, eq=False)
class Model:
    """A loaded ONNX model: its graph (functions already inlined) and what came with it.

    ``call_cycles`` holds each recursive chain of function calls found while
    inlining (rule GRAPH-FUNCTIONS); calls on such a chain are left in the
    graph as opaque operations. ``weights_loaded`` is False when the model was
    loaded for structure only. ``graph_as_written`` is the main graph as the
    file writes it, calls of model-local functions still in place, when
    inlining changed it (None otherwise): rules about the nodes the file
    writes (GRAPH-ARITY) read it through :attr:`written_graph`.
    ``inlined_calls`` records the inlined calls of functions named like a
    standard operator (:class:`InlinedCall`).
    """

    graph: Graph
    ir_version: int
    opset_imports: Mapping[str, int]
    functions: tuple[Function, ...] = ()
    call_cycles: tuple[tuple[str, ...], ...] = ()
    source: str = ""
    weights_loaded: bool = True
    metadata: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    graph_as_written: Graph | None = None
    inlined_calls: tuple[InlinedCall, ...] = ()

    @property
    def written_graph(self) -> Graph:
        """The main graph with the calls of model-local functions as the file writes them (``graph`` when the
        model has none, or when it was built in memory)."""
        return self.graph if self.graph_as_written is None else self.graph_as_written

    def __post_init__(self) -> None:
        # the default domain is spelled "" in opset_imports too (as the loader writes it)
        if "ai.onnx" in self.opset_imports:
            opsets = {("" if d == "ai.onnx" else d): v for d, v in self.opset_imports.items()}
            object.__setattr__(self, "opset_imports", MappingProxyType(opsets))


def freeze_mapping(d: Mapping[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a fresh copy of ``d``."""
    return MappingProxyType(dict(d))


def make_graph(
    name: str,
    inputs: tuple[str, ...] | list[str],
    outputs: tuple[str, ...] | list[str],
    operations: tuple[Operation, ...] | list[Operation],
    tensors: Mapping[str, Tensor] | None = None,
    redeclared: tuple[tuple[str, str], ...] = (),
) -> Graph:
    """Build a :class:`Graph` from plain sequences (tests, rewrites, examples)."""
    return Graph(
        name=name,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        tensors=freeze_mapping(tensors or {}),
        operations=tuple(operations),
        redeclared=redeclared,
    )


def make_operation(
    operator: str,
    inputs: tuple[str, ...] | list[str],
    outputs: tuple[str, ...] | list[str],
    name: str = "",
    domain: str = "",
    **attributes: Any,
) -> Operation:
    """Build an :class:`Operation`; keyword attributes are typed by their Python value.

    A :class:`Graph` value becomes a ``GRAPH`` attribute, a tuple of graphs
    ``GRAPHS``, an ``int`` ``INT``, a ``float`` ``FLOAT``, a ``str`` ``STRING``.
    """
    attrs = []
    for key in sorted(attributes):
        v = attributes[key]
        if isinstance(v, Graph):
            t = "GRAPH"
        elif isinstance(v, tuple) and v and all(isinstance(x, Graph) for x in v):
            t = "GRAPHS"
        elif isinstance(v, bool) or isinstance(v, int):
            t, v = "INT", int(v)
        elif isinstance(v, float):
            t = "FLOAT"
        elif isinstance(v, str):
            t = "STRING"
        elif isinstance(v, (list, tuple)) and all(isinstance(x, int) for x in v):
            t, v = "INTS", tuple(v)
        elif isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
            t, v = "FLOATS", tuple(float(x) for x in v)
        else:
            raise TypeError(f"attribute {key!r}: cannot infer an ONNX attribute type for {type(v).__name__}")
        attrs.append(Attribute(key, t, v))
    domain = "" if domain == "ai.onnx" else domain
    return Operation(operator, domain, name, tuple(inputs), tuple(outputs), tuple(attrs))
