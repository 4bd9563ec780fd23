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
declared element type of ``CastLike``'s target, and for the conditions on
constant inputs the constant facts of :mod:`.constants` (kind and elements).

The conditions are written as formulas over those facts: ``is_test`` set,
``sorted = 0``, ``training_mode`` a single false element, no zero among a
divisor's elements (``fp.isZero`` for floating point), no negative element
cast to FLOAT8E8M0 (``fp.isNegative``: -0 counts, NaN does not), and for a
scatter without reduction the index tuples (ScatterND: the rows; the element
scatters: each element's position with the axis coordinate replaced by its
value; negative indices wrapped by the declared data dimensions) pairwise
``distinct``. Run-time or unread values give the unknown class. Per operation
the formula yields a code: class (0 deterministic, 1 unknown, 2
nondeterministic) plus 4 times the table entry that decided it, so the
verdict's reasons come from the solver's evaluation. Several candidate
versions that disagree give the unknown class.

Operations with identical facts get one instance (one ``c`` constant); the
witness maps it back to the operations. A call of a function that shadows a
standard operator is listed the same way, as that operator with the call's
facts (:mod:`.function_calls`); an input of the call that no fact of its
graph names is a run-time value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..model.graph import Model, Operation
from ..rules import determinism_table as table
from ..rules.function_calls import CALL_GRAPHS as CALL_GRAPHS_REASON
from ..rules.graph_r2 import declared_shape
from .constants import RUNTIME, VALUE, Const, Resolver, attr_fact, num, terms
from .facts import ScopeFacts

E8M0 = 24
"""``TensorProto.FLOAT8E8M0``."""
UNKNOWN_DOMAIN = len(table.TABLE) + 1
NO_SCHEMA = len(table.TABLE) + 2
DISAGREE = len(table.TABLE) + 3
CALL_GRAPHS = len(table.TABLE) + 4
"""The code of a call of a shadowing function that gives graph attributes (unknown when otherwise class 0)."""

_COND = {
    table.ALWAYS: "2",
    table.NEVER: "0",
    table.IS_TEST_UNSET: "(ite (and (= itk 1) (distinct itv 0)) 0 2)",
    table.TOPK_UNSORTED: "(ite (and (= sk 1) (= sv 0)) 2 0)",
    table.TRAINING_MODE_NOT_FALSE: "(ite (= g2 0) 0 tm)",
    table.DUPLICATE_INDICES: "(ite (= rd 2) 0 (ite (= g1 0) 0 sc))",
    table.ZERO_DIVISOR: "(ite (= g1 0) 1 dz)",
    table.SEQUENCE_LENS_GIVEN: "(ite (= g0 1) 1 0)",
}
_CAST = f"(ite (distinct tk 1) 1 (ite (= tv {E8M0}) ng 0))"
_CASTLIKE = f"(ite (= et 0) 1 (ite (distinct et {E8M0}) 0 ng))"
PARAMS = ("d", "p", "v", "itk", "itv", "sk", "sv", "rd", "g0", "g1", "g2", "tk", "tv", "et", "tm", "sc", "dz", "ng")


class Codes:
    """Integer codes of domains and operators (the table's first, then the model's, sorted)."""

    def __init__(self, ops: Sequence[Operation]) -> None:
        self.domain: dict[str, int] = {d: i for i, d in enumerate(table.KNOWN_DOMAINS)}
        for d in sorted({table.normal_domain(op.domain) for op in ops} - set(self.domain)):
            self.domain[d] = len(self.domain)
        self.op: dict[str, int] = {}
        for e in table.TABLE:
            self.op.setdefault(e.operator, len(self.op) + 1)
        for name in sorted({op.operator for op in ops} - set(self.op)):
            self.op[name] = len(self.op) + 1

    def legend(self) -> list[str]:
        doms = ", ".join(f"{c} {d or 'ai.onnx'}" for d, c in self.domain.items())
        ops = ", ".join(f"{c} {o}" for o, c in self.op.items())
        return [f"; domain codes: {doms}", f"; operator codes: {ops}"]


