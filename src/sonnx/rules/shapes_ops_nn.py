"""Shape transfer functions of the neural-network operators (spec/operators.rst, section 3).

Convolution and pooling output sizes use exact integer floor and ceiling
division (:func:`~.shapes_terms.fdiv`, :func:`~.shapes_terms.cdiv`); the
conditions recorded are those the runtimes refuse to run without: the inner
dimensions of a product agree, channels agree with the weights, every output
size of a window operator is at least 1, and so on.
"""

from __future__ import annotations

from .shapes_ops_basic import Transfer, broadcast
from .shapes_terms import Term, any_of, cdiv, eq, fdiv, ge, norm, product
from .shapes_view import Info, OpView, Uncovered, axis_of, same


def _window(v: OpView, spatial: tuple[Term, ...], kernel: tuple[int, ...], ceil: bool) -> tuple[Term, ...]:
    """Output sizes of a sliding window over ``spatial`` (Conv, pooling), recording that each is at least 1."""
    k = len(kernel)
    strides = v.attr_ints("strides") or (1,) * k
    dilations = v.attr_ints("dilations") or (1,) * k
    pads = v.attr_ints("pads") or (0,) * (2 * k)
    auto_pad = v.attr_str("auto_pad", "NOTSET")
    if len(strides) != k or len(dilations) != k or len(pads) != 2 * k:
        v.need("strides, dilations and pads have one entry (pads two) per spatial axis", False)
        raise Uncovered("attribute lengths")
    if min(strides, default=1) < 1 or min(dilations, default=1) < 1:
        v.need("strides and dilations are at least 1", False)
        raise Uncovered("a stride or dilation below 1")
    out: list[Term] = []
    for i, (d, kk, s, dil) in enumerate(zip(spatial, kernel, strides, dilations, strict=True)):
        extent = dil * (kk - 1) + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            size = cdiv(d, s)
        else:
            room = norm(d + (0 if auto_pad == "VALID" else pads[i] + pads[i + k]) - extent)
            v.need(f"the window of spatial axis {i} fits the padded input (output size at least 1)", ge(room, 0))
            size = norm((cdiv(room, s) if ceil else fdiv(room, s)) + 1)
        out.append(size)
    return tuple(out)


def _conv(v: OpView) -> list[Info]:
    x, w = v.shape(0), v.shape(1)
    if len(x) < 3 or len(x) != len(w):
        v.need("X and W have the same rank, at least 3", False)
        raise Uncovered("ranks")
    group = v.attr_int("group", 1)
    kernel = v.attr_ints("kernel_shape") or w[2:]
    if not all(isinstance(t, int) for t in kernel):
        raise Uncovered("the kernel size depends on the input dimensions")
    for i, (a, b) in enumerate(zip(kernel, w[2:], strict=True)):
        same(v, f"kernel_shape matches W on spatial axis {i}", a, b)
    same(v, "the channels of X equal those of W times group", x[1], norm(w[1] * group))
    v.need("the output channels are a multiple of group", eq(norm(w[0] % group) if not isinstance(w[0], int)
                                                             else w[0] % group, 0))
    if v.has(2):
        b = v.shape(2)
        if len(b) != 1:
            v.need("B has rank 1", False)
        else:
            same(v, "B has one entry per output channel", b[0], w[0])
    spatial = _window(v, x[2:], tuple(int(t) for t in kernel), ceil=False)
    return [Info((x[0], w[0], *spatial))]


def _conv_transpose(v: OpView) -> list[Info]:
    x, w = v.shape(0), v.shape(1)
    if len(x) < 3 or len(x) != len(w):
        v.need("X and W have the same rank, at least 3", False)
        raise Uncovered("ranks")
    if v.op.attribute("output_shape") is not None or v.attr_str("auto_pad", "NOTSET") != "NOTSET":
        raise Uncovered("output_shape or auto_pad of ConvTranspose")
    group = v.attr_int("group", 1)
    k = len(x) - 2
    kernel = v.attr_ints("kernel_shape") or w[2:]
    strides = v.attr_ints("strides") or (1,) * k
    dil = v.attr_ints("dilations") or (1,) * k
    pads = v.attr_ints("pads") or (0,) * (2 * k)
    extra = v.attr_ints("output_padding") or (0,) * k
    same(v, "the channels of X equal the first dimension of W", x[1], w[0])
    out: list[Term] = []
    for i in range(k):
        size = norm(strides[i] * (x[2 + i] - 1) + extra[i] + (kernel[i] - 1) * dil[i] + 1 - pads[i] - pads[i + k])
        v.need(f"the output size of spatial axis {i} is at least 1", ge(size, 1))
        out.append(size)
    return [Info((x[0], norm(w[1] * group), *out))]


