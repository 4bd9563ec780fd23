"""Terms of GRAPH-R2's conditions on casts, repeated axes and locales, over an operation's raw facts.

The determinism table's conditions that read constants or attribute lists
(spec, GRAPH-R2; reading A8), written as SMT-LIB terms whose value is a class
(0 deterministic, 1 unknown, 2 nondeterministic):

* a cast to an integer type: the input's elements (exact IEEE doubles) are
  NaN, infinite, or outside [lo, hi] of the target, compared as exact reals
  (``fp.to_real``); the ranges are SMT functions ``lo``, ``hi`` of the type
  code, rendered from the shared table ``INTEGER_RANGES``. A value known only
  at run time is deterministic when its declared element type is one the text
  converts by defined rules (``exact``), else unknown;
* repeated axes: the axes as integer numerals and the data's declared rank
  (-1 when not declared); two equal axes, or equal after a negative one is
  counted from the back of the rank, are nondeterministic; negative and other
  axes against an undeclared rank are unknown;
* the locale of ``StringNormalizer``: its attributes as codes.

The lister (:mod:`.classify`) gives the facts; these terms and the solver
decide.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..model.graph import Operation
from ..rules import determinism_table as table
from ..rules.graph_r2_conditions import text
from .constants import RUNTIME, VALUE, Const, attr_fact, num, terms


def any_of(xs: Sequence[str]) -> str:
    """The SMT-LIB disjunction of ``xs``: ``false`` when empty, the term itself when alone."""
    return "false" if not xs else xs[0] if len(xs) == 1 else f"(or {' '.join(xs)})"


def _distinct(xs: Sequence[str]) -> str:
    return f"(distinct {' '.join(xs)})" if len(xs) > 1 else "true"


def type_functions() -> list[str]:
    """The integer element types with their ranges, and the types converted to integers by defined rules."""
    ranges = sorted(table.INTEGER_RANGES.items())
    lo = hi = "0"
    for t, (a, b) in reversed(ranges):
        lo, hi = f"(ite (= t {t}) {num(a)} {lo})", f"(ite (= t {t}) {num(b)} {hi})"
    return [
        "; integer element types (sonnx.rules.determinism_table.INTEGER_RANGES), their least and greatest values, and",
        ";   the element types that convert to an integer type by defined rules (EXACT_SOURCES)",
        f"(define-fun integer ((t Int)) Bool (or {' '.join(f'(= t {t})' for t, _ in ranges)}))",
        f"(define-fun lo ((t Int)) Int {lo})",
        f"(define-fun hi ((t Int)) Int {hi})",
        f"(define-fun exact ((t Int)) Bool (or {' '.join(f'(= t {t})' for t in sorted(table.EXACT_SOURCES))}))",
    ]


def range_term(c: Const, target: int, source: int) -> str:
    """Class of "some element is out of the integer ``target``'s range" on the input of a cast whose declared
    element type is ``source`` (0: none)."""
    fallback = f"(ite (exact {source}) 0 1)"
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {c.kind} {VALUE}) 0 {fallback})"
    a = c.array
    if a.dtype.kind not in table.NUMERIC_KINDS:
        return "1"
    hits = []
    if a.dtype.kind == "f":
        for x in terms(a):
            r = f"(fp.to_real {x})"
            hits.append(f"(or (fp.isNaN {x}) (fp.isInfinite {x}) (< {r} (lo {target})) (< (hi {target}) {r}))")
    return f"(ite (= {c.kind} {VALUE}) (ite {any_of(hits)} 2 0) {fallback})"


def axes_term(axes: Sequence[int], rank: int | None) -> str:
    """Class of "two axes name one axis" for constant ``axes`` of data of declared ``rank`` (None: not declared)."""
    r = -1 if rank is None else rank
    raw = [num(a) for a in axes]
    counted = [f"(ite (< {x} 0) (+ {x} {r}) {x})" for x in raw]
    mixed = f"(and {any_of([f'(< {x} 0)' for x in raw])} {any_of([f'(<= 0 {x})' for x in raw])})"
    return f"(ite (not {_distinct(raw)}) 2 (ite (< {r} 0) (ite {mixed} 1 0) (ite {_distinct(counted)} 0 2)))"


def axes_attribute_term(op: Operation, rank: int | None) -> tuple[str, list[str]]:
    """:func:`axes_term` on the attribute ``axes`` (none: deterministic; not a list of integers: unknown), and
    notes for the reason."""
    a = op.attribute("axes")
    if a is None:
        return "0", []
    if a.type != "INTS":
        return "1", ["the attribute 'axes' is not a list of integers"]
    return axes_term([int(x) for x in a.value], rank), []


def axes_value_term(c: Const, rank: int | None) -> str:
    """:func:`axes_term` on the axes input ``c`` (unknown when it is not a constant of integers)."""
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {c.kind} {VALUE}) 0 1)"
    if c.array.dtype.kind not in table.INDEX_KINDS:
        return "1"
    return axes_term([int(x) for x in c.array.reshape(-1).tolist()], rank)


def locale_term(action: int, sensitive: tuple[int, int], stopwords: int) -> str:
    """Class of StringNormalizer's use of the locale from its attributes' codes: ``action`` 0 absent, 1 NONE,
    2 LOWER or UPPER, 3 anything else; ``sensitive`` as ``attr_fact``; ``stopwords`` 0 absent or empty, 1
    some, 2 not a list of strings."""
    k, v = sensitive
    sensitive_list = f"(and (= {stopwords} 1) (= {k} 1) (distinct {num(v)} 0))"
    return f"(ite (and (<= {action} 1) (or (= {stopwords} 0) {sensitive_list})) 0 1)"


def locale_attributes_term(op: Operation) -> str:
    """:func:`locale_term` on the attributes of a StringNormalizer."""
    a, s = op.attribute("case_change_action"), op.attribute("stopwords")
    act = text(a.value) if a is not None and a.type == "STRING" else None
    action = 0 if a is None else {"NONE": 1, "LOWER": 2, "UPPER": 2}.get(act or "", 3)
    stopwords = 0 if s is None or (s.type == "STRINGS" and not s.value) else 1 if s.type == "STRINGS" else 2
    return locale_term(action, attr_fact(op, "is_case_sensitive"), stopwords)


def _element_tests(c: Const | None) -> tuple[str, str, str, str]:
    """(some NaN, some zero, some infinity, not a constant of numbers) on the value ``c`` (None: omitted)."""
    if c is None or c.array is None or c.kind != VALUE or c.array.dtype.kind not in table.NUMERIC_KINDS:
        return "false", "false", "false", "true"
    xs = terms(c.array)
    if c.array.dtype.kind in "iub":
        return "false", any_of([f"(= {x} 0)" for x in xs]), "false", "false"
    return (
        any_of([f"(fp.isNaN {x})" for x in xs]),
        any_of([f"(fp.isZero {x})" for x in xs]),
        any_of([f"(fp.isInfinite {x})" for x in xs]),
        "false",
    )


def quantize_term(output_dtype: tuple[int, int], zero_point: tuple[int, int], x: Const | None, s: Const | None) -> str:
    """Class of "x / y_scale may be NaN with an integer output" for a QuantizeLinear: ``output_dtype`` as
    ``attr_fact``, ``zero_point`` (given, declared element type), and the input and scale values (None: omitted).
    The output type is ``output_dtype`` when set, else the zero point's, else UINT8 (2)."""
    (odk, odv), (zg, zt) = output_dtype, zero_point
    out = f"(ite (and (= {odk} 1) (distinct {num(odv)} 0)) {num(odv)} (ite (= {zg} 0) 2 {zt}))"
    if x is None:
        quotient = "1"
    else:
        (xn, x0, xi, xbad), (sn, s0, si, sbad) = _element_tests(x), _element_tests(s)
        size = 0 if x.array is None else int(x.array.size)
        quotient = (
            f"(ite {xn} 2 (ite (or {xbad} {sbad}) 1 (ite (and {sn} (< 0 {size})) 2"
            f" (ite (or (and {x0} {s0}) (and {xi} {si})) 1 0))))"
        )
    return f"(ite (= {odk} 2) 1 (ite (= {out} 0) 1 (ite (integer {out}) {quotient} 0)))"


