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

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import z3

from .shapes_terms import (
    Cond,
    Term,
    all_of,
    any_of,
    cdiv,
    eq,
    fdiv,
    ge,
    maximum,
    minimum,
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


def _values(v: OpView) -> list[tuple[Term, ...]] | None:
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
        vals = _values(v) if combine is not None and len(v.inputs) == 2 and len(out) <= 1 else None
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
    vals = _values(v) if len(out) <= 1 else None
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
    if isinstance(d, int) and isinstance(n, int):
        return d != 0 and n % d == 0
    return norm_cond(z3.And(d != 0, n % d == 0))


def _exact_quotient(n: Term, d: Term) -> Term:
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


def _axes(v: OpView, k: int) -> tuple[int, ...] | None:
    """The ``axes`` of an operation: the attribute (older opsets) or input ``k``; None when neither is given."""
    got = v.attr_ints("axes")
    if got is not None:
        return got
    if v.has(k):
        return v.ints_of(k, "axes")
    return None


def _squeeze(v: OpView) -> list[Info]:
    dims = v.shape(0)
    axes = _axes(v, 1)
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
    axes = _axes(v, 1)
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
    vals = _values(v)
    value = tuple(t for x in vals for t in x) if vals is not None and rank == 1 else None
    return [Info(tuple(out), value)]


def _gather(v: OpView) -> list[Info]:
    dims, ind = v.shape(0), v.shape(1)
    axis = axis_of(v, v.attr_int("axis", 0), len(dims))
    size = dims[axis]
    value: tuple[Term, ...] | None = None
    if v.info(1).value is not None:
        indices = v.info(1).value or ()
        for i in indices:
            v.need(f"index {i} lies in [-size, size) of axis {axis}", all_of((ge(i, -size), ge(size - 1, i))))
        data = v.info(0).value
        if data is not None and len(dims) == 1 and all(isinstance(i, int) for i in indices):
            try:
                value = tuple(data[int(i)] for i in indices)
            except IndexError:
                value = None
    else:
        v.assume(f"the gathered axis {axis} is not empty (indices are read from values)", ge(size, 1))
    return [Info(tuple(dims[:axis]) + tuple(ind) + tuple(dims[axis + 1:]), value)]


def _gather_elements(v: OpView) -> list[Info]:
    dims, ind = v.shape(0), v.shape(1)
    if len(dims) != len(ind):
        v.need("data and indices have the same rank", False)
        raise Uncovered("ranks differ")
    return [Info(ind)]


def _gather_nd(v: OpView) -> list[Info]:
    dims, ind = v.shape(0), v.shape(1)
    b = v.attr_int("batch_dims", 0)
    if not ind or not isinstance(ind[-1], int):
        raise Uncovered("the last axis of the indices is not a fixed size")
    m = ind[-1]
    if not (1 <= m <= len(dims) - b and b < min(len(dims), len(ind))):
        v.need("indices address at most the axes of data after the batch axes", False)
        raise Uncovered("indices too long")
    for i in range(b):
        same(v, f"data and indices agree on batch axis {i}", dims[i], ind[i])
    return [Info((*ind[:-1], *dims[b + m:]))]


def _slice(v: OpView) -> list[Info]:
    dims = v.shape(0)
    if v.opset < 10:
        starts, ends = v.attr_ints("starts") or (), v.attr_ints("ends") or ()
        axes = v.attr_ints("axes") or tuple(range(len(starts)))
        steps: tuple[int, ...] = (1,) * len(starts)
    else:
        starts, ends = v.ints_of(1, "starts"), v.ints_of(2, "ends")
        axes = v.ints_of(3, "axes") if v.has(3) else tuple(range(len(starts)))
        steps = v.ints_of(4, "steps") if v.has(4) else (1,) * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        v.need("starts, ends, axes and steps have one entry each per sliced axis", False)
        raise Uncovered("lengths differ")
    out = list(dims)
    for s, e, a, st in zip(starts, ends, axes, steps, strict=True):
        ax = axis_of(v, a, len(dims))
        if st == 0:
            v.need(f"the step on axis {ax} is not 0", False)
            raise Uncovered("a zero step")
        out[ax] = _slice_length(dims[ax], s, e, st)
    value = v.info(0).value
    if value is not None and len(dims) == 1 and len(starts) == 1 and steps[0] > 0 and dims[0] == len(value):
        value = tuple(value[slice(starts[0], ends[0], steps[0])])  # Python's clamping is ONNX's for a step > 0
    else:
        value = None
    return [Info(tuple(out), value)]


def _clamp(x: Term, lo: Term, hi: Term) -> Term:
    return minimum(maximum(x, lo), hi)


def _slice_length(size: Term, start: int, end: int, step: int) -> Term:
    """How many elements a slice keeps, after ONNX's adjustment and clamping of ``start`` and ``end``."""
    big = 2**62
    s: Term = start + size if start < 0 else start
    e: Term = end + size if end < 0 else (min(end, big))
    if step > 0:
        s, e = _clamp(s, 0, size), _clamp(e, 0, size)
        span = e - s
    else:
        s, e = _clamp(s, 0, size - 1), _clamp(e, -1, size - 1)
        span = s - e
    width = abs(step)
    return maximum(0, norm((span + width - 1) / width) if not isinstance(span, int) else -(-span // width))


def _split(v: OpView) -> list[Info]:
    dims = v.shape(0)
    axis = axis_of(v, v.attr_int("axis", 0), len(dims))
    count = len(v.op.output_mapping)
    parts = v.attr_ints("split")
    if parts is None and v.has(1):
        parts = v.ints_of(1, "split")
    size = dims[axis]
    if parts is not None:
        if len(parts) != count:
            v.need("split has one entry per output", False)
            raise Uncovered("split length")
        same(v, f"the split sizes add up to axis {axis}", size, sum(parts))
        sizes: list[Term] = list(parts)
    elif v.opset >= 18 and v.op.attribute("num_outputs") is not None:
        n = v.attr_int("num_outputs")
        chunk = norm((size + n - 1) / n) if not isinstance(size, int) else -(-size // n)
        sizes = [chunk] * (n - 1) + [norm(size - chunk * (n - 1))]
        v.need(f"axis {axis} is long enough for {n} parts", ge(size - chunk * (n - 1), 1))
    else:
        v.need(f"axis {axis} splits into {count} equal parts", eq(norm(size % count) if not isinstance(size, int)
                                                                   else size % count, 0))
        sizes = [norm(size / count) if not isinstance(size, int) else size // count] * count
    return [Info((*dims[:axis], sz, *dims[axis + 1:])) for sz in sizes]


def _expand(v: OpView) -> list[Info]:
    return [Info(broadcast(v, [v.shape(0), v.value(1, "shape")], "input and the shape"))]


def _constant_of_shape(v: OpView) -> list[Info]:
    target = v.value(0, "shape")
    for k, t in enumerate(target):
        v.need(f"shape entry {k} is not negative", ge(t, 0))
    fill = v.op.attribute("value")
    value = None
    if fill is not None and fill.type == "TENSOR" and len(target) <= 1 and all(isinstance(t, int) for t in target):
        count = int(target[0]) if target else 1
        element = followed(fill.value.read())[0]
        if element is not None and len(element) == 1 and count <= MAX_FOLLOWED:
            value = element * count
    return [Info(tuple(target), value)]


def _tile(v: OpView) -> list[Info]:
    dims, reps = v.shape(0), v.value(1, "repeats")
    if len(reps) != len(dims):
        v.need("repeats has one entry per axis", False)
        raise Uncovered("repeats length")
    return [Info(tuple(norm(d * r) for d, r in zip(dims, reps, strict=True)))]


def _resize(v: OpView) -> list[Info]:
    x = v.shape(0)
    if v.attr_ints("axes") is not None or v.attr_str("coordinate_transformation_mode", "") == "tf_crop_and_resize":
        raise Uncovered("Resize with axes or tf_crop_and_resize")
    if v.has(3):
        sizes = v.value(3, "sizes")
        if v.attr_str("keep_aspect_ratio_policy", "stretch") != "stretch" or len(sizes) != len(x):
            raise Uncovered("Resize sizes kept to an aspect ratio")
        return [Info(tuple(sizes))]
    if not v.has(2):
        raise Uncovered("Resize without scales or sizes")
    scales = v.info(2).floats
    if scales is None:
        raise Uncovered("its scales input is not a stored constant")
    if len(scales) != len(x) or not all(s == int(s) and s >= 1 for s in scales):
        raise Uncovered("Resize scales that are not whole numbers of at least 1")
    return [Info(tuple(norm(d * int(s)) for d, s in zip(x, scales, strict=True)))]


def _range(v: OpView) -> list[Info]:
    """Range of stored (or followed integer) start, limit and delta: ``max(ceil((limit - start) / delta), 0)``."""
    got = [v.info(k) for k in range(3)]
    if all(i.value is not None and len(i.value) == 1 for i in got):
        start, limit, delta = (i.value[0] for i in got)  # type: ignore[index]
        if not isinstance(delta, int) or delta == 0:
            v.need("delta is not 0", delta != 0 if isinstance(delta, int) else True)
            raise Uncovered("a delta that is 0 or depends on the input dimensions")
        span = norm(limit - start) if delta > 0 else norm(start - limit)
        return [Info((maximum(cdiv(span, abs(delta)), 0),))]
    if all(i.floats is not None and len(i.floats) == 1 for i in got):
        start_f, limit_f, delta_f = (i.floats[0] for i in got)  # type: ignore[index]
        if delta_f == 0:
            v.need("delta is not 0", False)
            raise Uncovered("a zero delta")
        return [Info((max(math.ceil((limit_f - start_f) / delta_f), 0),))]
    raise Uncovered("its start, limit or delta is computed from values (the output size depends on them)")


def _dynamic_quantize(v: OpView) -> list[Info]:
    return [Info(v.shape(0)), Info(()), Info(())]


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
    "Transpose": _transpose, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Concat": _concat, "Gather": _gather,
    "GatherElements": _gather_elements, "GatherND": _gather_nd, "Slice": _slice, "Split": _split, "Expand": _expand,
    "ConstantOfShape": _constant_of_shape, "Tile": _tile, "Resize": _resize,
    "DynamicQuantizeLinear": _dynamic_quantize, "Range": _range,
}
