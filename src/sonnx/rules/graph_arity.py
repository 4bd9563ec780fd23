"""GRAPH-ARITY: every input and output position of an operation's operator is bound to a tensor.

Spec rule GRAPH-ARITY (spec/graph.rst, section 4), from the working group's
restriction [R1] and statement [T03c] of graph.md version 23 (a 1-to-1 mapping
between a node's inputs and outputs and those of its operator) and the "[Rx]"
under *Edges* (every input and output of a node belongs to an edge): an
optional input or output may not be left out. The group marks [R1] TBC, so the
rule is a warning in the ``sonnx`` profile and an error in ``sonnx-strict``.

The rule reads the nodes the file writes: the main graph as written, calls of
model-local functions still in place (:attr:`~sonnx.model.graph.Model.written_graph`),
with every nested graph, and the body of every model-local function (and the
graphs among its attribute defaults). Each operation's signature is

* for a call of a model-local function, the function's own: one position per
  formal input and per formal output, none optional, none variadic (when
  several overloads of the function have different numbers of formals, which
  one a call means is not recorded, and the signature is not known);
* otherwise the ONNX schema that the opset version of the operation's domain
  selects (the function's own imports inside its body): its formal
  parameters, of which the last may be variadic with a minimum arity;
* for an operator of a custom domain, the user's declaration of it
  (:mod:`.declarations`), when one covers that version.

The positions that must be bound are the fixed formal parameters (single or
optional), and for a variadic last formal at least its minimum arity and
every position the operation writes. A position is left out when the mapping
is too short for it or names no tensor there (``""``). Positions written
beyond a non-variadic schema are no positions of the operator; onnx's checker
refuses them (FORMAT-ONNX).

Verdicts: VIOLATED with each operation and the positions it leaves out (by
position and formal name); otherwise UNKNOWN when some operation's signature
is not known (an unknown domain or operator, an opset newer than onnx's
schemas, overloads that differ), never PROVED; otherwise PROVED. The SMT
engine decides the same rule from the same signatures
(:mod:`sonnx.smt.encodings.graph_arity`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import onnx

from ..base.verdict import Severity, Verdict
from ..base.witness import Offenders, op_ref
from ..model.graph import Function, Graph, Model, Operation
from ..model.structure import walk_scopes
from .base import CheckContext, Listing, counted_reasons, open_or_proved
from .declarations import Declaration, Declarations
from .registry import rule_by_id
from .schemas import normal_domain, opset_version, schema_at

ID = "GRAPH-ARITY"
SEVERITY = Severity.WARNING
UNKNOWN_SIGNATURE = "operator signature not known for some operations"


class Side(NamedTuple):
    """The formal parameters of one side (inputs or outputs) of a signature."""

    formals: tuple[str, ...]
    """The formal names, in order; the last is the variadic one when ``variadic``."""
    variadic: bool
    minimum: int
    """The minimum arity of the variadic formal (0 when there is none)."""

    @property
    def fixed(self) -> int:
        """How many single or optional formals come before the variadic one (all of them when none is)."""
        return len(self.formals) - (1 if self.variadic else 0)

    def required(self, given: int) -> int:
        """How many leading positions must be bound when the operation writes ``given`` of them."""
        if not self.variadic:
            return self.fixed
        return max(self.fixed + self.minimum, given)

    @property
    def floor(self) -> int:
        """How many positions must be bound however many the operation writes."""
        return self.fixed + (self.minimum if self.variadic else 0)

    def complete(self, mapping: Sequence[str]) -> bool:
        """Whether ``mapping`` binds every position that must be bound (the fast test of :meth:`left_out`)."""
        return _complete(mapping, self.floor, self.variadic)

    def left_out(self, mapping: Sequence[str]) -> list[int]:
        """The positions of ``mapping`` that must be bound and are not (beyond its end, or ``""``)."""
        n = len(mapping)
        return [k for k in range(self.required(n)) if k >= n or not mapping[k]]

    def formal(self, k: int) -> str:
        """The formal name of position ``k`` (``outputs[2]`` for the third position of a variadic ``outputs``)."""
        if k < self.fixed:
            return self.formals[k]
        return f"{self.formals[-1]}[{k - self.fixed}]"


def _complete(mapping: Sequence[str], floor: int, variadic: bool) -> bool:
    n = len(mapping)
    if n < floor:
        return False
    return "" not in (mapping if variadic or n == floor else mapping[:floor])


class Signature(NamedTuple):
    inputs: Side
    outputs: Side
    origin: str
    """Where the signature comes from: ``ai.onnx::MaxPool-12`` or ``function local.F``."""


def _side(params: Sequence[Any]) -> Side:
    variadic = bool(params) and params[-1].option == onnx.defs.OpSchema.FormalParameterOption.Variadic
    return Side(tuple(p.name for p in params), variadic, int(params[-1].min_arity) if variadic else 0)


def schema_signature(schema: Any) -> Signature:
    """The signature of an ONNX operator schema."""
    shown = f"{schema.domain or 'ai.onnx'}::{schema.name}-{schema.since_version}"
    return Signature(_side(schema.inputs), _side(schema.outputs), shown)


def _declared_side(low: int, high: int | None, noun: str) -> Side:
    if high is not None:
        return Side(tuple(f"{noun}[{k}]" for k in range(high)), False, 0)
    return Side((*(f"{noun}[{k}]" for k in range(low)), f"{noun}[{low}:]"), True, 0)


def declared_signature(d: Declaration, source: str) -> Signature:
    """The signature a user's declaration gives a custom operator: every declared position is one to bind.

    A bounded side has ``max`` positions; a variadic one (no ``max``) its ``min`` fixed positions, then every
    position the operation writes.
    """
    ins = _declared_side(d.inputs.minimum, d.inputs.maximum, "input")
    outs = _declared_side(d.outputs.minimum, d.outputs.maximum, "output")
    return Signature(ins, outs, f"{d.domain}::{d.name}, declared in {source}")


def qualified(fn: Function) -> str:
    """``domain.name`` (``:overload`` added when given), as witnesses name a model-local function."""
    text = f"{fn.domain}.{fn.name}" if fn.domain else fn.name
    return f"{text}:{fn.overload}" if fn.overload else text


def function_signature(overloads: Sequence[Function]) -> tuple[Signature | None, str]:
    """The signature of a call of a model-local function, or None with the reason when it is not known."""
    counts = {(len(f.body.inputs), len(f.body.outputs)) for f in overloads}
    fn = overloads[0]
    if len(counts) > 1:
        return None, f"function {fn.domain}.{fn.name}: its overloads have different numbers of formals"
    inputs = Side(tuple(fn.body.inputs), False, 0)
    outputs = Side(tuple(fn.body.outputs), False, 0)
    return Signature(inputs, outputs, f"function {qualified(fn)}"), ""


class WrittenScope(NamedTuple):
    """One graph as the file writes it, with the operator-set imports its operations are read under."""

    path: str
    graph: Graph
    imports: Mapping[str, int]
    parent: int
    """The index of the enclosing scope in the list (-1 for the main graph and each function body)."""


def written_scopes(model: Model) -> list[WrittenScope]:
    """The written main graph with its nested graphs, then each function body (and attribute-default graphs).

    Function scopes are named ``function <domain.name>`` (``...@<attribute>`` for a default graph), so they
    cannot be taken for the main graph's.
    """
    out = [WrittenScope(sc.path, sc.graph, model.opset_imports, sc.parent) for sc in walk_scopes(model.written_graph)]
    for fn in model.functions:
        imports = {**model.opset_imports, **{normal_domain(d): v for d, v in fn.opset_imports.items()}}
        roots: list[tuple[str, Graph]] = [(f"function {qualified(fn)}", fn.body)]
        for a in fn.attribute_defaults:
            if a.type == "GRAPH" and isinstance(a.value, Graph):
                roots.append((f"function {qualified(fn)}@{a.name}", a.value))
            elif a.type == "GRAPHS":
                roots.extend((f"function {qualified(fn)}@{a.name}[{i}]", g) for i, g in enumerate(a.value))
        for label, root in roots:
            top, base = root.name or "main", len(out)
            out.extend(
                WrittenScope(label + sc.path[len(top):], sc.graph, imports, -1 if sc.parent < 0 else base + sc.parent)
                for sc in walk_scopes(root)
            )
    return out


class Signatures:
    """Signature lookup for one model: model-local functions first (as the loader resolves calls), then schemas."""

    def __init__(self, model: Model, declarations: Declarations | None = None) -> None:
        self.declarations = declarations
        self.functions: dict[tuple[str, str], list[Function]] = {}
        for fn in model.functions:
            self.functions.setdefault((normal_domain(fn.domain), fn.name), []).append(fn)
        self._cache: dict[tuple[str, str, int | None], tuple[Signature | None, str]] = {}

    def in_scope(self, sc: WrittenScope) -> Callable[[Operation], tuple[Signature | None, str]]:
        """:meth:`of` for the operations of one scope, memoised by (domain, operator)."""
        memo: dict[tuple[str, str], tuple[Signature | None, str]] = {}

        def lookup(op: Operation) -> tuple[Signature | None, str]:
            key = (op[1], op[0])
            found = memo.get(key)
            if found is None:
                found = memo[key] = self.of(op, sc.imports)
            return found

        return lookup

    def of(self, op: Operation, imports: Mapping[str, int]) -> tuple[Signature | None, str]:
        """The signature of ``op``'s operator, or None with the reason it is not known."""
        domain = normal_domain(op.domain)
        local = self.functions.get((domain, op.operator))
        if local is not None:
            return function_signature(local)
        version = opset_version(imports, domain)
        key = (domain, op.operator, version)
        found = self._cache.get(key)
        if found is None:
            schema, why = schema_at(domain, op.operator, version)
            found = self._cache[key] = (schema_signature(schema), "") if schema is not None else (None, why)
            declared = None if schema is not None or self.declarations is None else self.declarations.find(
                domain, op.operator, imports)
            if declared is not None and self.declarations is not None:
                found = self._cache[key] = (declared_signature(declared, self.declarations.source), "")
        return found