def table_formula(codes: Codes) -> list[str]:
    """The table as ``cls``: code = class + 4 * deciding entry (entries numbered from 1 in TABLE order)."""
    known = " ".join(f"(= d {codes.domain[d]})" for d in table.KNOWN_DOMAINS)
    body = "0"
    for n, e in reversed(list(enumerate(table.TABLE, 1))):
        match = [f"(= d {codes.domain[e.domain]})", f"(= p {codes.op[e.operator]})", f"(<= {e.first} v)"]
        if e.last is not None:
            match.append(f"(<= v {e.last})")
        if e.condition == table.NEGATIVE_TO_E8M0:
            cond = _CAST if e.operator == "Cast" else _CASTLIKE
        else:
            cond = _COND[e.condition]
        body = f"(ite (and {' '.join(match)}) (+ {cond} {4 * n}) {body})"
    params = " ".join(f"({x} Int)" for x in PARAMS)
    return [
        "; the determinism table (sonnx.rules.determinism_table.TABLE) as a function of an operation's facts:",
        ";   code = class (0 deterministic, 1 unknown, 2 nondeterministic) + 4 * number of the deciding entry",
        f"(define-fun known ((d Int)) Bool (or {known}))",
        f"(define-fun cls ({params}) Int (ite (not (known d)) {1 + 4 * UNKNOWN_DOMAIN}"
        f" (ite (= v 0) {1 + 4 * NO_SCHEMA} {body})))",
    ]


def _versions(model: Model, op: Operation) -> tuple[list[int], str]:
    d = table.normal_domain(op.domain)
    if d not in table.KNOWN_DOMAINS:
        return [], f"{op.domain}::{op.operator}: domain {op.domain!r} is not one whose operators sonnx knows"
    version = table.opset_version(model.opset_imports, d)
    if version is None:
        vs = table.schema_versions(d, op.operator)
        return vs, "" if vs else f"{d or 'ai.onnx'}::{op.operator}: not an operator onnx defines"
    schema, why = table.schema_at(d, op.operator, version)
    return ([], why) if schema is None else ([schema.since_version], "")


def _given(op: Operation, k: int) -> int:
    m = op[3]
    return 1 if len(m) > k and m[k] else 0


def _nonzero(x: str, a: np.ndarray) -> str:
    return f"(distinct {x} 0)" if a.dtype.kind in "iub" else f"(not (fp.isZero {x}))"


def _any(xs: list[str]) -> str:
    return "false" if not xs else xs[0] if len(xs) == 1 else f"(or {' '.join(xs)})"


def _kind(c: Const) -> str:
    return str(c.kind)


def training_term(c: Const) -> str:
    if c.array is not None and c.array.dtype.kind not in table.NUMERIC_KINDS:
        return "1"
    first = _nonzero(terms(c.array.reshape(-1)[:1])[0], c.array) if c.array is not None and c.array.size else "false"
    size = 0 if c.array is None else int(c.array.size)
    k = _kind(c)
    return f"(ite (= {k} {RUNTIME}) 2 (ite (distinct {k} {VALUE}) 1 (ite (distinct {size} 1) 2 (ite {first} 2 0))))"


def elements_term(c: Const, test: str) -> str:
    """Class of a condition "some element passes ``test``" (zero, negative) on a constant."""
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {_kind(c)} {VALUE}) 0 1)"
    a = c.array
    if a.dtype.kind not in table.NUMERIC_KINDS:
        return "1"
    xs = terms(a)
    if a.dtype.kind in "iub":
        hits = [f"(= {x} 0)" if test == "zero" else f"(< {x} 0)" for x in xs]
    else:
        hits = [f"(fp.isZero {x})" if test == "zero" else f"(fp.isNegative {x})" for x in xs]
    return f"(ite (= {_kind(c)} {VALUE}) (ite {_any(hits)} 2 0) 1)"


AXIS_NOT_INT = "the attribute 'axis' is not an INT, so which element an index addresses is not known"
Pair = tuple[int, int, list[int]]
Scatter = tuple[str, Pair | None, str, tuple[str, ...]]


def _index_tuples(idx: np.ndarray) -> np.ndarray:
    """ScatterND's indices as one row per index tuple (not ``reshape(-1, k)``: the tuple length ``k`` may be 0)."""
    return idx.reshape(int(np.prod(idx.shape[:-1])), idx.shape[-1])


