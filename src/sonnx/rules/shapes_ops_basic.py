"""Shape transfer functions of the element-wise and data-movement operators (spec/operators.rst, section 3).

One entry of :data:`BASIC` per operator of the default domain: given an
:class:`~.shapes_view.OpView`, the :class:`~.shapes_view.Info` of each output,
with the shape preconditions recorded on the view. Broadcasting follows
numpy's rule (two aligned dimensions are equal, or one of them is 1), as
ONNX's multidirectional broadcasting does. The small integer vectors of a
shape computation (``Shape``, then ``Gather``, ``Concat``, ``Unsqueeze``,
arithmetic...) are followed as terms, so that a ``Reshape`` fed by one is
still derived for every admissible input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .shapes_terms import (
    Cond,
    Term,
    any_of,
    eq,
    fdiv,
    ge,
    norm,
    norm_cond,
    pick,
    product,
)
from .shapes_view import Info, OpView, Uncovered, axis_of, same

Transfer = Callable[[OpView], list[Info]]

MAX_FOLLOWED = 64
"""The longest integer vector whose elements the analysis follows as terms."""


def followed(array: Any) -> tuple[tuple[Term, ...] | None, tuple[float, ...] | None]:
    """The elements of a stored rank-0 or rank-1 array the analysis follows: as integers, or as floats."""
    arr = np.asarray(array)
    if arr.ndim > 1 or arr.size > MAX_FOLLOWED:
        return None, None
    if np.issubdtype(arr.dtype, np.integer):
        return tuple(int(x) for x in arr.reshape(-1)), None
    if np.issubdtype(arr.dtype, np.floating):
        return None, tuple(float(x) for x in arr.reshape(-1))
    return None, None


def broadcast(v: OpView, shapes: Sequence[tuple[Term, ...]], what: str = "inputs") -> tuple[Term, ...]:
    """The multidirectional broadcast of ``shapes``, recording that aligned dimensions are equal or 1."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[Term] = []
    for pos in range(rank):
        dims = [s[len(s) - rank + pos] for s in shapes if len(s) - rank + pos >= 0]
        acc = dims[0]
        for d in dims[1:]:
            v.need(f"the {what} broadcast on axis {pos} (equal dimensions, or one of them 1)",
                   any_of((eq(acc, d), eq(acc, 1), eq(d, 1))))
            acc = pick(eq(acc, 1), d, acc)
        out.append(acc)
    return tuple(out)


def values_of(v: OpView) -> list[tuple[Term, ...]] | None:
    vals = [info.value if info is not None else None for info in v.inputs]
    if any(x is None for x in vals):
        return None
    return [x for x in vals if x is not None]


Combine = Callable[[OpView, Term, Term], Term]
"""How an element-wise operator combines two followed integer elements."""


def _int_div(v: OpView, a: Term, b: Term) -> Term:
    """Integer division as the runtimes do it for the non-negative operands of a shape computation."""
    if not isinstance(b, int) or b <= 0:
        raise Uncovered("a division of followed integers by a divisor that is not a positive constant")
    v.assume("a divided shape element is not negative", ge(a, 0))
    return fdiv(a, b)


def _int_mod(v: OpView, a: Term, b: Term) -> Term:
    """Integer Mod (``fmod`` 0: the sign of the divisor, Python's ``%``) of two followed constants."""
    if not isinstance(a, int) or not isinstance(b, int) or b == 0 or v.attr_int("fmod", 0):
        raise Uncovered("a Mod of followed integers that are not constants")
    return a % b


def _broadcast_values(v: OpView, vals: Sequence[tuple[Term, ...]], f: Callable[..., Term]) -> tuple[Term, ...] | None:
    n = max(len(x) for x in vals)
    if any(len(x) not in (1, n) for x in vals) or n > MAX_FOLLOWED:
        return None
    return tuple(norm(f(*(x[i if len(x) > 1 else 0] for x in vals))) for i in range(n))


def _elementwise(combine: Combine | None) -> Transfer:
    def transfer(v: OpView) -> list[Info]:
        shapes = [v.shape(k) for k in range(len(v.inputs)) if v.has(k)]
        out = broadcast(v, shapes)
        vals = values_of(v) if combine is not None and len(v.inputs) == 2 and len(out) <= 1 else None
        if vals is not None and combine is not None:
            return [Info(out, _broadcast_values(v, vals, lambda a, b: combine(v, a, b)))]
        return [Info(out)]

    return transfer


