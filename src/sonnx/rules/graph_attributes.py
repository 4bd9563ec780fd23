"""GRAPH-ATTRIBUTES: every attribute value lies in its operator version's definition.

For each operation whose schema is known at the model's opset (every scope:
main graph, nested graphs, inlined function bodies):

* every attribute name is one the schema defines, with the schema's type,
  and every required attribute is given (onnx's schemas, machine-readable);
* the value lies in the set the operator text defines for it: the entries of
  :mod:`.attribute_domains` (enumerated strings, flags, positive sizes, data
  types, axis ranges).

An axis range depends on a rank; it is decided only on ranks that hold in
every run (:mod:`.ranks`). Where the rank is not established, or an entry's
set is one sonnx cannot decide, that check stays open. A function-body
reference left uninlined stays open too.

Verdict: VIOLATED when some value lies outside its set (the witness names
the operation, the attribute, its value and the defined set); otherwise
UNKNOWN when some check stayed open or some operation has no known schema;
otherwise PROVED. An operator of a custom domain takes its attribute
definitions from the user's declaration of it (:mod:`.declarations`), when
the declaration lists them. :func:`blocked` gives, per operation, why GRAPH-R2 and
GRAPH-DETERMINISM may not count it as established (spec, GRAPH-ATTRIBUTES).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any, NamedTuple

import onnx

from ..base.caching import cached
from ..base.verdict import Severity, Verdict
from ..base.witness import op_ref
from ..model.graph import Attribute, Operation
from ..model.structure import scopes
from . import attribute_domains as ad
from .base import CheckContext, Listing, counted_reasons, open_or_proved
from .declarations import Declarations
from .ranks import Ranks, ranks
from .schemas import normal_domain, opset_version, schema_at

ID = "GRAPH-ATTRIBUTES"
SEVERITY = Severity.ERROR
LISTING = Listing(
    "attribute value(s) outside their operator's definition",
    "attributes",
    lambda f: f"{f['operation']} {f['attribute']}={f['value']} (defined: {f['defined']})",
    3,
)
STRUCTURAL = False
"""Not a property of the raw facts (spec, section 4): it is decided on attribute values against the operator texts
and on ranks derived through them, so it has no SMT encoding; the SMT engine reads its per-operation answer."""
OUTSIDE, OPEN = "outside", "open"
Problem = tuple[str, str, str, str]
"""(OUTSIDE or OPEN, attribute, value as shown, the defined set or why the check is open)."""


def shown(a: Attribute) -> str:
    """An attribute's value as a witness shows it (lists cut after 8 elements)."""
    v = a.value
    if a.type in ("INT", "FLOAT", "STRING"):
        return repr(v)
    if a.type in ("INTS", "FLOATS", "STRINGS"):
        items = [repr(x) for x in v[:8]]
        return "[" + ", ".join(items) + (", ...]" if len(v) > 8 else "]")
    return f"<{a.type}>"


@cache
def _type_numbers() -> dict[str, int]:
    """``tensor(float)`` -> 1 ...: the TensorProto number of each type string a constraint lists."""
    return {f"tensor({n.lower()})": int(v) for n, v in onnx.TensorProto.DataType.items() if v}


def _allowed_types(schema: Any, param: str) -> dict[int, str]:
    """TensorProto number -> enum name of every type the constraint ``param`` of ``schema`` allows."""
    numbers = _type_numbers()
    names = {int(v): n for n, v in onnx.TensorProto.DataType.items()}
    for c in schema.type_constraints:
        if c.type_param_str == param:
            return {numbers[t]: names[numbers[t]] for t in c.allowed_type_strs if t in numbers}
    return {}


def _elements(a: Attribute) -> list[Any]:
    return list(a.value) if a.type in ("INTS", "STRINGS", "FLOATS") else [a.value]


def _rank_for(rk: Ranks, scope: int, op: Operation, position: int) -> tuple[int | None, str]:
    m = op.input_mapping
    name = m[position] if 0 <= position < len(m) else ""
    if not name:
        return None, f"input {position} is not given"
    r = rk.of(scope, name)
    return r, "" if r is not None else f"the rank of input {name!r} is not established"


