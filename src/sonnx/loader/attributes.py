"""Conversion of ONNX ``AttributeProto`` lists to :class:`sonnx.model.Attribute` tuples.

Nested graphs (``GRAPH`` / ``GRAPHS``) are not decoded here: their bytes are
handed to the caller as *pending children*, and the attribute value is an
empty :class:`Graph` *shell* that the graph converter fills in place once the
child is built (bottom-up, on an explicit stack; see :mod:`.convert`). The
operation that holds the attribute is therefore final as soon as it is made,
and no shell escapes the loader unfilled.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..base.errors import ModelFormatError
from ..model.graph import Attribute, Graph
from .proto import ATTRIBUTE_TYPE_NAMES
from .types import convert_type
from .values import ValueFactory

UNDEFINED, FLOAT, INT, STRING, TENSOR, GRAPH = 0, 1, 2, 3, 4, 5
FLOATS, INTS, STRINGS, TENSORS, GRAPHS = 6, 7, 8, 9, 10
SPARSE_TENSOR, SPARSE_TENSORS, TYPE_PROTO, TYPE_PROTOS = 11, 12, 13, 14

_SINGULAR = (("f", FLOAT), ("i", INT), ("s", STRING), ("t", TENSOR), ("g", GRAPH), ("sparse_tensor", SPARSE_TENSOR),
             ("tp", TYPE_PROTO))
_REPEATED = (("floats", FLOATS), ("ints", INTS), ("strings", STRINGS), ("tensors", TENSORS), ("graphs", GRAPHS),
             ("sparse_tensors", SPARSE_TENSORS), ("type_protos", TYPE_PROTOS))


REF = "REF"
"""Type name of an attribute that refers to a formal attribute of the enclosing function."""


class AttributeRef(NamedTuple):
    """The value of an attribute inside a function body that refers to a formal attribute of the function.

    ONNX spells it ``ref_attr_name``. Such an attribute is stored as
    ``Attribute(name, "REF", AttributeRef(formal_name, declared_type))``: the
    type is not an ONNX type name on purpose, so that code walking nested
    graphs (``Operation.subgraphs``) never mistakes a reference to a ``GRAPH``
    attribute for a graph. References appear only in the bodies kept in
    :attr:`sonnx.model.Model.functions`; inlining replaces each by the calling
    node's attribute (or the function's default), or drops the attribute when
    neither gives one, as ONNX does.
    """

    name: str
    type: str


class PendingChild(NamedTuple):
    """A nested graph still to decode: its bytes and the empty :class:`Graph` to fill with it."""

    data: bytes
    shell: Graph
    in_function: bool
    where: str


def graph_shell() -> Graph:
    """An empty, field-less :class:`Graph`, filled by :func:`fill_shell` before anyone sees it."""
    return Graph.__new__(Graph)


def fill_shell(shell: Graph, graph: Graph) -> None:
    """Give ``shell`` the fields of ``graph`` (the frozen dataclass is bypassed once, during loading)."""
    shell.__dict__.update(graph.__dict__)


def _decode_text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


class AttributeConverter:
    """Converts the attributes of one node; shares the model's :class:`ValueFactory`."""

    def __init__(self, model_path: str, values: ValueFactory) -> None:
        self.model_path = model_path
        self.values = values

    def _fail(self, where: str, detail: str) -> ModelFormatError:
        return ModelFormatError(f"{self.model_path}: {where}: {detail}")

    def infer_type(self, a: Any, where: str) -> int:
        """The type of an attribute whose ``type`` is UNDEFINED (old files), from the field that is set.

        Returns UNDEFINED when no value field is set (an empty list cannot be
        typed); two set fields are contradictory and rejected.
        """
        found = [num for fname, num in _SINGULAR if a.HasField(fname)]
        found += [num for fname, num in _REPEATED if len(getattr(a, fname))]
        if len(found) > 1:
            names = ", ".join(ATTRIBUTE_TYPE_NAMES[n] for n in found)
            raise self._fail(where, f"attribute {a.name!r} has no type and sets several values ({names})")
        return found[0] if found else UNDEFINED

    def convert(
        self, attrs: Any, children: list[PendingChild], in_function: bool, where: str
    ) -> tuple[Attribute, ...]:
        """The attributes in file order; nested graphs are shells, their bytes appended to ``children``.

        ``where`` names the node in messages. ``in_function`` allows
        ``ref_attr_name`` (only meaningful inside a function body).
        """
        out: list[Attribute] = []
        for a in attrs:
            name = a.name
            t = int(a.type)
            if t == UNDEFINED:
                t = self.infer_type(a, where)
            type_name = ATTRIBUTE_TYPE_NAMES.get(t)
            if type_name is None:
                raise self._fail(where, f"attribute {name!r} has unknown type number {t}")
            ref = a.ref_attr_name
            if ref:
                if not in_function:
                    raise self._fail(where, f"attribute {name!r} refers to {ref!r} outside a function body")
                out.append(Attribute(name, REF, AttributeRef(ref, type_name)))
                continue
            label = f"{where} attribute {name!r}"
            value: Any
            if t == FLOAT:
                value = float(a.f)
            elif t == INT:
                value = int(a.i)
            elif t == STRING:
                value = _decode_text(a.s)
            elif t == INTS:
                value = tuple(a.ints)
            elif t == FLOATS:
                value = tuple(a.floats)
            elif t == STRINGS:
                value = tuple(_decode_text(s) for s in a.strings)
            elif t == TENSOR:
                value = self.values.dense(a.t, label)
            elif t == GRAPH:
                value = graph_shell()
                children.append(PendingChild(a.g, value, in_function, label))
            elif t == GRAPHS:
                shells = []
                for k, blob in enumerate(a.graphs):
                    shell = graph_shell()
                    children.append(PendingChild(blob, shell, in_function, f"{label}[{k}]"))
                    shells.append(shell)
                value = tuple(shells)
            elif t == TENSORS:
                value = tuple(self.values.dense(x, f"{label}[{k}]") for k, x in enumerate(a.tensors))
            elif t == SPARSE_TENSOR:
                value = self.values.sparse(a.sparse_tensor, label)
            elif t == SPARSE_TENSORS:
                value = tuple(self.values.sparse(x, f"{label}[{k}]") for k, x in enumerate(a.sparse_tensors))
            elif t == TYPE_PROTO:
                value = convert_type(a.tp)
            elif t == TYPE_PROTOS:
                value = tuple(convert_type(x) for x in a.type_protos)
            else:  # UNDEFINED with no value set
                value = None
            out.append(Attribute(name, type_name, value))
        return tuple(out)