def _like_first(v: OpView) -> list[Info]:
    """One output of the first input's shape (and its followed elements: Identity, Cast)."""
    first = v.info(0)
    keep = first.value if v.op.operator in ("Identity", "Cast", "CastLike") else None
    return [Info(first.shape, keep)] + [Info(first.shape) for _ in v.op.output_mapping[1:]]


def _where(v: OpView) -> list[Info]:
    out = broadcast(v, [v.shape(0), v.shape(1), v.shape(2)])
    vals = values_of(v) if len(out) <= 1 else None
    if vals is None:
        return [Info(out)]
    return [Info(out, _broadcast_values(v, vals, lambda c, x, y: pick(eq(c, 0), y, x)))]


def _shape(v: OpView) -> list[Info]:
    dims = v.shape(0)
    rank = len(dims)
    start, end = v.attr_int("start", 0), v.op.attribute("end")
    stop = rank if end is None else int(end.value)
    lo = max(0, min(rank, start + rank if start < 0 else start))
    hi = max(0, min(rank, stop + rank if stop < 0 else stop))
    got = dims[lo:hi] if hi > lo else ()
    return [Info((len(got),), tuple(got))]


def _size(v: OpView) -> list[Info]:
    return [Info((), (product(v.shape(0)),))]


def _reshape(v: OpView) -> list[Info]:
    dims = v.shape(0)
    target = v.value(1, "shape")
    allowzero = v.attr_int("allowzero", 0)
    out: list[Term | None] = []
    for k, t in enumerate(target):
        if isinstance(t, int):
            if t == 0 and not allowzero:
                if k >= len(dims):
                    v.need(f"shape entry {k} is 0 where the input has rank {len(dims)}", False)
                    raise Uncovered("a 0 entry copies an axis the input lacks")
                out.append(dims[k])
            elif t == -1:
                out.append(None)
            elif t < -1:
                v.need(f"shape entry {k} is {t}", False)
                raise Uncovered("a negative shape entry other than -1")
            else:
                out.append(t)
        else:
            v.assume(f"shape entry {k} (computed) is at least 1", ge(t, 1))
            out.append(t)
    holes = [k for k, t in enumerate(out) if t is None]
    if len(holes) > 1:
        v.need("at most one shape entry is -1", False)
        raise Uncovered("two -1 entries")
    total = product(dims)
    known = product(t for t in out if t is not None)
    if holes:
        v.need("the element count is a multiple of the product of the other shape entries", _divides(known, total))
        quotient = _exact_quotient(total, known)
        out[holes[0]] = quotient
    else:
        v.need("the element count of the input equals that of the requested shape", eq(total, known))
    shape = tuple(t for t in out if t is not None)
    value = v.info(0).value
    return [Info(shape, value if value is not None and len(shape) <= 1 else None)]


def _divides(d: Term, n: Term) -> Cond:
    """``d`` is not 0 and divides ``n``."""
    import z3

    if isinstance(d, int) and isinstance(n, int):
        return d != 0 and n % d == 0
    return norm_cond(z3.And(d != 0, n % d == 0))


def _exact_quotient(n: Term, d: Term) -> Term:
    import z3

    if isinstance(n, int) and isinstance(d, int):
        return n // d if d else 0
    return norm(z3.If(d == 0, 0, n / d))


def _flatten(v: OpView) -> list[Info]:
    dims = v.shape(0)
    axis = v.attr_int("axis", 1)
    a = axis + len(dims) if axis < 0 else axis
    if not 0 <= a <= len(dims):
        v.need(f"axis {axis} lies in [-{len(dims)}, {len(dims)}]", False)
        raise Uncovered("axis out of range")
    return [Info((product(dims[:a]), product(dims[a:])))]


def _transpose(v: OpView) -> list[Info]:
    dims = v.shape(0)
    perm = v.attr_ints("perm")
    if perm is None:
        perm = tuple(reversed(range(len(dims))))
    if sorted(perm) != list(range(len(dims))):
        v.need(f"perm {list(perm)} is a permutation of the {len(dims)} axes", False)
        raise Uncovered("perm is not a permutation")
    return [Info(tuple(dims[p] for p in perm))]