def _axis(rk: Ranks, scope: int, op: Operation, a: Attribute, spec: ad.Axis, since: int) -> Problem | None:
    values = [int(v) for v in _elements(a)]
    top = "R-1" if spec.end == 0 else f"R{spec.end - 1:+d}".replace("R+0", "R")
    rng = f"[{'-R' if spec.negative else '0'}, {top}]"
    what = f"axes in {rng}, R the rank of input {spec.input}{' plus the axes listed' if spec.extra == 'count' else ''}"
    if not spec.negative:
        bad = [v for v in values if v < 0 and v not in spec.also]
        if bad:
            return OUTSIDE, a.name, shown(a), f"{what}: version {since} defines no negative axis"
    positions = [spec.input] * len(values)
    if spec.input == -2:  # Scan: element k is the axis of scan input k, the last num_scan_inputs inputs
        n = op.attribute("num_scan_inputs")
        if n is None or n.type != "INT":
            return OPEN, a.name, shown(a), "num_scan_inputs is not an INT, so the scan inputs are not known"
        positions = [len(op.input_mapping) - int(n.value) + k for k in range(len(values))]
    if spec.distinct and len(set(values)) < len(values):
        return OUTSIDE, a.name, shown(a), f"{what}, each named once"
    named: set[int] = set()
    for v, pos in zip(values, positions, strict=True):
        if v in spec.also:
            continue
        if pos == -1:
            return OPEN, a.name, shown(a), "the rank this axis refers to is not one sonnx establishes"
        r, why = _rank_for(rk, scope, op, pos)
        if r is None and spec.same_rank is not None:
            r = _rank_for(rk, scope, op, spec.same_rank)[0]
        if r is None:
            return OPEN, a.name, shown(a), why
        big = r + (len(values) if spec.extra == "count" else int(spec.extra))
        lo, hi = (-big if spec.negative else 0), big - 1 + spec.end
        n_ax = v + big if v < 0 else v
        if not (lo <= v and 0 <= n_ax <= hi and n_ax not in spec.excluded):
            extra = f" other than {', '.join(map(str, spec.excluded))}" if spec.excluded else ""
            return OUTSIDE, a.name, shown(a), f"axes in [{lo}, {hi}]{extra} (R = {big})"
        if spec.distinct and n_ax in named:
            return OUTSIDE, a.name, shown(a), f"axes in [{lo}, {hi}] (R = {big}), each named once"
        named.add(n_ax)
    return None


def _value(rk: Ranks, scope: int, op: Operation, a: Attribute, d: ad.Domain, schema: Any) -> Problem | None:
    """Whether the value of ``a`` lies in the set of entry ``d``: None, or the problem."""
    if d.kind == ad.FREE:
        return None
    if d.kind == ad.UNCHECKED:
        return OPEN, a.name, shown(a), f"sonnx cannot decide the defined set ({d.source})"
    xs = _elements(a)
    if d.kind == ad.ONE_OF:
        bad = [x for x in xs if x not in d.values]
        return (OUTSIDE, a.name, shown(a), "one of " + ", ".join(map(str, d.values))) if bad else None
    if d.kind == ad.AT_LEAST:
        bad = [x for x in xs if int(x) < d.values[0]]
        return (OUTSIDE, a.name, shown(a), f"integers >= {d.values[0]}") if bad else None
    if d.kind == ad.MATCHES:
        bad = [x for x in xs if re.match(d.values[0], str(x)) is None]
        return (OUTSIDE, a.name, shown(a), d.source) if bad else None
    if d.kind == ad.ELEMENT_TYPE:
        allowed = _allowed_types(schema, d.values[0])
        keys = set(allowed.values()) if a.type == "STRING" else set(allowed)
        bad = [x for x in xs if x not in keys]
        listed = ", ".join(sorted(allowed.values()))
        return (OUTSIDE, a.name, shown(a), f"a type constraint {d.values[0]} allows: {listed}") if bad else None
    if d.kind == ad.PERMUTATION:
        perm = [int(x) for x in xs]
        if sorted(perm) != list(range(len(perm))):
            return OUTSIDE, a.name, shown(a), "a permutation of 0 .. R-1, R the rank of input 0"
        r, why = _rank_for(rk, scope, op, 0)
        if r is None:
            return OPEN, a.name, shown(a), why
        return None if r == len(perm) else (OUTSIDE, a.name, shown(a), f"a permutation of 0 .. {r - 1} (R = {r})")
    if d.kind == ad.AXIS:
        return _axis(rk, scope, op, a, d.values[0], schema.since_version)
    raise AssertionError(f"attribute domains: unknown kind {d.kind!r}")


def _type_name(t: int) -> str:
    return str(onnx.AttributeProto.AttributeType.Name(t))


