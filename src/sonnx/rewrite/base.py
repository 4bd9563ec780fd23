"""Pass infrastructure: a pass is a precondition, a transformation and a postcondition.

Every pass of :mod:`sonnx.rewrite` looks at one operation of the main graph
at a time. :meth:`Pass.requires` states, for that operation, the condition
under which the soundness theorem of the pass (``proofs/rewrite_*.py``)
holds; it returns None when the condition holds and the reason otherwise.
:meth:`Pass.transform` builds a new, immutable :class:`Model` (the input is
never changed). The postcondition is checked by :func:`ensures`, the same for
every pass: the graph keeps its input and output names, and every rule of
``sonnx-check`` that held before the rewrite still holds after it (so no
dangling input, dead operation or broken single assignment is left behind).

Only the main graph is rewritten; nested graphs (If/Loop/Scan bodies) are
kept as they are, and a tensor they read by name is never renamed or
removed (that is part of every pass's precondition).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import SonnxError, ToolError
from ..base.verdict import Status
from ..loader.derived import IN_MEMORY
from ..model.graph import Graph, InitialValue, Model, Operation, Tensor, TensorType, freeze_mapping, names_used
from ..rules import CheckConfig, run_rules


class RewriteError(SonnxError):
    """A rewrite cannot be done as asked (unknown pass, unusable model)."""


class PostconditionError(ToolError):
    """A pass produced a model that breaks its postcondition: a defect of the pass, never written."""


@dataclass(frozen=True)
class Application:
    """One application of a pass to one operation."""

    pass_name: str
    operation: str
    detail: str


@dataclass(frozen=True)
class Refusal:
    """An operation a pass considered and left alone, with the precondition that failed."""

    pass_name: str
    operation: str
    reason: str


class Pass(ABC):
    """A rewrite pass: ``operators`` it looks at, ``requires``, ``transform``; ``ensures`` is shared.

    ``theorem`` names the proof module (``proofs/<theorem>.py``) whose
    statement is the soundness claim of the pass under ``requires``.
    """

    name: str = ""
    title: str = ""
    operators: tuple[str, ...] = ()
    theorem: str = ""

    def __init_subclass__(
        cls, name: str = "", title: str = "", operators: tuple[str, ...] = (), theorem: str = "", **kw: Any
    ) -> None:
        """A concrete pass states who it is in its class line: ``class P(Pass, name=..., title=..., ...)``."""
        super().__init_subclass__(**kw)
        if name:
            cls.name, cls.title, cls.operators, cls.theorem = name, title, operators, theorem

    @abstractmethod
    def requires(self, model: Model, op: Operation) -> str | None:
        """None when the pass may rewrite ``op`` in ``model``, else why not (one line)."""

    @abstractmethod
    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        """The rewritten model and a one-line description; only called when ``requires`` holds."""


def standard_form(op: Operation, outputs: str | None = "one output", first_input: str | None = None) -> str | None:
    """Why ``op`` is not the standard-domain operator a pass expects (None when it is).

    ``outputs="one output"``: exactly one output, bound; ``"a data output"``:
    the first output bound; None: the domain alone is checked. With
    ``first_input`` (its name in the reason), the first input must be bound too.
    """
    if op.domain:
        return f"not a standard {op.operator}" + (f" with {outputs}" if outputs else "")
    bound = bool(op.output_mapping) and bool(op.output_mapping[0])
    if outputs == "one output" and (len(op.output_mapping) != 1 or not bound):
        return f"not a standard {op.operator} with one output"
    if outputs == "a data output" and not bound:
        return f"not a standard {op.operator} with a data output"
    if first_input is not None and not (op.input_mapping and op.input_mapping[0]):
        return f"{op.operator} without its {first_input}"
    return None


class BypassPass(Pass):
    """A pass that removes an operation by wiring its first output to its first input's tensor.

    Subclasses state their own precondition in :meth:`precondition`; the
    bypass itself (which refuses, for instance, to leave a graph input unread)
    is the last condition of :meth:`requires` and the whole transformation.
    """

    @abstractmethod
    def precondition(self, model: Model, op: Operation) -> str | None:
        """The pass's own condition, checked before the bypass (None when it holds)."""

    def requires(self, model: Model, op: Operation) -> str | None:
        why = self.precondition(model, op)
        if why is not None:
            return why
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        return result if isinstance(result, str) else None

    def transform(self, model: Model, op: Operation) -> tuple[Model, str]:
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        assert not isinstance(result, str)
        return result


