"""Shape transfer functions of the operators that select, repeat or resize (spec/operators.rst, section 3).

One entry of :data:`SELECT` per operator, in the form of :data:`.shapes_ops_basic.BASIC`:
gathers and slices with stored (or followed) indices, splits, expansions,
tiles, ``ConstantOfShape``, ``Range`` and ``Resize``. Indices, starts and
ends read from values the analysis does not follow leave the operation not
derived, or (for a gather) only its shape derived.
"""

from __future__ import annotations

import math

from .shapes_ops_basic import MAX_FOLLOWED, Transfer, broadcast, followed
from .shapes_terms import Term, all_of, cdiv, eq, ge, maximum, minimum, norm
from .shapes_view import Info, OpView, Uncovered, axis_of, same


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


SELECT: dict[str, Transfer] = {
    "Gather": _gather, "GatherElements": _gather_elements, "GatherND": _gather_nd, "Slice": _slice,
    "Split": _split, "Expand": _expand, "ConstantOfShape": _constant_of_shape, "Tile": _tile, "Resize": _resize,
    "DynamicQuantizeLinear": _dynamic_quantize, "Range": _range,
}