def problems(rk: Ranks, scope: int, op: Operation, schema: Any) -> list[Problem]:
    """Every problem with the attributes of ``op`` against ``schema`` (empty: all established and defined)."""
    out: list[Problem] = []
    defined = schema.attributes
    domain = normal_domain(op.domain)
    for a in op.attributes:
        s = defined.get(a.name)
        if a.type == "REF":
            out.append((OPEN, a.name, "<reference>", "a reference to a function attribute that was not inlined"))
        elif s is None:
            names = ", ".join(sorted(defined)) or "none"
            out.append((OUTSIDE, a.name, shown(a), f"the attributes {op.operator}-{schema.since_version} has: {names}"))
        elif _type_name(s.type) != a.type:
            out.append((OUTSIDE, a.name, shown(a), f"a value of type {_type_name(s.type)}, not {a.type}"))
        else:
            for d in ad.domains_for(domain, op.operator, schema.since_version, a.name):
                p = _value(rk, scope, op, a, d, schema)
                if p is not None:
                    out.append(p)
                    break
    given = {a.name for a in op.attributes}
    out.extend((OUTSIDE, n, "absent", "required") for n, s in sorted(defined.items()) if s.required and n not in given)
    return out


def findings(ctx: CheckContext) -> tuple[dict[tuple[int, int], list[Problem]], dict[str, int]]:
    """Problems per operation (keyed by scope index, operation index) and the no-schema reasons with counts."""

    def build() -> tuple[dict[tuple[int, int], list[Problem]], dict[str, int]]:
        found: dict[tuple[int, int], list[Problem]] = {}
        unknown: dict[str, int] = {}
        rk = ranks(ctx)
        kinds: dict[tuple[str, str], tuple[Any, str, bool]] = {}
        for i, sc in enumerate(scopes(ctx)):
            for j, op in enumerate(sc.graph.operations):
                kind = (op.domain, op.operator)
                known = kinds.get(kind)
                if known is None:
                    schema, why = schema_at(op.domain, op.operator, opset_version(ctx.model.opset_imports, op.domain))
                    if schema is None and ctx.config.declarations is not None:
                        schema = declared_schema(ctx.config.declarations, op, ctx.model.opset_imports)
                    needs = schema is not None and any(s.required for s in schema.attributes.values())
                    known = kinds[kind] = (schema, why, needs)
                schema, why, needs = known
                if schema is None:
                    unknown[why] = unknown.get(why, 0) + 1
                elif op.attributes or needs:
                    p = problems(rk, i, op, schema)
                    if p:
                        found[(i, j)] = p
        return found, unknown

    return cached(ctx.cache, ("rules.attributes",), build)


class _DeclaredAttribute(NamedTuple):
    type: int
    required: bool


class _DeclaredSchema(NamedTuple):
    """The part of an ONNX schema :func:`problems` reads, from a user's declaration of a custom operator."""

    attributes: dict[str, _DeclaredAttribute]
    since_version: int


def declared_schema(decls: Declarations, op: Operation, imports: Mapping[str, int]) -> _DeclaredSchema | None:
    """The attribute definitions a declaration gives ``op``'s custom operator, or None when it declares none."""
    d = decls.find(op.domain, op.operator, imports)
    if d is None or d.attributes is None:
        return None
    return _DeclaredSchema({k: _DeclaredAttribute(t, r) for k, t, r in d.attributes}, d.since)


def reason_of(p: Problem) -> str:
    """How GRAPH-R2 and GRAPH-DETERMINISM name an operation's attribute problem (both engines)."""
    status, name, value, defined = p
    if status == OUTSIDE:
        return f"attribute {name!r} = {value} is outside its definition ({defined}): the operator gives it no meaning"
    return f"attribute {name!r} = {value} is not established to lie in its definition ({defined})"


def blocked(ctx: CheckContext) -> dict[tuple[int, int], str]:
    """Operations whose attributes GRAPH-ATTRIBUTES does not prove defined, with the reason for the first problem.

    Keys are (scope index, operation index) in :func:`sonnx.model.structure.walk_scopes` order.
    """
    out: dict[tuple[int, int], str] = {}
    for key, ps in findings(ctx)[0].items():
        first = next((p for p in ps if p[0] == OUTSIDE), ps[0])
        out[key] = reason_of(first)
    return out


def check(ctx: CheckContext) -> Verdict:
    found, unknown = findings(ctx)
    all_scopes = scopes(ctx)
    bad: list[dict[str, Any]] = []
    open_: dict[str, int] = dict(unknown)
    for (i, j), ps in found.items():
        sc = all_scopes[i]
        for status, name, value, defined in ps:
            if status == OUTSIDE:
                ref = op_ref(sc.path, j, sc.graph.operations[j])
                bad.append({**ref, "attribute": name, "value": value, "defined": defined})
            else:
                why = f"{sc.graph.operations[j].operator} {name}: {defined}"
                open_[why] = open_.get(why, 0) + 1
    if bad:
        return LISTING.verdict(bad, ID, SEVERITY, {"unknown_count": sum(open_.values())})
    return open_or_proved(ID, SEVERITY, "attribute values not established", counted_reasons(open_))