def scatter_term(op: Operation, f: ScopeFacts, c: Const) -> Scatter:
    """Class of the duplicate-indices condition; an untrusted pair of positions with equal tuples and its check;
    notes for the verdict's reason."""
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {_kind(c)} {VALUE}) 0 1)", None, "", ()
    present, ax = attr_fact(op, "axis") if op.operator != "ScatterND" else (0, 0)
    notes = (AXIS_NOT_INT,) if present == 2 else ()
    if c.array.dtype.kind not in table.INDEX_KINDS:
        return "1", None, "", notes
    idx = c.array.astype(np.int64, copy=False)
    data = declared_shape(f.graph, op[3][0])
    if op.operator == "ScatterND":
        if idx.ndim == 0:
            return "1", None, "", notes
        k = idx.shape[-1]
        rows = [[num(int(v)) for v in r] for r in _index_tuples(idx).tolist()]
        dims = None if data is None else data[:k]
        guard = "true"
    else:
        if idx.ndim == 0:  # a single index: nothing to coincide with
            return "0", None, "", notes
        if present == 2:  # an axis that is not an INT: which element an index addresses is not known
            return "1", None, "", notes
        ax = ax if present == 1 else 0
        rank = idx.ndim
        axis = f"(ite (< {num(ax)} 0) (+ {num(ax)} {rank}) {num(ax)})"
        grid = np.indices(idx.shape).reshape(idx.ndim, -1).T.tolist()
        vals = idx.reshape(-1).tolist()
        rows = [
            [f"(ite (= {axis} {j}) {num(v)} {c_j})" for j, c_j in enumerate(g)]
            for g, v in zip(grid, vals, strict=True)
        ]
        dims = None if data is None or len(data) != idx.ndim else data
        guard = f"(and (<= 0 {axis}) (< {axis} {rank}))"
    width = len(rows[0]) if rows else 0
    known = dims is not None and len(dims) >= width and all(d is not None for d in dims[:width])
    neg = _any([f"(< {x} 0)" for r in rows for x in r])
    keys = []
    for r in rows:
        comps = [f"(ite (< {x} 0) (+ {x} {dims[j]}) {x})" if known and dims else x for j, x in enumerate(r)]
        keys.append(" ".join(f"(* {1 << (64 * j)} (+ {x} {1 << 63}))" for j, x in enumerate(comps)) or "0")
    keys = [f"(+ {k} 0)" for k in keys]
    distinct = f"(distinct {' '.join(keys)})" if len(keys) > 1 else "true"
    pair = _pair(idx, op.operator, dims, ax if op.operator != "ScatterND" else 0)
    term = f"(ite {guard} (ite (and {neg} {'false' if known else 'true'}) 1 (ite {distinct} 0 2)) 1)"
    check = "" if pair is None else f"(and (distinct {pair[0]} {pair[1]}) (= {keys[pair[0]]} {keys[pair[1]]}))"
    return term, pair, check, notes


def _pair(
    idx: np.ndarray, operator: str, dims: Sequence[int | None] | None, axis: int
) -> tuple[int, int, list[int]] | None:
    """Untrusted: the first two positions whose index tuples coincide, and the tuple (the formula decides)."""
    if operator == "ScatterND":
        keys = _index_tuples(idx)
    else:
        keys = np.indices(idx.shape).reshape(idx.ndim, -1).T
        axis = axis + idx.ndim if axis < 0 else axis
        if not 0 <= axis < idx.ndim:
            return None
        keys[:, axis] = idx.reshape(-1)
    if dims is not None and all(d is not None for d in dims[: keys.shape[1]]) and len(dims) >= keys.shape[1]:
        keys = np.where(keys < 0, keys + np.asarray(dims[: keys.shape[1]], dtype=np.int64), keys)
    if keys.shape[0] < 2:
        return None
    if keys.shape[1] == 0:  # empty tuples all address the whole tensor
        return 0, 1, []
    order = np.lexsort(keys.T[::-1])
    same = np.flatnonzero(np.all(keys[order][1:] == keys[order][:-1], axis=1))
    if same.size == 0:
        return None
    a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
    return a, b, keys[a].tolist()


VALUE_CONDITIONS = {
    (e.domain, e.operator): e.condition
    for e in table.TABLE
    if e.condition
    in (table.TRAINING_MODE_NOT_FALSE, table.DUPLICATE_INDICES, table.ZERO_DIVISOR, table.NEGATIVE_TO_E8M0)
}
"""Operators with an entry whose condition reads a constant input: only their constant facts are listed."""


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