def _pool(v: OpView) -> list[Info]:
    x = v.shape(0)
    kernel = v.attr_ints("kernel_shape")
    if kernel is None or len(kernel) != len(x) - 2:
        v.need("kernel_shape has one entry per spatial axis", False)
        raise Uncovered("kernel_shape")
    spatial = _window(v, x[2:], kernel, ceil=bool(v.attr_int("ceil_mode", 0)))
    shape = (x[0], x[1], *spatial)
    if v.attr_int("ceil_mode", 0):
        strides = v.attr_ints("strides") or (1,) * len(kernel)
        dil = v.attr_ints("dilations") or (1,) * len(kernel)
        if any(p > 0 for p in v.attr_ints("pads") or ()) or any(
            s > (k - 1) * d + 1 for s, k, d in zip(strides, kernel, dil, strict=False)
        ):
            raise Uncovered("ceil_mode with a last window that may start past the input (the runtimes differ)")
    return [Info(shape) for _ in v.op.output_mapping]


def _global_pool(v: OpView) -> list[Info]:
    x = v.shape(0)
    if len(x) < 2:
        v.need("X has rank at least 2", False)
        raise Uncovered("rank")
    return [Info((x[0], x[1], *(1 for _ in x[2:])))]


def _matmul(v: OpView) -> list[Info]:
    a, b = v.shape(0), v.shape(1)
    if not a or not b:
        v.need("both inputs have rank at least 1", False)
        raise Uncovered("a scalar operand")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    same(v, "the inner dimensions agree", a2[-1], b2[-2])
    batch = broadcast(v, [a2[:-2], b2[:-2]], "batch dimensions")
    out = (*batch, *(a2[-2:-1] if len(a) > 1 else ()), *(b2[-1:] if len(b) > 1 else ()))
    return [Info(tuple(out))]


def _gemm(v: OpView) -> list[Info]:
    a, b = v.shape(0), v.shape(1)
    if len(a) != 2 or len(b) != 2:
        v.need("A and B have rank 2", False)
        raise Uncovered("ranks")
    m, ka = (a[1], a[0]) if v.attr_int("transA", 0) else (a[0], a[1])
    kb, n = (b[1], b[0]) if v.attr_int("transB", 0) else (b[0], b[1])
    same(v, "the inner dimensions agree", ka, kb)
    if v.has(2):
        c = v.shape(2)
        if len(c) > 2:
            v.need("C has rank at most 2", False)
        for pos, (dc, dt) in enumerate(zip(reversed(c), (n, m), strict=False)):
            v.need(f"C broadcasts to (M, N) on axis {1 - pos}", any_of((eq(dc, dt), eq(dc, 1))))
    return [Info((m, n))]


def _per_channel(v: OpView, first: int, what: str) -> tuple[Term, ...]:
    x = v.shape(0)
    if len(x) < 2:
        v.need("X has rank at least 2", False)
        raise Uncovered("rank")
    for k in range(first, len(v.inputs)):
        if v.has(k):
            s = v.shape(k)
            if len(s) != 1:
                v.need(f"input {k} ({what}) has rank 1", False)
            else:
                same(v, f"input {k} ({what}) has one entry per channel", s[0], x[1])
    return x


def _batch_norm(v: OpView) -> list[Info]:
    x = _per_channel(v, 1, "scale, bias, mean or variance")
    return [Info(x)] + [Info((x[1],)) for _ in v.op.output_mapping[1:]]


def _instance_norm(v: OpView) -> list[Info]:
    return [Info(_per_channel(v, 1, "scale or bias"))]


def _layer_norm(v: OpView) -> list[Info]:
    x = v.shape(0)
    axis = axis_of(v, v.attr_int("axis", -1), len(x))
    same(v, "Scale has as many elements as the normalized axes", product(v.shape(1)), product(x[axis:]))
    if v.has(2):
        same(v, "B has as many elements as the normalized axes", product(v.shape(2)), product(x[axis:]))
    stats = (*x[:axis], *(1 for _ in x[axis:]))
    return [Info(x)] + [Info(stats) for _ in v.op.output_mapping[1:]]


def _softmax(v: OpView) -> list[Info]:
    x = v.shape(0)
    if x:
        axis_of(v, v.attr_int("axis", -1 if v.opset >= 13 else 1), len(x))
    return [Info(x)]


def _along_axis(v: OpView) -> list[Info]:
    """One output of the input's shape, the ``axis`` attribute in range (Hardmax, LpNormalization)."""
    x = v.shape(0)
    axis_of(v, v.attr_int("axis", -1 if v.op.operator != "Hardmax" or v.opset >= 13 else 1), len(x))
    return [Info(x)]


def _cumsum(v: OpView) -> list[Info]:
    x = v.shape(0)
    (axis,) = v.ints_of(1, "axis")
    axis_of(v, axis, len(x))
    return [Info(x)]


def _trilu(v: OpView) -> list[Info]:
    x = v.shape(0)
    if len(x) < 2:
        v.need("the input has rank at least 2", False)
    return [Info(x)]


def _quantize(v: OpView) -> list[Info]:
    """Q/DQ: the input's shape; a per-axis scale (and zero point) has one entry per element of the axis."""
    x = v.shape(0)
    for k in (1, 2):
        if not v.has(k):
            continue
        s = v.shape(k)
        if len(s) == 1 and not (isinstance(s[0], int) and s[0] == 1):
            a = axis_of(v, v.attr_int("axis", 1), len(x))
            same(v, f"input {k} has one entry per element of axis {a}", s[0], x[a])
        elif len(s) > 1 and v.op.attribute("block_size") is None:
            v.need(f"input {k} is a scalar or a vector", False)
    return [Info(x)]