# ----------------------------------------------------------------------------------------- graph helpers


def ai_onnx_opset(model: Model) -> int:
    """The imported version of the default ONNX domain (0 when none is imported)."""
    return int(model.opset_imports.get("", 0))


def captured_names(g: Graph) -> frozenset[str]:
    """Names of the main graph read by a nested graph (renaming or removing them would break it)."""
    names: set[str] = set()
    for op in g.operations:
        if op.attributes:
            names.update(op.implicit_inputs)
    return frozenset(names)


def readers(g: Graph, name: str) -> list[tuple[int, int]]:
    """(operation index, input position) of every read of ``name`` in the main graph's mappings."""
    out = []
    for i, op in enumerate(g.operations):
        for k, n in enumerate(op.input_mapping):
            if n == name:
                out.append((i, k))
    return out


def producer(g: Graph, name: str) -> int | None:
    """Index of the operation that writes ``name``, or None."""
    for i, op in enumerate(g.operations):
        if name in op.output_mapping:
            return i
    return None


def constant_array(g: Graph, name: str) -> np.ndarray | None:
    """The value of ``name`` when it is an initializer that is not also a graph input, else None.

    An initializer listed as a graph input is only a default: the caller may
    feed another value, so it is not a constant.
    """
    if not name or name in g.inputs:
        return None
    t = g.tensors.get(name)
    if t is None or t.initial_value is None:
        return None
    value = t.initial_value.read()
    return np.asarray(value) if isinstance(value, np.ndarray) else None


def static_shape(g: Graph, name: str) -> tuple[int, ...] | None:
    """The declared shape of ``name`` when every dimension is a fixed size, else None."""
    t = g.tensors.get(name)
    if t is None:
        return None
    if t.initial_value is not None:
        return tuple(int(d) for d in t.initial_value.dims)
    ty = t.type
    if ty is None or ty.kind != "tensor" or ty.shape is None:
        return None
    if not all(isinstance(d, int) and d >= 0 for d in ty.shape):
        return None
    return tuple(int(d) for d in ty.shape)  # type: ignore[arg-type]


def declared_elem_type(g: Graph, name: str) -> int:
    t = g.tensors.get(name)
    if t is None:
        return 0
    if t.initial_value is not None:
        return int(t.initial_value.data_type)
    return int(t.type.elem_type) if t.type is not None else 0


def all_names(g: Graph) -> set[str]:
    """Every name used anywhere in ``g`` and its nested graphs (to pick fresh names)."""
    return names_used(sub for _, sub in g.nested())


def fresh_name(g: Graph, base: str) -> str:
    taken = all_names(g)
    if base not in taken:
        return base
    k = 1
    while f"{base}_{k}" in taken:
        k += 1
    return f"{base}_{k}"


def array_value(arr: np.ndarray, data_type: int) -> InitialValue:
    """An :class:`InitialValue` holding ``arr`` (a private read-only copy)."""
    frozen = np.array(arr, copy=True)
    frozen.flags.writeable = False

    def reader() -> Any:
        return frozen

    return InitialValue(data_type, tuple(int(d) for d in frozen.shape), False, None, reader)


def with_graph(model: Model, graph: Graph) -> Model:
    """``model`` with ``graph`` as its graph; the graph as the file wrote it no longer describes it, so it goes."""
    return dataclasses.replace(model, graph=graph, graph_as_written=None)


def rebuild(
    g: Graph,
    operations: Iterable[Operation],
    tensors: Mapping[str, Tensor] | None = None,
    outputs: tuple[str, ...] | None = None,
) -> Graph:
    """A copy of ``g`` with new operations (and optionally declared tensors and outputs)."""
    return dataclasses.replace(
        g,
        operations=tuple(operations),
        tensors=freeze_mapping(tensors if tensors is not None else g.tensors),
        outputs=g.outputs if outputs is None else outputs,
    )


def rename_reads(op: Operation, old: str, new: str) -> Operation:
    if old not in op.input_mapping:
        return op
    return op._replace(input_mapping=tuple(new if n == old else n for n in op.input_mapping))


