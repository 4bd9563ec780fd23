"""Einsum: ``out[out-term] = sum over the other labels of prod_i input_i[term_i]`` (Einstein summation).

The equation names each operand's axes with letters (``a``-``z`` and ``A``-``Z``,
distinct), optionally with one ``...`` standing for the same number of
broadcast axes in every operand. ``term1,term2->out`` gives the output axes
explicitly; without ``->`` the output is ``...`` followed by the labels that
occur exactly once, in ASCII order. A label repeated in one term takes the
diagonal. Spaces are ignored.

sonnx checks the equation against the operands (syntax, number of terms,
ranks, one size per label, a label of the output occurs on the left, at most
once) and then evaluates the explicit form with ``numpy.einsum``; float16 and
bfloat16 are summed in float32. Versions 12 and 28 differ only in the element
types (28 adds bfloat16).
"""

from __future__ import annotations

import string
from collections import Counter
from typing import Any

import numpy as np

from ._indexing import text
from ._windows import accumulation_dtype
from .base import Kernel

_LETTERS = frozenset(string.ascii_letters)


def _term(term: str, where: str) -> tuple[str, bool]:
    """The letters of one term and whether it holds an ellipsis; refused unless well formed."""
    has_ellipsis = "..." in term
    letters = term.replace("...", "", 1) if has_ellipsis else term
    bad = sorted(set(letters) - _LETTERS)
    if bad:
        what = "more than one ellipsis or a stray '.'" if "." in bad else f"characters {bad}"
        raise ValueError(f"Einsum: {where} '{term}' has {what}")
    return letters, has_ellipsis


def explicit_equation(equation: str, shapes: list[tuple[int, ...]]) -> str:
    """The equation in explicit form (``lhs->rhs``, no spaces), checked against the operand shapes."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise ValueError(f"Einsum: equation '{equation}' has more than one '->'")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"Einsum: equation '{equation}' has {len(terms)} input terms for {len(shapes)} inputs")
    sizes: dict[str, int] = {}
    ellipsis_rank: int | None = None
    for i, (term, shape) in enumerate(zip(terms, shapes, strict=True)):
        letters, has_ellipsis = _term(term, f"input term {i}")
        extra = len(shape) - len(letters)
        if extra < 0 or (extra > 0 and not has_ellipsis):
            raise ValueError(f"Einsum: input term {i} '{term}' does not match the input's rank {len(shape)}")
        if has_ellipsis:
            if ellipsis_rank is not None and extra != ellipsis_rank:
                raise ValueError(
                    f"Einsum: '...' stands for {ellipsis_rank} axes in one term and {extra} in input term {i}"
                )
            ellipsis_rank = extra
        named = shape
        if has_ellipsis:  # the letters before '...' name the leading axes, those after it the trailing ones
            before = term.index("...")
            named = shape[:before] + shape[before + extra :]
        for label, size in zip(letters, named, strict=True):
            if sizes.setdefault(label, size) != size:
                raise ValueError(f"Einsum: label '{label}' has sizes {sizes[label]} and {size}")
    counts = Counter("".join(t.replace("...", "") for t in terms))
    if arrow:
        out_letters, out_ellipsis = _term(rhs, "output term")
        unknown = sorted(set(out_letters) - set(counts))
        if unknown:
            raise ValueError(f"Einsum: output labels {unknown} do not occur in an input term")
        repeated = sorted(k for k, v in Counter(out_letters).items() if v > 1)
        if repeated:
            raise ValueError(f"Einsum: output labels {repeated} are repeated")
        if ellipsis_rank and not out_ellipsis:
            raise ValueError("Einsum: the inputs have '...' axes but the output term has no '...'")
        return f"{lhs}->{rhs}"
    once = "".join(sorted(k for k, v in counts.items() if v == 1))
    return f"{lhs}->{'...' if ellipsis_rank is not None else ''}{once}"


def einsum(*inputs: np.ndarray, equation: str | bytes | None = None, **_attrs: Any) -> np.ndarray:
    """Einsum-12, -28."""
    if equation is None:
        raise ValueError("Einsum: the equation attribute is required")
    if not inputs:
        raise ValueError("Einsum: at least one input is required")
    eq = text(equation)
    dtype = inputs[0].dtype
    if any(x.dtype != dtype for x in inputs):
        raise ValueError(f"Einsum: inputs have different element types {[str(x.dtype) for x in inputs]}")
    explicit = explicit_equation(eq, [x.shape for x in inputs])
    acc = accumulation_dtype(dtype)
    operands = [x.astype(acc, copy=False) for x in inputs]
    out = np.einsum(explicit, *operands, optimize=len(operands) > 1)
    return np.asarray(out).astype(dtype, copy=False)


KERNELS = (Kernel("Einsum", (12, 28), einsum),)