def finding(path: str, j: int, op: Operation, sig: Signature) -> dict[str, Any]:
    """What ``op`` leaves out under ``sig``, for the witness (an operation that is not complete)."""
    ins = sig.inputs.left_out(op.input_mapping)
    outs = sig.outputs.left_out(op.output_mapping)
    return {
        **op_ref(path, j, op),
        "signature": sig.origin,
        "inputs_left_out": [{"position": k, "formal": sig.inputs.formal(k)} for k in ins],
        "outputs_left_out": [{"position": k, "formal": sig.outputs.formal(k)} for k in outs],
    }


def _show(f: dict[str, Any]) -> str:
    ins = [f"input {x['position']} {x['formal']}" for x in f["inputs_left_out"]]
    outs = [f"output {x['position']} {x['formal']}" for x in f["outputs_left_out"]]
    return f"{f['operation']} in {f['scope']} ({', '.join(ins + outs)})"


LISTING = Listing("operation(s) leave operator positions unbound", "operations", _show, 3)


def check(ctx: CheckContext) -> Verdict:
    severity = rule_by_id(ID).severity_in(ctx.config.profile)  # sonnx-strict makes it an error (the table)
    sigs = Signatures(ctx.model, ctx.config.declarations)
    found = Offenders()
    unknown: dict[str, int] = {}
    for sc in written_scopes(ctx.model):
        # per (domain, operator): the signature and the numbers of the fast completeness test (a million
        # operations go through this loop; a complete operation costs two dictionary lookups and two scans)
        memo: dict[tuple[str, str], tuple[Signature | None, str, int, bool, int, bool]] = {}
        for j, op in enumerate(sc.graph.operations):
            key = (op[1], op[0])
            e = memo.get(key)
            if e is None:
                sig, why = sigs.of(op, sc.imports)
                if sig is None:
                    e = memo[key] = (None, why, 0, False, 0, False)
                else:
                    e = memo[key] = (sig, "", sig.inputs.floor, sig.inputs.variadic, sig.outputs.floor,
                                     sig.outputs.variadic)
            sig, why, fi, vi, fo, vo = e
            if sig is None:
                unknown[why] = unknown.get(why, 0) + 1
            elif not (_complete(op[3], fi, vi) and _complete(op[4], fo, vo)):
                found.add(1, [finding(sc.path, j, op, sig)])
    if found.count:
        return LISTING.verdict(found, ID, severity, {"unknown_count": sum(unknown.values())})
    return open_or_proved(ID, severity, UNKNOWN_SIGNATURE, counted_reasons(unknown))