def axes_of(v: OpView, k: int) -> tuple[int, ...] | None:
    """The ``axes`` of an operation: the attribute (older opsets) or input ``k``; None when neither is given."""
    got = v.attr_ints("axes")
    if got is not None:
        return got
    if v.has(k):
        return v.ints_of(k, "axes")
    return None


def _squeeze(v: OpView) -> list[Info]:
    dims = v.shape(0)
    axes = axes_of(v, 1)
    if axes is None:
        if not all(isinstance(d, int) for d in dims):
            raise Uncovered("Squeeze without axes removes the axes of size 1, unknown for a symbolic dimension")
        return [Info(tuple(d for d in dims if d != 1), v.info(0).value)]
    picked = {axis_of(v, a, len(dims)) for a in axes}
    for a in sorted(picked):
        same(v, f"the squeezed axis {a} has size 1", dims[a], 1)
    return [Info(tuple(d for i, d in enumerate(dims) if i not in picked), v.info(0).value)]


def _unsqueeze(v: OpView) -> list[Info]:
    dims = v.shape(0)
    axes = axes_of(v, 1)
    if axes is None:
        raise Uncovered("Unsqueeze without axes")
    rank = len(dims) + len(axes)
    picked = sorted({axis_of(v, a, rank) for a in axes})
    rest = iter(dims)
    out = tuple(1 if i in picked else next(rest) for i in range(rank))
    value = v.info(0).value
    return [Info(out, value if value is not None and len(out) <= 1 else None)]


def _concat(v: OpView) -> list[Info]:
    shapes = [v.shape(k) for k in range(len(v.inputs)) if v.has(k)]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        v.need("every input has the same rank", False)
        raise Uncovered("ranks differ")
    axis = axis_of(v, v.attr_int("axis"), rank)
    for k, s in enumerate(shapes[1:], 1):
        for i in range(rank):
            if i != axis:
                same(v, f"input {k} matches input 0 on axis {i}", s[i], shapes[0][i])
    out = list(shapes[0])
    out[axis] = norm(sum((s[axis] for s in shapes), start=0))
    vals = values_of(v)
    value = tuple(t for x in vals for t in x) if vals is not None and rank == 1 else None
    return [Info(tuple(out), value)]


UNARY = (
    "Abs", "Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "IsNaN", "IsInf", "Not", "Cast",
    "CastLike", "Identity", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign",
    "Floor", "Ceil", "Round", "Reciprocal", "Sign", "Sin", "Cos", "Tan", "Gelu", "Mish", "Celu", "ThresholdedRelu",
    "Clip", "Dropout", "CumSum", "Softmax", "LogSoftmax", "Hardmax", "QuantizeLinear", "DequantizeLinear",
    "Shrink", "BitwiseNot", "Trilu", "LpNormalization", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
)
"""Operators whose outputs have the shape of their first input (their axis, where they take one, is checked by
their own entry in :mod:`.shapes_ops_nn` when the operator fails on it)."""

BROADCASTING: dict[str, Combine | None] = {
    "Add": lambda v, a, b: a + b, "Sub": lambda v, a, b: a - b, "Mul": lambda v, a, b: a * b, "Div": _int_div,
    "Equal": lambda v, a, b: pick(eq(a, b), 1, 0), "Mod": _int_mod, "Pow": None,
    "Less": None, "Greater": None, "LessOrEqual": None,
    "GreaterOrEqual": None, "And": None, "Or": None, "Xor": None, "Max": None, "Min": None, "Sum": None,
    "Mean": None, "PRelu": None, "BitShift": None, "BitwiseAnd": None, "BitwiseOr": None, "BitwiseXor": None,
}

BASIC: dict[str, Transfer] = {
    **{name: _like_first for name in UNARY},
    **{name: _elementwise(f) for name, f in BROADCASTING.items()},
    "Where": _where, "Shape": _shape, "Size": _size, "Reshape": _reshape, "Flatten": _flatten,
    "Transpose": _transpose, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Concat": _concat,
}