def prune(g: Graph) -> Graph:
    """Remove what a rewrite left unused: operations whose outputs nobody reads, then unread initializers.

    An operation is dead when none of its outputs is read by an operation,
    a nested graph or the graph outputs. Graph inputs are never removed.
    """
    ops = list(g.operations)
    while True:
        used: set[str] = set(g.outputs)
        for op in ops:
            used.update(op.required_inputs)
        keep = [op for op in ops if any(o and o in used for o in op.output_mapping)]
        if len(keep) == len(ops):
            break
        ops = keep
    used = set(g.outputs)
    for op in ops:
        used.update(op.required_inputs)
    tensors: dict[str, Tensor] = {}
    defined = {o for op in ops for o in op.output_mapping if o}
    for name, t in g.tensors.items():
        if name in g.inputs or name in g.outputs or name in used:
            tensors[name] = t
        elif t.initial_value is None and name in defined:
            tensors[name] = t  # value_info of a live, unread output (GRAPH-R1-OUTPUTS warns about it)
    return rebuild(g, ops, tensors)


def bypass(model: Model, op: Operation, source: str, target: str) -> tuple[Model, str] | str:
    """Remove ``op``, whose output ``target`` equals its input ``source``, rewiring the readers.

    Readers of ``target`` read ``source`` instead. When ``target`` is a graph
    output (whose name must stay), the producer of ``source`` writes
    ``target`` directly instead. Returns the new model and a description, or
    the reason the rewiring is impossible.
    """
    g = model.graph
    captured = captured_names(g)
    if target in captured:
        return f"{target!r} is read by a nested graph"
    ops = [o for o in g.operations if o is not op]
    tensors = dict(g.tensors)
    if target not in g.outputs:
        ops = [rename_reads(o, target, source) for o in ops]
        tensors.pop(target, None)
        return with_graph(model, prune(rebuild(g, ops, tensors))), f"readers of {target!r} now read {source!r}"
    if source in g.outputs:
        return f"both {source!r} and {target!r} are graph outputs; one name would have to carry both"
    if source in g.inputs or (source in g.tensors and g.tensors[source].initial_value is not None):
        return f"graph output {target!r} would become a copy of graph input or initializer {source!r}"
    if source in captured:
        return f"{source!r} is read by a nested graph and cannot be renamed"
    if producer(g, source) is None:
        return f"{source!r} has no producer in the main graph"
    renamed = []
    for o in ops:
        o = rename_reads(o, source, target)
        if source in o.output_mapping:
            o = o._replace(output_mapping=tuple(target if n == source else n for n in o.output_mapping))
        renamed.append(o)
    declared = tensors.pop(source, None)
    if target not in tensors and declared is not None:
        tensors[target] = declared._replace(name=target)
    new = with_graph(model, prune(rebuild(g, renamed, tensors)))
    return new, f"the producer of {source!r} now writes graph output {target!r}"


def tensor_type_of(arr: np.ndarray, data_type: int) -> TensorType:
    return TensorType("tensor", data_type, tuple(int(d) for d in arr.shape))


# ------------------------------------------------------------------------------------------ postcondition


RULES_CONFIG = CheckConfig(derived_types=IN_MEMORY)
"""The rules as a rewrite runs them: the default SONNX profile, and a candidate held by no file read as the bytes
it would be written as (GRAPH-IF-BRANCHES derives the types of those bytes, spec 9.4)."""


def rule_statuses(model: Model) -> dict[str, Status]:
    """The status of every graph rule of the default SONNX profile (direct engine) on ``model`` (FORMAT-ONNX, a
    rule about the file, is left out: a rewritten model in memory has no file yet)."""
    return {v.rule_id: v.status for v in run_rules(model, RULES_CONFIG, graph_only=True)}


def ensures(before: Model, before_status: Mapping[str, Status], after: Model, pass_name: str) -> dict[str, Status]:
    """Check the shared postcondition; return the rule statuses of ``after``.

    Raises :class:`PostconditionError` when the graph's input or output names
    changed or a rule that held before is no longer PROVED.
    """
    if after.graph.outputs != before.graph.outputs:
        raise PostconditionError(
            f"pass {pass_name} changed the graph outputs {list(before.graph.outputs)} to {list(after.graph.outputs)}"
        )
    if after.graph.inputs != before.graph.inputs:
        raise PostconditionError(f"pass {pass_name} changed the graph inputs")
    # a candidate is a pass's new model, never its file's: the rules read the bytes it is written as at once
    status = rule_statuses(dataclasses.replace(after, source=""))
    broken = sorted(
        rid for rid, st in before_status.items() if st is Status.PROVED and status.get(rid) is not Status.PROVED
    )
    if broken:
        raise PostconditionError(f"pass {pass_name} broke rule(s) {', '.join(broken)} (a defect of the pass)")
    return status
