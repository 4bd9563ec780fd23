"""Conversion of (shallow) ONNX graphs and function bodies to :class:`sonnx.model.Graph`.

The conversion is bottom-up on an explicit stack: when a graph is reached,
its nodes are converted at once, each nested graph in their attributes
becoming an empty :class:`Graph` shell whose bytes are pushed as a pending
child; a graph's own shell is filled after all of its children. Each level's
protobuf message is dropped as soon as the level is converted, so only the
bytes of the graphs still pending stay in memory. No function here recurses:
the nesting depth of ``If``/``Loop``/``Scan`` bodies costs heap, not Python
stack.

The node loop is the hot path of loading a large model: one list
comprehension, positional construction of the ``Operation`` tuple through
``tuple.__new__``, and attribute conversion only for nodes that have
attributes. Tensor and node names are not interned (almost every one is
distinct, and a table of them costs more time than it saves memory); the
operator and domain strings are shared through :attr:`GraphConverter.words`,
so that a million ``Add`` nodes hold one string, whose hash is computed once
for every rule that looks operators up by (domain, operator).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from google.protobuf.message import DecodeError

from ..base.errors import ModelFormatError, SonnxError
from ..model.graph import Attribute, Graph, InitialValue, Operation, Tensor, TensorType
from .attributes import AttributeConverter, PendingChild, fill_shell, graph_shell
from .detach import Span
from .irfields import IrGate
from .proto import GraphProto, decode_detail
from .types import TypeCache, convert_type
from .values import ValueFactory

_new_tuple = tuple.__new__


class _Exit(NamedTuple):
    """Stack marker: every child of ``frame`` is built; complete it into ``shell``."""

    frame: _Frame
    shell: Graph


class _Frame:
    """A graph being built: everything but the nested graphs, which arrive later."""

    __slots__ = ("inputs", "name", "ops", "outputs", "redeclared", "tensors")

    def __init__(self) -> None:
        self.name = ""
        self.inputs: tuple[str, ...] = ()
        self.outputs: tuple[str, ...] = ()
        self.tensors: dict[str, Tensor] = {}
        self.ops: list[Operation] = []
        self.redeclared: dict[tuple[str, str], None] = {}


def _derived_type(iv: InitialValue) -> TensorType:
    """The type an initializer gives its tensor when nothing else declares one."""
    return TensorType("sparse_tensor" if iv.sparse else "tensor", iv.data_type, iv.dims)


class GraphConverter:
    """Converts the graphs of one model file.

    ``ir_version`` decides how initializers listed as graph inputs are read
    (IR < 4: they are not inputs). ``calls`` holds the (domain, name) of the
    model-local functions: for the operations that match one, the node's
    ``overload`` field (part of the function's identity) is recorded in
    :attr:`overloads` as ``{id(graph): {operation index: overload}}``, non-empty
    ones only. The ``Operation`` type has no room for it, and reading it for
    every node would cost time on large graphs.
    """

    def __init__(
        self,
        model_path: str,
        ir_version: int,
        values: ValueFactory,
        calls: set[tuple[str, str]] | None = None,
    ) -> None:
        self.model_path = model_path
        self.ir_version = ir_version
        self.values = values
        self.attributes = AttributeConverter(model_path, values)
        self.calls = calls or set()
        self.call_names = {name for _, name in self.calls}
        self.overloads: dict[int, dict[int, str]] = {}
        self.types = TypeCache()
        self.words: dict[str, str] = {}
        """One string object per distinct operator and domain spelling of the file."""
        self._frame_overloads: dict[int, dict[int, str]] = {}
        self.gate = IrGate(ir_version, model_path)

    # -- public entry points -------------------------------------------------

    def convert_graph(
        self, msg: Any, raw: Sequence[Span | None] = (), node_runs: Iterable[Any] | None = None
    ) -> Graph:
        """The :class:`Graph` of a shallow ``GraphProto`` and of everything nested in it.

        ``raw[k]``, when given, is where the ``raw_data`` the loader cut out of
        the ``k``-th initializer of ``msg`` lies in the file (see :mod:`.detach`).
        ``node_runs``, when given, yields the graph's nodes run after run (the
        loader cut them out of ``msg``): each run is converted before the next
        is asked for, so that only one run's parsed messages are alive at once.
        """
        children: list[PendingChild] = []
        frame = self._start_graph(msg, False, children, raw, node_runs)
        return self._drive(frame, children)

    def convert_function(self, fp: Any) -> tuple[Graph, tuple[Attribute, ...]]:
        """The body of a shallow ``FunctionProto`` as a graph, and its attribute defaults.

        The body's inputs and outputs are the formal ones; its declared tensors
        are the function's ``value_info``.
        """
        children: list[PendingChild] = []
        frame = _Frame()
        frame.name = fp.name
        where = f"function {fp.domain}.{fp.name}"
        self.gate.function(fp)
        frame.inputs = self._names(list(fp.input), "input", frame)
        frame.outputs = self._names(list(fp.output), "output", frame)
        types: dict[str, TensorType | None] = {}
        self._declare(fp.value_info, "value_info", frame, types)
        frame.tensors = {nm: Tensor(nm, ty, None) for nm, ty in types.items()}
        defaults = self.attributes.convert(fp.attribute_proto, children, False, where + " defaults")
        self._convert_nodes((fp.node,), True, children, frame, where)
        body = self._drive(frame, children)
        return body, defaults

    # -- the explicit-stack driver -------------------------------------------

    def _drive(self, root: _Frame, children: list[PendingChild]) -> Graph:
        result = graph_shell()
        stack: list[Any] = [_Exit(root, result)]
        stack.extend(reversed(children))
        while stack:
            item = stack.pop()
            if isinstance(item, _Exit):
                self._finish(item.frame, item.shell)
                continue
            child: PendingChild = item
            try:
                msg = GraphProto.FromString(child.data)
            except DecodeError as e:
                raise ModelFormatError(
                    f"{self.model_path}: {child.where}: nested graph cannot be parsed: {decode_detail(e)}"
                ) from None
            grandchildren: list[PendingChild] = []
            frame = self._start_graph(msg, child.in_function, grandchildren)
            del msg
            stack.append(_Exit(frame, child.shell))
            stack.extend(reversed(grandchildren))
        return result

    def _finish(self, frame: _Frame, shell: Graph) -> None:
        """Complete ``shell`` with ``frame``: every graph nested in it is complete by now."""
        graph = Graph(
            frame.name,
            frame.inputs,
            frame.outputs,
            MappingProxyType(frame.tensors),
            tuple(frame.ops),
            tuple(frame.redeclared),
        )
        fill_shell(shell, graph)
        table = self._frame_overloads.pop(id(frame), None)
        if table:
            self.overloads[id(shell)] = table

    # -- one graph level -----------------------------------------------------

    def _names(self, names: list[str], role: str, frame: _Frame) -> tuple[str, ...]:
        seen: set[str] = set()
        for nm in names:
            if nm in seen:
                frame.redeclared[(nm, role)] = None
            seen.add(nm)
        return tuple(names)

    def _declare(
        self, infos: Any, role: str, frame: _Frame, types: dict[str, TensorType | None]
    ) -> list[str]:
        """Record the names and types of ``ValueInfoProto`` entries; the first declared type wins."""
        names: list[str] = []
        append = names.append
        seen: set[str] = set()
        known = self.types.known
        for vi in infos:
            nm = vi.name
            append(nm)
            if nm in seen:
                frame.redeclared[(nm, role)] = None
            else:
                seen.add(nm)
            if types.get(nm) is None:
                # An absent type serializes to b"" like an empty one; both mean "unknown".
                tp = vi.type
                key = tp.SerializeToString()
                ty = known.get(key, known)
                if ty is known:
                    ty = known[key] = convert_type(tp)
                types[nm] = ty  # type: ignore[assignment]
        return names

    def _start_graph(
        self,
        msg: Any,
        in_function: bool,
        children: list[PendingChild],
        raw: Sequence[Span | None] = (),
        node_runs: Iterable[Any] | None = None,
    ) -> _Frame:
        """Convert one graph level; push the bytes of its nested graphs onto ``children``."""
        frame = _Frame()
        frame.name = msg.name
        self.gate.graph(msg, f"graph {msg.name!r}")
        types: dict[str, TensorType | None] = {}
        inputs = self._declare(msg.input, "input", frame, types)
        frame.outputs = tuple(self._declare(msg.output, "output", frame, types))
        self._declare(msg.value_info, "value_info", frame, types)

        values: dict[str, InitialValue] = {}
        for k, t in enumerate(msg.initializer):
            nm = t.name
            if nm in values:
                frame.redeclared[(nm, "initializer")] = None
                continue
            values[nm] = self.values.dense(t, nm, raw[k] if raw else None)
        for s in msg.sparse_initializer:
            nm = s.values.name
            if nm in values:
                frame.redeclared[(nm, "initializer")] = None
                continue
            values[nm] = self.values.sparse(s, nm)

        if self.ir_version < 4 and values:
            # Before IR 4 every initializer was also listed as a graph input;
            # such an entry declares the initializer, it is not a model input.
            inputs = [nm for nm in inputs if nm not in values]
        frame.inputs = tuple(inputs)

        tensors: dict[str, Tensor] = {}
        for nm, ty in types.items():
            iv = values.get(nm)
            if ty is None and iv is not None:
                ty = _derived_type(iv)
            tensors[nm] = Tensor(nm, ty, iv)
        for nm, iv in values.items():
            if nm not in tensors:
                tensors[nm] = Tensor(nm, _derived_type(iv), iv)
        frame.tensors = tensors
        runs = (msg.node,) if node_runs is None else node_runs
        self._convert_nodes(runs, in_function, children, frame, f"graph {msg.name!r}")
        return frame

    def _convert_nodes(
        self, runs: Iterable[Any], in_function: bool, children: list[PendingChild], frame: _Frame, where: str
    ) -> None:
        """Convert the nodes of ``runs`` (repeated ``NodeProto`` fields, in order) into ``frame.ops``.

        Every node is looked at by the IR gate before any is converted: when
        a run fails to convert, the later runs still go through the gate,
        whose refusal is then the error (as it is for a graph read whole).
        """
        frame.ops = []
        pending = iter(runs)
        for nodes in pending:
            self.gate.nodes(nodes, where)
            try:
                self._convert_run(nodes, in_function, children, frame, where)
            except SonnxError:
                for later in pending:
                    self.gate.nodes(later, where)
                raise

    def _convert_run(
        self, nodes: Any, in_function: bool, children: list[PendingChild], frame: _Frame, where: str
    ) -> None:
        convert = self.attributes.convert
        shared = self.words.setdefault
        base = len(frame.ops)

        def attrs(n: Any) -> tuple[Attribute, ...]:
            label = f"{where} node {n.name!r}" if n.name else f"{where} unnamed {n.op_type} node"
            return convert(n.attribute, children, in_function, label)

        ops = [
            _new_tuple(
                Operation,
                (
                    shared(o := n.op_type, o),
                    shared(d, d) if (d := n.domain) != "ai.onnx" else "",
                    n.name,
                    tuple(n.input[:]),
                    tuple(n.output[:]),
                    attrs(n) if n.attribute else (),
                ),
            )
            for n in nodes
        ]
        frame.ops.extend(ops)
        if self.calls:
            # Read the overload of the operations that may call a local function only.
            calls, names = self.calls, self.call_names
            table = self._frame_overloads.get(id(frame), {})
            for i in [i for i, op in enumerate(ops) if op[0] in names]:
                op = ops[i]
                if (op[1], op[0]) in calls:
                    overload = nodes[i].overload
                    if overload:
                        table[base + i] = overload
            if table:
                self._frame_overloads[id(frame)] = table
