"""GRAPH-R2: every operator of the model is deterministic.

Seed statement (informal specification V2, final restriction list, R2): a
graph shall only contain deterministic operators.

The decision is made per operation with the table of :mod:`.determinism`
(random generators, Dropout in training mode, TopK with unsorted results),
using the schema version that the model's opset selects. Some entries depend
on the operation: Dropout 1 and 6 on the ``is_test`` attribute; Dropout 12 and
later on its ``training_mode`` input, which counts as false only when it is
omitted, or is an initializer that is not also a graph input, or the output
of a ``Constant`` whose value is false (in this graph or an enclosing one); a
graph input or a computed value may be true. When the value would have to be
read from an initializer of a model loaded without its weights, that
operation's determinism is unknown. The data's dimensions (to place a negative
scatter index) and ``CastLike``'s target type are read only where they hold at
run time (:mod:`.premises`): never from a ``value_info`` entry or a graph
output's declaration, which no runtime enforces.

A call of a function that shadows a standard operator is also classified as
that operator, on the call's attributes and inputs (:mod:`.function_calls`).

Verdict: VIOLATED when some operation or call is nondeterministic (this wins);
otherwise UNKNOWN when the determinism of some operation could not be
established (unknown domain or operator, missing opset import, unread value,
or an attribute GRAPH-ATTRIBUTES does not prove defined: the operator then
gives the operation no meaning to decide on); otherwise PROVED. An operator
of a custom domain is decided by the user's declaration of it
(:mod:`.declarations`), read as a table entry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.caching import cached
from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import brief, first, op_ref
from ..model.graph import InitialValue, Operation
from ..model.index import index, operations_of, operator_kinds
from ..model.structure import outer_definers, scopes
from . import determinism_table as table
from . import graph_attributes, schemas
from . import graph_r2_conditions as conditions
from .base import CheckContext, open_or_proved
from .function_calls import CALL_GRAPHS, ShadowedCall, gives_graphs, shadowed_calls
from .premises import RuntimeType, runtime_type

ID = "GRAPH-R2"
SEVERITY = Severity.ERROR
DET, NONDET, UNKNOWN = "deterministic", "nondeterministic", "unknown"
Outcome = tuple[str, str]


def _kind_entries(ctx: CheckContext, domain: str, operator: str) -> tuple[list[table.Entry | None], str]:
    """Table entries of every schema version the operation may denote, or an empty list and why."""
    d = schemas.normal_domain(domain)
    if d not in table.KNOWN_DOMAINS:
        decls = ctx.config.declarations
        declared = None if decls is None else decls.find(d, operator, ctx.model.opset_imports)
        if declared is not None and decls is not None:
            return [declared.entry(decls.source)], ""
        return [], f"{domain}::{operator}: domain {domain!r} is not one whose operators sonnx knows"
    version = schemas.opset_version(ctx.model.opset_imports, d)
    if version is None:  # no opset import: consider every version of the operator
        versions = schemas.schema_versions(d, operator)
        if not versions:
            return [], f"{d or 'ai.onnx'}::{operator}: not an operator onnx defines"
    else:
        schema, why = schemas.schema_at(d, operator, version)
        if schema is None:
            return [], why
        versions = [schema.since_version]
    return [table.entry_for(d, operator, v) for v in versions], ""


class Constant:
    """What is statically known of a tensor's value: the array when it is a constant, else why not.

    ``kind`` is ``value`` (``array`` holds it), ``runtime`` (a graph input, a
    computed value, or a name assigned twice), or ``unread`` (a constant
    whose bytes were not or could not be read).
    """

    def __init__(self, kind: str, what: str, array: np.ndarray | None = None) -> None:
        self.kind, self.what, self.array = kind, what, array


def _read_value(ctx: CheckContext, value: InitialValue, what: str, is_initializer: bool) -> Constant:
    if not ctx.model.weights_loaded and (is_initializer or value.external is not None):
        return Constant("unread", f"{what}: the model was loaded without its weights, so the value was not read")
    try:
        return Constant("value", what, np.asarray(value.read()))
    except Exception as exc:  # an unreadable value is unknown, never a pass
        return Constant("unread", f"{what}: its value could not be read ({type(exc).__name__}: {exc})")


def constant_value(ctx: CheckContext, scope: int, name: str, role: str) -> Constant:
    """The value of tensor ``name`` read in scope ``scope``, when an initializer or a Constant fixes it.

    The name is looked up in the scope and then in the enclosing graphs. A
    graph input (given at run time, even when an initializer gives it a
    default), an operation's output other than a ``Constant``'s, and a name
    assigned more than once are not constants.
    """
    all_scopes, outer = scopes(ctx), outer_definers(ctx)
    cur = scope
    while not index(ctx, all_scopes[cur].graph).defines(name):
        if name not in outer[cur]:
            return Constant("runtime", f"{role} {name!r} is not defined in any enclosing graph")
        cur = outer[cur][name]
    g = all_scopes[cur].graph
    ix = index(ctx, g)
    where = f"{role} {name!r} (defined in {all_scopes[cur].path})"
    if name in ix.multi:
        return Constant("runtime", f"{where} is assigned more than once")
    if name in ix.input_set:
        return Constant("runtime", f"{where} is a graph input, given at run time")
    p = ix.prod.get(name)
    if p is None:
        iv = g.tensor(name).initial_value
        assert iv is not None
        return _read_value(ctx, iv, f"{where}, an initializer,", True)
    producer = g.operations[p]
    value = producer.attribute("value")
    if producer.operator != "Constant" or producer.domain != "" or value is None or value.type != "TENSOR":
        return Constant("runtime", f"{where} is computed by {producer.label}")
    return _read_value(ctx, value.value, f"{where}, a Constant,", False)


def _not_of_kind(c: Constant, kinds: str, noun: str) -> str | None:
    """Why the constant ``c`` cannot be read as ``noun`` (its NumPy kind is not one of ``kinds``), or None."""
    assert c.array is not None
    return None if c.array.dtype.kind in kinds else f"{c.what} holds values of type {c.array.dtype}, not {noun}"


def training_mode_false(ctx: CheckContext, scope: int, name: str) -> Outcome:
    """Whether tensor ``name``, read in scope ``scope``, is provably false."""
    c = constant_value(ctx, scope, name, "training_mode")
    if c.kind == "runtime":
        return NONDET, c.what
    if c.kind == "unread" or c.array is None:
        return UNKNOWN, c.what
    if why := _not_of_kind(c, table.NUMERIC_KINDS, "booleans"):
        return UNKNOWN, why
    if c.array.size != 1:
        return NONDET, f"{c.what} holds {c.array.size} values, not a single false"
    return (DET, "") if not bool(c.array.reshape(-1)[0]) else (NONDET, f"{c.what} is true")


def established(ctx: CheckContext, scope: int, name: str) -> RuntimeType:
    """What holds at run time of the type of ``name`` in scope ``scope`` (:func:`.premises.runtime_type`)."""
    g = scopes(ctx)[scope].graph
    ix = index(ctx, g)
    if name in ix.multi:
        writers = [g.operations[o] for o, _ in ix.multi[name]]
    else:
        p = ix.prod.get(name) if name else None
        writers = [] if p is None else [g.operations[p]]
    return runtime_type(g, name, scope == 0, writers)


def _duplicate_rows(keys: np.ndarray) -> tuple[int, int] | None:
    """Positions of the first two equal rows of ``keys`` (a 2-D integer array), or None when all differ."""
    if keys.shape[0] < 2:
        return None
    if keys.shape[1] == 0:  # empty tuples (ScatterND with a last dimension of 0) all address the whole tensor
        return 0, 1
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    same = np.all(ordered[1:] == ordered[:-1], axis=1)
    hits = np.flatnonzero(same)
    if hits.size == 0:
        return None
    a, b = sorted((int(order[hits[0]]), int(order[hits[0] + 1])))
    return a, b


def _scatter_duplicates(ctx: CheckContext, scope: int, op: Operation, entry: table.Entry) -> Outcome:
    """Scatter family with reduction none: deterministic only when no two indices address one element."""
    reduction = op.attribute("reduction")
    if reduction is not None and reduction.value not in ("none", b"none"):
        return DET, ""
    m = op.input_mapping
    if len(m) < 2 or not m[1]:
        return DET, ""
    c = constant_value(ctx, scope, m[1], "indices")
    if c.kind != "value" or c.array is None:
        return UNKNOWN, f"{c.what}: {entry.reason}"
    if why := _not_of_kind(c, table.INDEX_KINDS, "integers"):
        return UNKNOWN, f"{why}: {entry.reason}"
    idx = c.array.astype(np.int64, copy=False)
    data = established(ctx, scope, m[0])
    data_shape = data.dims
    if op.operator == "ScatterND":
        if idx.ndim == 0:
            return UNKNOWN, f"{c.what} is a scalar, not index tuples"
        k = idx.shape[-1]
        keys = idx.reshape(int(np.prod(idx.shape[:-1])), k)  # not (-1, k): k may be 0
        dims = None if data_shape is None else data_shape[:k]
    elif idx.ndim == 0:  # a single index: nothing to coincide with
        return DET, ""
    else:  # ScatterElements and Scatter: one target per element, its own position with the axis replaced
        axis_attr = op.attribute("axis")
        if axis_attr is not None and axis_attr.type != "INT":
            return UNKNOWN, (
                f"{c.what}; the attribute 'axis' is of type {axis_attr.type}, not INT, so which element an index "
                f"addresses is not known: {entry.reason}"
            )
        axis = int(axis_attr.value) if axis_attr is not None else 0
        rank = idx.ndim
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank:
            return UNKNOWN, f"axis {axis} is outside the indices' rank {rank}"
        grid = np.indices(idx.shape).reshape(idx.ndim, -1).T
        grid[:, axis] = idx.reshape(-1)
        keys = grid
        dims = None if data_shape is None or len(data_shape) != idx.ndim else data_shape
    if np.any(keys < 0):
        if dims is None or len(dims) < keys.shape[1] or any(d is None for d in dims[: keys.shape[1]]):
            why = data.why or f"the data's rank {len(data_shape or ())} does not fit the indices"
            return UNKNOWN, f"{c.what} holds negative indices and the data's dimensions are not established: {why}"
        keys = np.where(keys < 0, keys + np.asarray(dims[: keys.shape[1]], dtype=np.int64), keys)
    pair = _duplicate_rows(keys)
    if pair is None:
        return DET, ""
    a, b = pair
    return NONDET, f"{c.what}: entries {a} and {b} address the same element {keys[a].tolist()}; {entry.reason}"


def _zero_divisor(ctx: CheckContext, scope: int, op: Operation, entry: table.Entry) -> Outcome:
    m = op.input_mapping
    c = constant_value(ctx, scope, m[1], "divisor") if len(m) > 1 and m[1] else None
    if c is None or c.kind != "value" or c.array is None:
        return UNKNOWN, f"{c.what if c else 'the divisor'}: {entry.reason}"
    if why := _not_of_kind(c, table.NUMERIC_KINDS, "numbers"):
        return UNKNOWN, f"{why}: {entry.reason}"
    zeros = np.flatnonzero(c.array.reshape(-1) == 0)
    if zeros.size:
        return NONDET, f"{c.what} holds a zero at flat position {int(zeros[0])}; {entry.reason}"
    return DET, ""


def _evaluate(ctx: CheckContext, scope: int, op: Operation, entry: table.Entry | None) -> Outcome:
    if entry is None or entry.condition == table.NEVER:
        return DET, ""
    if entry.condition == table.ALWAYS:
        return NONDET, entry.reason
    if entry.condition == table.IS_TEST_UNSET:
        a = op.attribute("is_test")
        if a is not None and a.type == "INT" and a.value != 0:
            return DET, ""
        return NONDET, f"is_test is {'absent' if a is None else a.value}: {entry.reason}"
    if entry.condition == table.TOPK_UNSORTED:
        a = op.attribute("sorted")
        if a is not None and a.type == "INT" and a.value == 0:
            return NONDET, entry.reason
        return DET, ""
    if entry.condition == table.TRAINING_MODE_NOT_FALSE:
        m = op.input_mapping
        if len(m) < 3 or not m[2]:
            return DET, ""
        return training_mode_false(ctx, scope, m[2])
    if entry.condition == table.DUPLICATE_INDICES:
        return _scatter_duplicates(ctx, scope, op, entry)
    if entry.condition == table.ZERO_DIVISOR:
        return _zero_divisor(ctx, scope, op, entry)
    if entry.condition == table.SEQUENCE_LENS_GIVEN:
        m = op.input_mapping
        return (UNKNOWN, entry.reason) if m and m[0] else (DET, "")
    if entry.condition in conditions.READ_VALUES:
        return conditions.READ_VALUES[entry.condition](
            lambda n, r: constant_value(ctx, scope, n, r), lambda n: established(ctx, scope, n), op, entry
        )
    raise AssertionError(f"determinism table: unknown condition {entry.condition!r}")


def _combine(outcomes: list[Outcome]) -> Outcome:
    """One outcome for an operation whose schema version is not known: agree, or unknown."""
    kinds = {k for k, _ in outcomes}
    if len(kinds) == 1:
        return outcomes[0]
    reasons = "; ".join(dict.fromkeys(r for _, r in outcomes if r))
    return UNKNOWN, f"the model imports no opset for this domain and the versions disagree ({reasons})"


def operation_classes(ctx: CheckContext) -> dict[tuple[int, int], Outcome]:
    """Class of every operation that is not plainly deterministic, keyed by (scope index, operation index).

    Operations absent from the result are deterministic. Shared with
    GRAPH-DETERMINISM, which asks which of these reach a graph output.
    """

    def build() -> dict[tuple[int, int], Outcome]:
        out: dict[tuple[int, int], Outcome] = {}
        by_kind: dict[tuple[str, str], tuple[list[table.Entry | None], str]] = {}
        for i, sc in enumerate(scopes(ctx)):
            flagged = set()
            for kind in operator_kinds(ctx, sc.graph):
                if kind not in by_kind:
                    by_kind[kind] = _kind_entries(ctx, *kind)
                entries, _ = by_kind[kind]
                if not entries or any(e is not None and e.condition != table.NEVER for e in entries):
                    flagged.add(kind)
            if not flagged:
                continue
            ops = sc.graph.operations
            for j in operations_of(sc.graph, flagged):
                op = ops[j]
                entries, why = by_kind[(op.domain, op.operator)]
                outcome = (UNKNOWN, why) if not entries else _combine([_evaluate(ctx, i, op, e) for e in entries])
                if outcome[0] != DET:
                    out[(i, j)] = outcome
        for key, reason in graph_attributes.blocked(ctx).items():  # an undefined attribute: no meaning to rest on
            out.setdefault(key, (UNKNOWN, reason))  # an operation already classified keeps its class and reason
        return dict(sorted(out.items()))

    return cached(ctx.cache, ("rules.r2.classes",), build)


def call_classes(ctx: CheckContext) -> list[tuple[ShadowedCall, Outcome]]:
    """Each call of a shadowing function that is not deterministic as the standard operator, with its class.

    GRAPH-DETERMINISM makes the operations writing such a call's outputs sources of that class.
    """

    def build() -> list[tuple[ShadowedCall, Outcome]]:
        out = []
        by_kind: dict[tuple[str, str], tuple[list[table.Entry | None], str]] = {}
        for c in shadowed_calls(ctx):
            kind = (c.call.domain, c.call.operator)
            if kind not in by_kind:
                by_kind[kind] = _kind_entries(ctx, *kind)
            entries, why = by_kind[kind]
            outcome = (UNKNOWN, why) if not entries else _combine([_evaluate(ctx, c.scope, c.call, e) for e in entries])
            if outcome[0] == DET and gives_graphs(c.call):
                outcome = (UNKNOWN, CALL_GRAPHS)
            if outcome[0] != DET:
                out.append((c, (outcome[0], f"as {c.standard}: {outcome[1]}")))
        return out

    return cached(ctx.cache, ("rules.r2.calls",), build)


def check(ctx: CheckContext) -> Verdict:
    bad: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    all_scopes = scopes(ctx)
    for (i, j), (status, reason) in operation_classes(ctx).items():
        sc = all_scopes[i]
        (bad if status == NONDET else unknown).append({**op_ref(sc.path, j, sc.graph.operations[j]), "reason": reason})
    for c, (status, reason) in call_classes(ctx):
        found = {"scope": all_scopes[c.scope].path, "operation": c.label, "function": c.function,
                 "standard_operator": c.standard, "reason": reason}
        (bad if status == NONDET else unknown).append(found)
    if bad:
        return Verdict.violated(ID, Witness(*nondeterministic(bad, len(unknown))), SEVERITY)
    reasons = list(dict.fromkeys(f["reason"] for f in unknown))
    return open_or_proved(ID, SEVERITY, undetermined(len(unknown)), reasons)


def nondeterministic(bad: list[dict[str, Any]], unknown_count: int) -> tuple[str, dict[str, Any]]:
    """The summary and data of a violation: the nondeterministic operations (``op_ref`` records with a reason).

    Both engines word GRAPH-R2's witness this way; ``unknown_count`` counts
    the operations whose determinism stays open beside them.
    """
    shown = [f"{f['operation']} in {f['scope']}" for f in bad]
    summary = f"{len(bad)} nondeterministic operation(s): {brief(shown)}; {bad[0]['reason']}"
    return summary, {"count": len(bad), "nondeterministic": first(bad), "unknown_count": unknown_count}


def undetermined(n: int) -> str:
    """The start of the UNKNOWN reason when ``n`` operations are neither proved deterministic nor not (both engines)."""
    return f"determinism of {n} operation(s) not established"