def normalise_domain(domain: str) -> str:
    """``ai.onnx`` and the empty string name the same default domain; use the empty string."""
    return "" if domain == "ai.onnx" else domain


def bind_references(
    attrs: tuple[Attribute, ...], bindings: dict[str, Attribute], new: dict[int, Graph], keep: bool = False
) -> tuple[Any, ...]:
    """Attributes of an operation copied out of a function body (inlining): references resolved from
    ``bindings`` (the call's attributes, then the function's defaults), nested graphs replaced by their copies.

    With ``keep`` (a recorded call, which is no longer in the graph), a nested graph without a copy stays.
    """
    out: list[Attribute] = []
    for a in attrs:
        if a.type == REF:
            bound = bindings.get(a.value.name)
            if bound is None:
                continue  # neither the call nor a default gives it: the attribute is absent
            out.append(Attribute(a.name, bound.type, bound.value))
        elif a.type == "GRAPH" and isinstance(a.value, Graph):
            out.append(Attribute(a.name, a.type, new.get(id(a.value), a.value) if keep else new[id(a.value)]))
        elif a.type == "GRAPHS":
            out.append(Attribute(a.name, a.type, tuple(new.get(id(x), x) if keep else new[id(x)] for x in a.value)))
        else:
            out.append(a)
    return tuple(out)