def dynamic_quantize_term(x: Const | None) -> str:
    """Class of "the quotient may be NaN" for a DynamicQuantizeLinear of ``x`` (None: omitted): a NaN or an
    infinity, or zeros only (a scale of 0), in a constant input decide it; any other input is unknown."""
    xn, _, xi, xbad = _element_tests(x)
    if xbad == "true" or x is None or x.array is None:
        return "1"
    xs = terms(x.array)
    nonzero = [f"(distinct {v} 0)" if x.array.dtype.kind in "iub" else f"(not (fp.isZero {v}))" for v in xs]
    return f"(ite (or {xn} {xi} (not {any_of(nonzero)})) 2 0)"


def _nonzero(x: str, a: np.ndarray) -> str:
    return f"(distinct {x} 0)" if a.dtype.kind in "iub" else f"(not (fp.isZero {x}))"


def training_term(c: Const) -> str:
    """Class of BatchNormalization's ``training_mode`` condition: deterministic only for one false element."""
    if c.array is not None and c.array.dtype.kind not in table.NUMERIC_KINDS:
        return "1"
    first = _nonzero(terms(c.array.reshape(-1)[:1])[0], c.array) if c.array is not None and c.array.size else "false"
    size = 0 if c.array is None else int(c.array.size)
    k = c.kind
    return f"(ite (= {k} {RUNTIME}) 2 (ite (distinct {k} {VALUE}) 1 (ite (distinct {size} 1) 2 (ite {first} 2 0))))"


def elements_term(c: Const, test: str) -> str:
    """Class of a condition "some element passes ``test``" (zero, negative) on a constant."""
    if c.kind != VALUE or c.array is None:
        return f"(ite (= {c.kind} {VALUE}) 0 1)"
    a = c.array
    if a.dtype.kind not in table.NUMERIC_KINDS:
        return "1"
    xs = terms(a)
    if a.dtype.kind in "iub":
        hits = [f"(= {x} 0)" if test == "zero" else f"(< {x} 0)" for x in xs]
    else:
        hits = [f"(fp.isZero {x})" if test == "zero" else f"(fp.isNegative {x})" for x in xs]
    return f"(ite (= {c.kind} {VALUE}) (ite {any_of(hits)} 2 0) 1)"
