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
operation's determinism is unknown.

Verdict: VIOLATED when some operation is nondeterministic (this wins);
otherwise UNKNOWN when the determinism of some operation could not be
established (unknown domain or operator, missing opset import, unread value);
otherwise PROVED.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from ..model.graph import InitialValue, Operation
from ..model.structure import (
    brief,
    cached,
    first,
    index,
    op_ref,
    operations_of,
    operator_kinds,
    outer_definers,
    scopes,
)
from ..verdict import Severity, Verdict, Witness
from . import determinism as table
from .base import PROFILE_SONNX, CheckContext, Rule

ID = "GRAPH-R2"
SEVERITY = Severity.ERROR
DET, NONDET, UNKNOWN = "deterministic", "nondeterministic", "unknown"
Outcome = Tuple[str, str]


def _kind_entries(ctx: CheckContext, domain: str, operator: str) -> Tuple[List[table.Entry | None], str]:
    """Table entries of every schema version the operation may denote, or an empty list and why."""
    d = table.normal_domain(domain)
    if d not in table.KNOWN_DOMAINS:
        return [], f"{domain}::{operator}: domain {domain!r} is not one whose operators sonnx knows"
    version = table.opset_version(ctx.model.opset_imports, d)
    if version is None:  # no opset import: consider every version of the operator
        versions = table.schema_versions(d, operator)
        if not versions:
            return [], f"{d or 'ai.onnx'}::{operator}: not an operator onnx defines"
    else:
        schema, why = table.schema_at(d, operator, version)
        if schema is None:
            return [], why
        versions = [schema.since_version]
    return [table.entry_for(d, operator, v) for v in versions], ""


def _read_false(ctx: CheckContext, value: InitialValue, what: str, is_initializer: bool) -> Outcome:
    if not ctx.model.weights_loaded and (is_initializer or value.external is not None):
        return UNKNOWN, f"{what}: the model was loaded without its weights, so the value was not read"
    try:
        arr = np.asarray(value.read())
    except Exception as exc:  # an unreadable value is unknown, never false
        return UNKNOWN, f"{what}: its value could not be read ({type(exc).__name__}: {exc})"
    if arr.size != 1:
        return NONDET, f"{what} holds {arr.size} values, not a single false"
    return (DET, "") if not bool(arr.reshape(-1)[0]) else (NONDET, f"{what} is true")


def training_mode_false(ctx: CheckContext, scope: int, name: str) -> Outcome:
    """Whether tensor ``name``, read in scope ``scope``, is provably false."""
    all_scopes, outer = scopes(ctx), outer_definers(ctx)
    cur = scope
    while not index(ctx, all_scopes[cur].graph).defines(name):
        if name not in outer[cur]:
            return NONDET, f"training_mode {name!r} is not defined in any enclosing graph"
        cur = outer[cur][name]
    g = all_scopes[cur].graph
    ix = index(ctx, g)
    where = f"training_mode {name!r} (defined in {all_scopes[cur].path})"
    if name in ix.multi:
        return NONDET, f"{where} is assigned more than once"
    if name in ix.input_set:
        return NONDET, f"{where} is a graph input, given at run time"
    p = ix.prod.get(name)
    if p is None:
        iv = g.tensor(name).initial_value
        assert iv is not None
        return _read_false(ctx, iv, f"{where}, an initializer,", True)
    producer = g.operations[p]
    value = producer.attribute("value")
    if producer.operator != "Constant" or producer.domain != "" or value is None or value.type != "TENSOR":
        return NONDET, f"{where} is computed by {producer.label}"
    return _read_false(ctx, value.value, f"{where}, a Constant,", False)


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
    raise AssertionError(f"determinism table: unknown condition {entry.condition!r}")


def _combine(outcomes: List[Outcome]) -> Outcome:
    """One outcome for an operation whose schema version is not known: agree, or unknown."""
    kinds = {k for k, _ in outcomes}
    if len(kinds) == 1:
        return outcomes[0]
    reasons = "; ".join(dict.fromkeys(r for _, r in outcomes if r))
    return UNKNOWN, f"the model imports no opset for this domain and the versions disagree ({reasons})"


def operation_classes(ctx: CheckContext) -> Dict[Tuple[int, int], Outcome]:
    """Class of every operation that is not plainly deterministic, keyed by (scope index, operation index).

    Operations absent from the result are deterministic. Shared with
    GRAPH-DETERMINISM, which asks which of these reach a graph output.
    """

    def build() -> Dict[Tuple[int, int], Outcome]:
        out: Dict[Tuple[int, int], Outcome] = {}
        by_kind: Dict[Tuple[str, str], Tuple[List[table.Entry | None], str]] = {}
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
        return out

    return cached(ctx.cache, ("rules.r2.classes",), build)


def check(ctx: CheckContext) -> Verdict:
    bad: List[Dict[str, Any]] = []
    unknown: List[Dict[str, Any]] = []
    all_scopes = scopes(ctx)
    for (i, j), (status, reason) in operation_classes(ctx).items():
        sc = all_scopes[i]
        (bad if status == NONDET else unknown).append({**op_ref(sc.path, j, sc.graph.operations[j]), "reason": reason})
    if bad:
        shown = [f"{f['operation']} in {f['scope']}" for f in bad]
        return Verdict.violated(
            ID,
            Witness(
                f"{len(bad)} nondeterministic operation(s): {brief(shown)}; {bad[0]['reason']}",
                {"count": len(bad), "nondeterministic": first(bad), "unknown_count": len(unknown)},
            ),
            SEVERITY,
        )
    if unknown:
        reasons = list(dict.fromkeys(f["reason"] for f in unknown))
        return Verdict.unknown(
            ID, f"determinism of {len(unknown)} operation(s) not established: {brief(reasons, 3)}", SEVERITY
        )
    return Verdict.proved(ID, SEVERITY)


RULE = Rule(
    id=ID,
    title="Deterministic operators",
    statement=(
        "Every operation of the model applies a deterministic operator: no random generator (RandomNormal, "
        "RandomUniform, their Like forms, Multinomial, Bernoulli), no Dropout that may run in training mode, "
        "no TopK with unsorted results; operators of domains or versions sonnx does not know are not assumed "
        "deterministic."
    ),
    severity=SEVERITY,
    profile=PROFILE_SONNX,
    check=check,
    rationale=(
        "A graph computes a function of its inputs only if each of its operators does; the same inputs must "
        "always give the same outputs. Witness: each nondeterministic operation with the reason (table entry "
        "or the value of its mode input)."
    ),
)
