"""The model metadata sonnx reads: the required keys of the strict profile and the declared execution order.

Spec rule STRICT-METADATA (spec/graph.rst, section 4.1), from the working
group's REQ-FO-040 and REQ-FO-050. The keys are ONNX ``metadata_props``
entries of the model. :data:`DEFAULT_REQUIRED` is the default list, one key per
item the two requirements name:

* ``sonnx.io_semantics``: what the graph inputs and outputs mean
  (REQ-FO-040, first item; REQ-FO-050, "semantics of tensors");
* ``sonnx.dimension_semantics``: what the dimensions of those tensors mean
  (REQ-FO-040, second item);
* ``sonnx.execution_order``: the order in which the operations are to be
  executed (REQ-FO-050, first item), in the format below;
* ``sonnx.target``: the hardware the model is to be deployed on
  (REQ-FO-050, second item).

The declared execution order (key :data:`EXECUTION_ORDER`) is a JSON array of
strings, each the node name of one operation of the main graph, every
operation exactly once, in an order in which each operation is executable
when its turn comes (all the tensors it reads have values). :func:`declared_order`
reads it and says in one line what is wrong with a malformed one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .graph import Graph, Model

IO_SEMANTICS = "sonnx.io_semantics"
DIMENSION_SEMANTICS = "sonnx.dimension_semantics"
EXECUTION_ORDER = "sonnx.execution_order"
TARGET = "sonnx.target"

DEFAULT_REQUIRED: tuple[str, ...] = (IO_SEMANTICS, DIMENSION_SEMANTICS, EXECUTION_ORDER, TARGET)
"""The keys STRICT-METADATA requires when the run configures none (see the module text for their sources)."""

STANDARD_FIELDS = frozenset(("producer_name", "producer_version", "domain", "model_version", "doc_string"))
"""ModelProto fields the loader keeps in ``Model.metadata`` beside the ``metadata_props`` entries."""


class OrderError(ValueError):
    """A declared execution order that cannot be used; the message is one line."""


def metadata_prop(model: Model, key: str) -> str | None:
    """The value of the ``metadata_props`` entry ``key``, or None when the model has none.

    The loader keeps an entry named like a standard field (``producer_name``...)
    under ``metadata_props:<key>``, so that it does not hide the field.
    """
    stored = f"metadata_props:{key}" if key in STANDARD_FIELDS else key
    return model.metadata.get(stored)


def declared_order(model: Model) -> tuple[int, ...] | None:
    """The main graph's operations, by index, in the declared order; None when the model declares none.

    Raises :class:`OrderError` when the entry is present but malformed: not a
    JSON array of strings, a name that is no node name of the main graph or
    that names two operations, an operation left out or named twice, an
    operation without a name, or an operation that is not executable at its
    turn.
    """
    text = metadata_prop(model, EXECUTION_ORDER)
    if text is None:
        return None
    try:
        names = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OrderError(f"{EXECUTION_ORDER} is not JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise OrderError(f"{EXECUTION_ORDER} is nested too deeply to be a list of node names") from None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise OrderError(f"{EXECUTION_ORDER} must be a JSON array of node names (strings)")
    return order_of(model.graph, names)


def order_of(graph: Graph, names: list[str]) -> tuple[int, ...]:
    """Check ``names`` as a complete firing order of ``graph`` (see :func:`declared_order`); indices in order."""
    ops = graph.operations
    index: dict[str, int] = {}
    for j, op in enumerate(ops):
        if not op.name:
            raise OrderError(f"operation #{j} ({op.label}) has no name, so {EXECUTION_ORDER} cannot name it")
        if op.name in index:
            raise OrderError(f"node name {op.name!r} names two operations, so {EXECUTION_ORDER} is ambiguous")
        index[op.name] = j
    order: list[int] = []
    seen: set[int] = set()
    for n in names:
        if n not in index:
            raise OrderError(f"{EXECUTION_ORDER} names {n!r}, which is no operation of the main graph")
        if index[n] in seen:
            raise OrderError(f"{EXECUTION_ORDER} names {n!r} twice")
        seen.add(index[n])
        order.append(index[n])
    missing = [ops[j].name for j in range(len(ops)) if j not in seen]
    if missing:
        raise OrderError(f"{EXECUTION_ORDER} leaves out {len(missing)} operation(s): {', '.join(missing[:5])}")
    defined = set(graph.inputs) | set(graph.initialized) | set(graph.captures)
    for j in order:
        absent = [t for t in ops[j].required_inputs if t not in defined]
        if absent:
            raise OrderError(
                f"{EXECUTION_ORDER}: {ops[j].name!r} is not executable at its turn ({absent[0]!r} has no value yet)"
            )
        defined.update(o for o in ops[j].output_mapping if o)
    return tuple(order)


def required_keys(model: Model, keys: tuple[str, ...]) -> Mapping[str, str]:
    """Each key of ``keys`` the model lacks or leaves empty, with which of the two."""
    out: dict[str, str] = {}
    for k in keys:
        v = metadata_prop(model, k)
        if v is None:
            out[k] = "absent"
        elif not v.strip():
            out[k] = "empty"
    return out