_AXES_AS_INPUT = {"ReduceSum": 13}
"""The opset from which a reduction takes its axes as an input (18 for the others)."""


def _reduce(v: OpView) -> list[Info]:
    x = v.shape(0)
    keep = v.attr_int("keepdims", 1)
    axes = v.attr_ints("axes")
    if axes is None and v.opset >= _AXES_AS_INPUT.get(v.op.operator, 18) and v.has(1):
        axes = v.ints_of(1, "axes")
    if not axes:
        if axes is not None and v.attr_int("noop_with_empty_axes", 0):
            return [Info(x)]
        axes = tuple(range(len(x)))
    picked = {axis_of(v, a, len(x)) for a in axes}
    for a in sorted(picked):
        if v.op.operator in ("ReduceMax", "ReduceMin", "ArgMax", "ArgMin"):
            v.need(f"the reduced axis {a} is not empty", ge(x[a], 1))
    out = tuple((1 if i in picked else d) for i, d in enumerate(x) if keep or i not in picked)
    return [Info(out)]


def _arg(v: OpView) -> list[Info]:
    x = v.shape(0)
    a = axis_of(v, v.attr_int("axis", 0), len(x))
    v.need(f"the reduced axis {a} is not empty", ge(x[a], 1))
    keep = v.attr_int("keepdims", 1)
    return [Info(tuple((1 if i == a else d) for i, d in enumerate(x) if keep or i != a))]


def _pad(v: OpView) -> list[Info]:
    x = v.shape(0)
    pads = v.attr_ints("pads") if v.opset < 11 else v.ints_of(1, "pads")
    axes = tuple(range(len(x)))
    if v.opset >= 18 and v.has(3):
        axes = tuple(axis_of(v, a, len(x)) for a in v.ints_of(3, "axes"))
    if pads is None or len(pads) != 2 * len(axes):
        v.need("pads has two entries per padded axis", False)
        raise Uncovered("pads length")
    mode = v.attr_str("mode", "constant")
    out = list(x)
    for j, a in enumerate(axes):
        lo, hi = pads[j], pads[j + len(axes)]
        out[a] = norm(x[a] + lo + hi)
        v.need(f"the padded size of axis {a} is not negative", ge(out[a], 0))
        if mode == "reflect" and (lo > 0 or hi > 0):
            v.need(f"reflect pads of axis {a} are shorter than the axis", ge(x[a] - 1, max(lo, hi)))
        elif mode == "edge" and (lo > 0 or hi > 0):
            v.need(f"edge padding of axis {a} has an element to repeat", ge(x[a], 1))
    return [Info(tuple(out))]


def _topk(v: OpView) -> list[Info]:
    x = v.shape(0)
    a = axis_of(v, v.attr_int("axis", -1), len(x))
    (k,) = v.value(1, "K")
    v.need(f"K is at most the size of axis {a}", ge(x[a], k))
    v.need("K is not negative", ge(k, 0))
    out = tuple(k if i == a else d for i, d in enumerate(x))
    return [Info(out), Info(out)]


def _rnn(v: OpView) -> list[Info]:
    x, w = v.shape(0), v.shape(1)
    if v.attr_int("layout", 0) or len(x) != 3 or len(w) != 3:
        raise Uncovered("a recurrent layout other than 0, or inputs not of rank 3")
    hidden = v.attr_int("hidden_size")
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[v.op.operator]
    dirs = 2 if v.attr_str("direction", "forward") == "bidirectional" else 1
    same(v, "W has one block per direction", w[0], dirs)
    same(v, "W has the rows of every gate", w[1], gates * hidden)
    same(v, "W's columns match the input size", w[2], x[2])
    outs = [Info((x[0], dirs, x[1], hidden)), Info((dirs, x[1], hidden)), Info((dirs, x[1], hidden))]
    return outs[: len(v.op.output_mapping)]


NN: dict[str, Transfer] = {
    "Conv": _conv, "ConvTranspose": _conv_transpose, "MaxPool": _pool, "AveragePool": _pool, "LpPool": _pool,
    "GlobalAveragePool": _global_pool, "GlobalMaxPool": _global_pool, "GlobalLpPool": _global_pool,
    "MatMul": _matmul, "MatMulInteger": _matmul, "ConvInteger": _conv, "Gemm": _gemm, "BatchNormalization": _batch_norm,
    "InstanceNormalization": _instance_norm, "LayerNormalization": _layer_norm, "Softmax": _softmax,
    "LogSoftmax": _softmax, "Hardmax": _along_axis, "LpNormalization": _along_axis, "CumSum": _cumsum,
    "Trilu": _trilu, "QuantizeLinear": _quantize, "DequantizeLinear": _quantize, "ArgMax": _arg, "ArgMin": _arg,
    "Pad": _pad, "TopK": _topk, "LSTM": _rnn,
    "GRU": _rnn, "RNN": _rnn,
    **{name: _reduce for name in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                                  "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp")},
}