class Lister:
    """Builds the instance of every operation (operations with identical facts share one)."""

    def __init__(self, model: Model, facts: Sequence[ScopeFacts], calls: Sequence[Operation] = ()) -> None:
        self.model = model
        self.facts = facts
        self.codes = Codes([op for f in facts for op in f.graph.operations] + list(calls))
        self.resolver = Resolver(model, facts)
        self._versions: dict[tuple[str, str], tuple[list[int], str]] = {}
        self._plain: dict[tuple[object, ...], Instance] = {}
        self._quick: dict[tuple[str, str, bool, bool, bool], Instance] = {}

    def _resolve(self, f: ScopeFacts, name: str, role: str) -> Const:
        t = f.tid.get(name)
        if t is None:  # only a call's input can be named by no fact of its graph (the body does not read it)
            return Const(RUNTIME, f"{role} {name!r} is not defined in any enclosing graph")
        return self.resolver.resolve(f, t, role)

    def instance_of(self, f: ScopeFacts, op: Operation) -> Instance:
        """The instance of operation ``op`` of graph ``f`` (or of a call, as its standard operator)."""
        m = op[3]
        if not op[5]:
            # No attributes: unless a value condition or CastLike's target type applies, the instance depends
            # only on the operator and which of the first three inputs are given (the ``_plain`` entries below).
            quick = self._quick.get((op[1], op[0], len(m) > 0 and m[0] != "", len(m) > 1 and m[1] != "",
                                     len(m) > 2 and m[2] != ""))
            if quick is not None:
                return quick
        kind = (op.domain, op.operator)
        vs = self._versions.get(kind)
        if vs is None:
            vs = self._versions[kind] = _versions(self.model, op)
        cond = VALUE_CONDITIONS.get((table.normal_domain(op.domain), op.operator))
        g = (_given(op, 0), _given(op, 1), _given(op, 2))
        if op[5]:
            a = (attr_fact(op, "is_test"), attr_fact(op, "sorted"), _reduction(op), attr_fact(op, "to"))
        else:
            a = ((0, 0), (0, 0), 0, (0, 0))
        et = _target_type(f, op) if op.operator == "CastLike" else 0
        key = (kind, g, a, et)
        if cond is None and key in self._plain:
            return self._plain[key]
        tm = sc = dz = ng = "0"
        consts: list[str] = []
        pair = None
        check = ""
        if cond == table.TRAINING_MODE_NOT_FALSE and g[2]:
            c = self._resolve(f, op[3][2], "training_mode")
            tm, consts = training_term(c), [c.what]
        elif cond == table.DUPLICATE_INDICES and g[1] and a[2] != 2:
            c = self._resolve(f, op[3][1], "indices")
            sc, pair, check, notes = scatter_term(op, f, c)
            consts = [c.what, *notes]
        elif cond == table.ZERO_DIVISOR and g[1]:
            c = self._resolve(f, op[3][1], "divisor")
            dz, consts = elements_term(c, "zero"), [c.what]
        elif cond == table.NEGATIVE_TO_E8M0 and (a[3] == (1, E8M0) if op.operator == "Cast" else et == E8M0):
            if g[0]:
                c = self._resolve(f, op[3][0], "input")
                ng, consts = elements_term(c, "neg"), [c.what]
            else:
                ng, consts = "1", ["the input is omitted"]
        elif cond == table.NEGATIVE_TO_E8M0 and op.operator == "Cast" and a[3][0] != 1:
            consts = ["Cast's attribute 'to' is absent or not an INT, so the target type is not known"]
        d = self.codes.domain[table.normal_domain(op.domain)]
        p = self.codes.op[op.operator]
        (itk, itv), (sk, sv), rd, (tk, tv) = a
        rest = f"{num(itk)} {num(itv)} {num(sk)} {num(sv)} {rd} {g[0]} {g[1]} {g[2]} {num(tk)} {num(tv)} {et}"
        versions, why = vs
        calls = [f"(cls {d} {p} {v} {rest} {tm} {sc} {dz} {ng})" for v in versions or [0]]
        if len(calls) == 1:
            term = calls[0]
        else:
            same = " ".join(f"(= (mod {calls[0]} 4) (mod {c} 4))" for c in calls[1:])
            term = f"(ite (and {same}) {calls[0]} {1 + 4 * DISAGREE})"
        inst = Instance(term, why, tuple(consts), pair, check)
        if cond is None:
            self._plain[key] = inst
            if not op[5] and op.operator != "CastLike":
                self._quick[(op[1], op[0], g[0] == 1, g[1] == 1, g[2] == 1)] = inst
        return inst


def _reduction(op: Operation) -> int:
    r = op.attribute("reduction")
    if r is None:
        return 0
    return 1 if r.value in ("none", b"none") else 2


def _target_type(f: ScopeFacts, op: Operation) -> int:
    m = op[3]
    t = f.graph.tensors.get(m[1]) if len(m) > 1 and m[1] else None
    return 0 if t is None or t.type is None else int(t.type.elem_type)


def with_call_graphs(inst: Instance, op: Operation) -> Instance:
    """``inst`` for a call of a shadowing function: of unknown class where the table finds it deterministic but
    the call gives graph attributes (the standard operator would run them; no rule classifies them)."""
    if not any(a.type in ("GRAPH", "GRAPHS") for a in op.attributes):
        return inst
    term = f"(ite (= (mod {inst.term} 4) 0) {1 + 4 * CALL_GRAPHS} {inst.term})"
    return Instance(term, inst.why, inst.consts, inst.pair, inst.check)


def reason(code: int, inst: Instance) -> str:
    """The verdict's reason for an operation, from the entry number in the solver's code."""
    n = code // 4
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
