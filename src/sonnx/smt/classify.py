"""GRAPH-R2's classification of operations as a formula: the determinism table over raw facts.

The table of :mod:`sonnx.rules.determinism_table` (``TABLE``, ``KNOWN_DOMAINS``)
stays the shared trusted base of both engines: its entries are data. What
this module does is turn that data into an SMT-LIB function ``cls`` (one
``ite`` per entry: domain, operator, range of schema versions, condition), and
list per operation the raw facts the conditions read; the solver evaluates
the table on them. The facts of an operation: its domain and operator (as
codes, with a legend), the schema since-version its opset selects (every
version ONNX defines when the model imports no opset for the domain; 0 when
there is no schema, with the reason), the attributes ``is_test``,
``sorted``, ``reduction`` and ``to``, whether inputs 0-2 are given, the
element type of ``CastLike``'s target where it holds at run time
(:mod:`sonnx.rules.premises`), and for the conditions on constant inputs the
constant facts of :mod:`.constants` (kind and elements), with the terms of
:mod:`.value_terms` for casts to integer types (elements against the target's
range, or the input's element type where it holds at run time), repeated axes
(the axes and the data's rank where it holds at run time) and
StringNormalizer's locale.

The conditions are written as formulas over those facts: ``is_test`` set,
``sorted = 0``, ``training_mode`` a single false element, no zero among a
divisor's elements (``fp.isZero`` for floating point), no negative element
cast to FLOAT8E8M0 (``fp.isNegative``: -0 counts, NaN does not), and for a
scatter without reduction the index tuples (ScatterND: the rows; the element
scatters: each element's position with the axis coordinate replaced by its
value; negative indices wrapped by the data's dimensions where they hold at
run time) pairwise ``distinct``; a cast to an integer type, repeated axes and the
locale by the terms of :mod:`.value_terms`. Run-time or unread values give the unknown class. Per operation
the formula yields a code: class (0 deterministic, 1 unknown, 2
nondeterministic) plus 4 times the table entry that decided it, so the
verdict's reasons come from the solver's evaluation. Several candidate
versions that disagree give the unknown class. GRAPH-ATTRIBUTES' per-operation
answer is a trusted fact too: an operation it does not prove defined, which the
table would call deterministic, gets the unknown class instead (one entry
number per distinct reason).

The user's operator declarations (:mod:`sonnx.rules.declarations`) are rows
of the same table for operators of custom domains, read here as the direct
rule reads them: their domains count as known, and the operation's version is
the one the model imports for the domain.

Operations with identical facts get one instance (one ``c`` constant); the
witness maps it back to the operations. A call of a function that shadows a
standard operator is listed the same way, as that operator with the call's
facts (:mod:`.function_calls`); an input of the call that no fact of its
graph names is a run-time value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model.graph import Model, Operation
from ..rules import determinism_table as table
from ..rules import schemas
from ..rules.base import CheckConfig, CheckContext
from ..rules.declarations import Declarations
from ..rules.function_calls import CALL_GRAPHS as CALL_GRAPHS_REASON
from ..rules.graph_attributes import blocked
from ..rules.graph_r2_conditions import AXES_INPUT
from ..rules.premises import RuntimeType, runtime_type
from .constants import RUNTIME, Const, Resolver, attr_fact, num
from .facts import ScopeFacts
from .scatter_terms import Pair, scatter_term
from .value_terms import (
    axes_attribute_term,
    axes_value_term,
    dynamic_quantize_term,
    elements_term,
    locale_attributes_term,
    quantize_term,
    range_term,
    training_term,
    type_functions,
)

E8M0 = 24
"""``TensorProto.FLOAT8E8M0``."""
UNKNOWN_DOMAIN = len(table.TABLE) + 1
NO_SCHEMA = len(table.TABLE) + 2
DISAGREE = len(table.TABLE) + 3
CALL_GRAPHS = len(table.TABLE) + 4
"""The code of a call of a shadowing function that gives graph attributes (unknown when otherwise class 0)."""
BLOCKED = len(table.TABLE) + 5
"""Entry numbers from here name an operation whose attributes GRAPH-ATTRIBUTES does not prove defined (one number
per distinct reason); such an operation is of the unknown class unless the table already puts it in another class
than the deterministic one (then it keeps that class and its reason)."""

_COND = {
    table.ALWAYS: "2",
    table.NEVER: "0",
    table.IS_TEST_UNSET: "(ite (and (= itk 1) (distinct itv 0)) 0 2)",
    table.TOPK_UNSORTED: "(ite (and (= sk 1) (= sv 0)) 2 0)",
    table.TRAINING_MODE_NOT_FALSE: "(ite (= g2 0) 0 tm)",
    table.DUPLICATE_INDICES: "(ite (= rd 2) 0 (ite (= g1 0) 0 sc))",
    table.ZERO_DIVISOR: "(ite (= g1 0) 1 dz)",
    table.SEQUENCE_LENS_GIVEN: "(ite (= g0 1) 1 0)",
    table.REPEATED_AXES_ATTRIBUTE: "ax",
    table.REPEATED_AXES_INPUT: "ai",
    table.LOCALE_DEPENDENT: "lc",
    table.NAN_QUANTIZED: "qn",
}
_CAST = f"(ite (distinct tk 1) 1 (ite (= tv {E8M0}) ng (ite (integer tv) oo 0)))"
_CASTLIKE = f"(ite (= et 0) 1 (ite (= et {E8M0}) ng (ite (integer et) oo 0)))"
PARAMS = (
    "d", "p", "v", "itk", "itv", "sk", "sv", "rd", "g0", "g1", "g2", "tk", "tv", "et", "tm", "sc", "dz", "ng", "oo",
    "ax", "ai", "lc", "qn",
)


class Codes:
    """Integer codes of domains and operators (the table's first, then the model's, sorted).

    ``declared``: the rows the user's operator declarations add to the table (:mod:`sonnx.rules.declarations`);
    their domains count as known, and the row numbered ``-k`` in the code is ``declared[k - 1]``.
    """

    def __init__(self, ops: Sequence[Operation], declared: Sequence[table.Entry] = ()) -> None:
        self.declared = tuple(declared)
        self.domain: dict[str, int] = {d: i for i, d in enumerate(table.KNOWN_DOMAINS)}
        for d in sorted({e.domain for e in self.declared} - set(self.domain)):
            self.domain[d] = len(self.domain)
        for d in sorted({schemas.normal_domain(op.domain) for op in ops} - set(self.domain)):
            self.domain[d] = len(self.domain)
        self.op: dict[str, int] = {}
        for e in (*table.TABLE, *self.declared):
            self.op.setdefault(e.operator, len(self.op) + 1)
        for name in sorted({op.operator for op in ops} - set(self.op)):
            self.op[name] = len(self.op) + 1

    def legend(self) -> list[str]:
        doms = ", ".join(f"{c} {d or 'ai.onnx'}" for d, c in self.domain.items())
        ops = ", ".join(f"{c} {o}" for o, c in self.op.items())
        return [f"; domain codes: {doms}", f"; operator codes: {ops}"]


def table_formula(codes: Codes) -> list[str]:
    """The table as ``cls``: code = class + 4 * deciding entry (entries numbered from 1 in TABLE order, the rows of
    the user's operator declarations from -1 down, tried first)."""
    domains = (*table.KNOWN_DOMAINS, *sorted({e.domain for e in codes.declared}))
    known = " ".join(f"(= d {codes.domain[d]})" for d in domains)
    body = "0"
    rows = [(-k, e) for k, e in enumerate(codes.declared, 1)] + list(enumerate(table.TABLE, 1))
    for n, e in reversed(rows):
        match = [f"(= d {codes.domain[e.domain]})", f"(= p {codes.op[e.operator]})", f"(<= {e.first} v)"]
        if e.last is not None:
            match.append(f"(<= v {e.last})")
        if e.condition == table.UNREPRESENTABLE_CAST:
            cond = _CAST if e.operator == "Cast" else _CASTLIKE
        else:
            cond = _COND[e.condition]
        body = f"(ite (and {' '.join(match)}) (+ {cond} {4 * n}) {body})"
    params = " ".join(f"({x} Int)" for x in PARAMS)
    return [
        *type_functions(),
        "; the determinism table (sonnx.rules.determinism_table.TABLE) as a function of an operation's facts:",
        ";   code = class (0 deterministic, 1 unknown, 2 nondeterministic) + 4 * number of the deciding entry",
        f"(define-fun known ((d Int)) Bool (or {known}))",
        f"(define-fun cls ({params}) Int (ite (not (known d)) {1 + 4 * UNKNOWN_DOMAIN}"
        f" (ite (= v 0) {1 + 4 * NO_SCHEMA} {body})))",
    ]


def _versions(model: Model, op: Operation, decls: Declarations | None) -> tuple[list[int], str]:
    d = schemas.normal_domain(op.domain)
    if d not in table.KNOWN_DOMAINS:
        declared = None if decls is None else decls.find(d, op.operator, model.opset_imports)
        if declared is not None:  # the declaration's row covers the version the model imports
            return [int(model.opset_imports[d])], ""
        return [], f"{op.domain}::{op.operator}: domain {op.domain!r} is not one whose operators sonnx knows"
    version = schemas.opset_version(model.opset_imports, d)
    if version is None:
        vs = schemas.schema_versions(d, op.operator)
        return vs, "" if vs else f"{d or 'ai.onnx'}::{op.operator}: not an operator onnx defines"
    schema, why = schemas.schema_at(d, op.operator, version)
    return ([], why) if schema is None else ([schema.since_version], "")


def _given(op: Operation, k: int) -> int:
    m = op[3]
    return 1 if len(m) > k and m[k] else 0


_READS_VALUES = (
    table.TRAINING_MODE_NOT_FALSE,
    table.DUPLICATE_INDICES,
    table.ZERO_DIVISOR,
    table.UNREPRESENTABLE_CAST,
    table.REPEATED_AXES_ATTRIBUTE,
    table.REPEATED_AXES_INPUT,
    table.LOCALE_DEPENDENT,
    table.NAN_QUANTIZED,
)
VALUE_CONDITIONS: dict[tuple[str, str], frozenset[str]] = {
    k: frozenset(e.condition for e in table.TABLE if (e.domain, e.operator) == k and e.condition in _READS_VALUES)
    for k in {(e.domain, e.operator) for e in table.TABLE if e.condition in _READS_VALUES}
}
"""Operators with entries whose conditions read constants or attribute lists, and those conditions: only their
facts are listed (an operator may have several, one per range of versions)."""


@dataclass(eq=False)
class Instance:
    """One operation's facts rendered as the table's arguments, and what the witness needs to explain it."""

    term: str
    why: str = ""
    """The lister's reason when the operation has no schema (unknown domain, no such operator...)."""
    consts: tuple[str, ...] = ()
    """Descriptions of the constant inputs the conditions read."""
    pair: Pair | None = None
    check: str = ""
    """For a scatter: the solver's check that the two positions of ``pair`` carry equal index tuples."""
    blocked: str = ""
    """Why GRAPH-ATTRIBUTES does not prove the operation's attributes defined (a trusted fact), or empty."""
    declared: str = ""
    """The reason of the declared row that covers the operation (a custom operator the user declared), or empty."""


class Lister:
    """Builds the instance of every operation (operations with identical facts share one)."""

    def __init__(
        self, model: Model, facts: Sequence[ScopeFacts], calls: Sequence[Operation] = (),
        decls: Declarations | None = None,
    ) -> None:
        self.model = model
        self.facts = facts
        self.decls = decls
        declared = () if decls is None else [e.entry(decls.source) for e in decls.entries]
        self.codes = Codes([op for f in facts for op in f.graph.operations] + list(calls), declared)
        self.resolver = Resolver(model, facts)
        self._versions: dict[tuple[str, str], tuple[list[int], str]] = {}
        self._plain: dict[tuple[object, ...], Instance] = {}
        self._quick: dict[tuple[str, str, bool, bool, bool], Instance] = {}
        self.blocked = blocked_operations(model, decls)
        self._block_codes: dict[str, int] = {}

    def established(self, f: ScopeFacts, name: str) -> RuntimeType:
        """What holds at run time of the type of ``name`` in scope ``f`` (the writers from the raw facts)."""
        return runtime_type(f.graph, name, f.parent < 0, self.resolver.writers(f, name))

    def rank(self, f: ScopeFacts, name: str) -> int | None:
        """The rank of ``name`` in scope ``f`` where it holds at run time, or None."""
        dims = self.established(f, name).dims if name else None
        return None if dims is None else len(dims)

    def _resolve(self, f: ScopeFacts, name: str, role: str) -> Const:
        t = f.tid.get(name)
        if t is None:  # only a call's input can be named by no fact of its graph (the body does not read it)
            return Const(RUNTIME, f"{role} {name!r} is not defined in any enclosing graph")
        return self.resolver.resolve(f, t, role)

    def instance(self, f: ScopeFacts, j: int) -> Instance:
        """The operation's instance; one GRAPH-ATTRIBUTES blocks is unknown where the table says deterministic."""
        inst = self.instance_of(f, f.graph.operations[j])
        why = self.blocked.get((f.index, j))
        if why is None:
            return inst
        code = 1 + 4 * (BLOCKED + self._block_codes.setdefault(why, len(self._block_codes)))
        term = f"(let ((b {inst.term})) (ite (= (mod b 4) 0) {code} b))"
        return Instance(term, inst.why, inst.consts, inst.pair, inst.check, why, inst.declared)

    def instance_of(self, f: ScopeFacts, op: Operation) -> Instance:
        """The instance of operation ``op`` of graph ``f`` (or of a call, as its standard operator)."""
        m = op[3]
        if not op[5]:
            # No attributes: unless a value condition or CastLike's target type applies, the instance depends
            # only on the operator and which of the first three inputs are given (the ``_plain`` entries below).
            quick = self._quick.get(
                (op[1], op[0], len(m) > 0 and m[0] != "", len(m) > 1 and m[1] != "", len(m) > 2 and m[2] != "")
            )
            if quick is not None:
                return quick
        kind = (op.domain, op.operator)
        vs = self._versions.get(kind)
        if vs is None:
            vs = self._versions[kind] = _versions(self.model, op, self.decls)
        conds = VALUE_CONDITIONS.get((schemas.normal_domain(op.domain), op.operator), frozenset())
        g = (_given(op, 0), _given(op, 1), _given(op, 2))
        if op[5]:
            a = (attr_fact(op, "is_test"), attr_fact(op, "sorted"), _reduction(op), attr_fact(op, "to"))
        else:
            a = ((0, 0), (0, 0), 0, (0, 0))
        target = self.established(f, m[1] if len(m) > 1 else "") if op.operator == "CastLike" else None
        et = 0 if target is None else target.elem_type
        key = (kind, g, a, et)
        if not conds and key in self._plain:
            return self._plain[key]
        tm = sc = dz = ng = oo = ax = ai = lc = qn = "0"
        consts: list[str] = []
        pair = None
        check = ""
        if table.TRAINING_MODE_NOT_FALSE in conds and g[2]:
            c = self._resolve(f, op[3][2], "training_mode")
            tm, consts = training_term(c), [c.what]
        elif table.DUPLICATE_INDICES in conds and g[1] and a[2] != 2:
            c = self._resolve(f, op[3][1], "indices")
            sc, pair, check, notes = scatter_term(op, self.established(f, op[3][0]), c)
            consts = [c.what, *notes]
        elif table.ZERO_DIVISOR in conds and g[1]:
            c = self._resolve(f, op[3][1], "divisor")
            dz, consts = elements_term(c, "zero"), [c.what]
        elif table.UNREPRESENTABLE_CAST in conds:
            goal = et if op.operator == "CastLike" else a[3][1] if a[3][0] == 1 else 0
            if op.operator == "Cast" and a[3][0] != 1:
                consts = ["Cast's attribute 'to' is absent or not an INT, so the target type is not known"]
            elif target is not None and et == 0:
                consts = [f"CastLike's target type is not established ({target.why})"]
            elif goal == E8M0 or goal in table.INTEGER_RANGES:
                if g[0]:
                    c = self._resolve(f, op[3][0], "input")
                    consts = [c.what]
                    if goal == E8M0:
                        ng = elements_term(c, "neg")
                    else:
                        oo = range_term(c, goal, self.established(f, op[3][0]).elem_type)
                else:
                    ng = oo = "1"
                    consts = ["the input is omitted"]
        elif table.LOCALE_DEPENDENT in conds:
            lc = locale_attributes_term(op)
        elif table.NAN_QUANTIZED in conds and op.operator == "DynamicQuantizeLinear":
            qx = self._resolve(f, m[0], "input") if g[0] else None
            qn, consts = dynamic_quantize_term(qx), [qx.what] if qx else []
        elif table.NAN_QUANTIZED in conds:
            qx = self._resolve(f, m[0], "input") if g[0] else None
            qs = self._resolve(f, m[1], "scale") if g[1] else None
            zero = (g[2], self.established(f, m[2]).elem_type if g[2] else 0)
            qn = quantize_term(attr_fact(op, "output_dtype"), zero, qx, qs)
            consts = [c.what for c in (qx, qs) if c is not None]
        if table.REPEATED_AXES_ATTRIBUTE in conds:  # Slice has the attribute to version 9, the input from 10
            ax, why_ax = axes_attribute_term(op, self.rank(f, m[0] if m else ""))
            consts += why_ax
        if table.REPEATED_AXES_INPUT in conds and len(m) > AXES_INPUT and m[AXES_INPUT]:
            c = self._resolve(f, m[AXES_INPUT], "axes")
            ai, consts = axes_value_term(c, self.rank(f, m[0])), [*consts, c.what]
        d = self.codes.domain[schemas.normal_domain(op.domain)]
        p = self.codes.op[op.operator]
        (itk, itv), (sk, sv), rd, (tk, tv) = a
        rest = f"{num(itk)} {num(itv)} {num(sk)} {num(sv)} {rd} {g[0]} {g[1]} {g[2]} {num(tk)} {num(tv)} {et}"
        versions, why = vs
        calls = [f"(cls {d} {p} {v} {rest} {tm} {sc} {dz} {ng} {oo} {ax} {ai} {lc} {qn})" for v in versions or [0]]
        if len(calls) == 1:
            term = calls[0]
        else:
            same = " ".join(f"(= (mod {calls[0]} 4) (mod {c} 4))" for c in calls[1:])
            term = f"(ite (and {same}) {calls[0]} {1 + 4 * DISAGREE})"
        declared = "" if self.decls is None else self._declared_reason(op)
        inst = Instance(term, why, tuple(consts), pair, check, declared=declared)
        if not conds:
            self._plain[key] = inst
            if not op[5] and op.operator != "CastLike":
                self._quick[(op[1], op[0], g[0] == 1, g[1] == 1, g[2] == 1)] = inst
        return inst

    def _declared_reason(self, op: Operation) -> str:
        assert self.decls is not None
        found = self.decls.find(op.domain, op.operator, self.model.opset_imports)
        return "" if found is None else found.entry(self.decls.source).reason


def blocked_operations(model: Model, decls: Declarations | None = None) -> dict[tuple[int, int], str]:
    """GRAPH-ATTRIBUTES' trusted per-operation fact: (scope index, operation index) -> why it is not proved."""
    return blocked(CheckContext(model, CheckConfig(declarations=decls)))


def _reduction(op: Operation) -> int:
    r = op.attribute("reduction")
    if r is None:
        return 0
    return 1 if r.value in ("none", b"none") else 2


def with_call_graphs(inst: Instance, op: Operation) -> Instance:
    """``inst`` for a call of a shadowing function: of unknown class where the table finds it deterministic but
    the call gives graph attributes (the standard operator would run them; no rule classifies them)."""
    if not any(a.type in ("GRAPH", "GRAPHS") for a in op.attributes):
        return inst
    term = f"(ite (= (mod {inst.term} 4) 0) {1 + 4 * CALL_GRAPHS} {inst.term})"
    return Instance(term, inst.why, inst.consts, inst.pair, inst.check, inst.blocked, inst.declared)


def table_row_reason(k: int, inst: Instance) -> str:
    """The reason of declared row ``k`` (numbered from 1), which the instance of a declared operator carries."""
    return inst.declared or f"declared row {k}"


def reason(code: int, inst: Instance) -> str:
    """The verdict's reason for an operation, from the entry number in the solver's code."""
    n = code // 4
    if n < 0:  # a row of the user's operator declarations (SMT-LIB's mod and div are Euclidean, as Python's)
        return table_row_reason(-n, inst)
    if n >= BLOCKED:
        return inst.blocked
    if n in (UNKNOWN_DOMAIN, NO_SCHEMA):
        return inst.why or "no operator schema"
    if n == CALL_GRAPHS:
        return CALL_GRAPHS_REASON
    if n == DISAGREE:
        return "the model imports no opset for this domain and the versions disagree"
    entry = table.TABLE[n - 1].reason if 1 <= n <= len(table.TABLE) else ""
    detail = "; ".join(inst.consts)
    if inst.pair is not None and code % 4 == 2:
        a, b, key = inst.pair
        return f"{detail}: entries {a} and {b} address the same element {key}; {entry}"
    return f"{detail}: {entry}" if detail else entry
