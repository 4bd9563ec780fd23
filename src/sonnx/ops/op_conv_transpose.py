"""ConvTranspose: the transpose (gradient) of a convolution, with groups, strides, dilations and padding.

Every input element scatters a copy of its filter, scaled by its value, into
the output: ``full[n, g*Mg + m, i*stride + k*dilation] += X[n, g*Cg + c, i] * W[g*Cg + c, m, k]``
over all channels ``c`` of group ``g`` (``Cg = C / group``, ``Mg = M / group``,
W of shape ``C x Mg x k1 x ...``), then ``Y[..., o] = full[..., o + pad_begin] + B``
(zero where ``o + pad_begin`` falls outside ``full``). Per spatial axis, ``full``
has ``(in - 1) * stride + (k - 1) * dilation + 1`` elements and the output has

* ``len(full) + output_padding - pad_begin - pad_end`` with explicit ``pads``
  (``auto_pad`` NOTSET) or none (VALID);
* ``output_shape`` when that attribute is given (``pads`` are then ignored), or
  ``in * stride`` for ``auto_pad`` SAME_UPPER/SAME_LOWER; the padding is then
  ``total = len(full) + output_padding - out``, split ``total // 2`` at the
  beginning and the rest at the end for SAME_UPPER, the other way round
  otherwise. A negative total (an output longer than ``full``, as with
  ``stride > kernel``) removes nothing: the extra positions are added at the
  end, as ``output_padding`` adds them (the texts leave the sign unhandled;
  onnx's expected data and onnxruntime agree on this).

Versions 1, 11 and 22 differ only in the types they admit. Interpretation: the
version-1 text splits the ``output_shape`` padding the other way round from
version 11 and describes SAME as "output size equals input size"; onnx
acknowledged the first as a typo (onnx issue 1609) and version 11's text is
applied to every version.

``output_shape`` may also list the batch and channel dimensions (older
exporters did); only its last ``rank - 2`` entries are used then.

Computation: one batched matmul per group gives every (output channel, kernel
offset, input position) product; each kernel offset is then added into the
output with one strided slice (a col2im scatter-add, one NumPy call per offset).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ._windows import accumulation_dtype, auto_pad_mode, check_kernel_shape, convolved_axes, per_axis
from .base import Kernel


def _geometry(
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    output_padding: Sequence[int],
    pads: Sequence[int] | None,
    output_shape: Sequence[int] | None,
    auto_pad: str,
) -> tuple[list[int], list[int], list[int]]:
    """The un-cropped length, the padding removed at the beginning, and the output length, per axis."""
    rank = len(spatial)
    full = [(n - 1) * s + (k - 1) * d + 1 for n, k, s, d in zip(spatial, kernel, strides, dilations, strict=True)]
    if output_shape is not None and len(output_shape) > 0:
        out = [int(v) for v in output_shape]
        if len(out) == rank + 2:
            out = out[2:]
        if len(out) != rank:
            raise ValueError(f"output_shape has {len(out)} values for {rank} spatial axes")
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if pads is not None and any(int(p) for p in pads):
            raise ValueError(f"pads cannot be used together with auto_pad={auto_pad}")
        out = [n * s for n, s in zip(spatial, strides, strict=True)]
    else:
        explicit = [0] * (2 * rank) if pads is None or len(pads) == 0 or auto_pad == "VALID" else [int(p) for p in pads]
        if len(explicit) != 2 * rank:
            raise ValueError(f"pads has {len(explicit)} values for {rank} spatial axes (want {2 * rank})")
        if any(p < 0 for p in explicit):
            raise ValueError("pads must not be negative")
        if auto_pad == "VALID" and pads is not None and any(int(p) for p in pads):
            raise ValueError("pads cannot be used together with auto_pad=VALID")
        begin = explicit[:rank]
        out = [f + op - b - e for f, op, b, e in zip(full, output_padding, begin, explicit[rank:], strict=True)]
        if any(o < 0 for o in out):
            raise ValueError(f"the padding {explicit} removes more than the output's extent {full}")
        return full, begin, out
    if any(o < 0 for o in out):
        raise ValueError(f"output_shape {out} has a negative extent")
    totals = [max(f + op - o, 0) for f, op, o in zip(full, output_padding, out, strict=True)]
    if auto_pad == "SAME_UPPER":
        begin = [t // 2 for t in totals]
    else:
        begin = [t - t // 2 for t in totals]
    return full, begin, out


@functools.lru_cache(maxsize=1024)
def _scatter_indexes(
    kernel: tuple[int, ...], dilation: tuple[int, ...], stride: tuple[int, ...], spatial: tuple[int, ...]
) -> tuple[tuple[slice, ...], ...]:
    """For every kernel offset in row-major order, the index of the full output its input positions land on.

    Built once per geometry (an operation meets the same one on every run).
    """
    lead = (slice(None), slice(None))
    return tuple(
        lead
        + tuple(
            slice(o * d, o * d + (length - 1) * s + 1, s)
            for o, d, s, length in zip(off, dilation, stride, spatial, strict=True)
        )
        for off in np.ndindex(*kernel)
    )


def conv_transpose(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None = None,
    *,
    auto_pad: str | bytes = "NOTSET",
    dilations: Sequence[int] | None = None,
    group: int = 1,
    kernel_shape: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    output_shape: Sequence[int] | None = None,
    pads: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    **_attrs: object,
) -> np.ndarray:
    """ConvTranspose-1, -11, -22."""
    mode = auto_pad_mode(auto_pad)
    nsp = convolved_axes(x, w)
    n, c = x.shape[:2]
    group = int(group)
    if group < 1 or c % group:
        raise ValueError(f"group={group} must divide the input channels ({c})")
    if w.shape[0] != c:
        raise ValueError(f"W has {w.shape[0]} input channels (its first axis); X has {c}")
    cg, mg = c // group, w.shape[1]
    m = mg * group
    kernel = tuple(int(k) for k in w.shape[2:])
    check_kernel_shape(kernel_shape, kernel)
    if b is not None and b.shape != (m,):
        raise ValueError(f"B has shape {b.shape}, want ({m},)")
    stride = per_axis("strides", strides, nsp, 1)
    dilation = per_axis("dilations", dilations, nsp, 1)
    extra = list(per_axis("output_padding", output_padding, nsp, 0))
    if any(s < 1 for s in stride) or any(d < 1 for d in dilation):
        raise ValueError("strides and dilations must be positive")
    for op, s, d in zip(extra, stride, dilation, strict=True):
        if op < 0 or op >= max(s, d):
            raise ValueError(f"output_padding {extra} must be non-negative and below the stride or the dilation")
    spatial = tuple(int(v) for v in x.shape[2:])
    full, begin, out = _geometry(spatial, kernel, stride, dilation, extra, pads, output_shape, mode)

    acc = accumulation_dtype(x.dtype)
    ksize = int(np.prod(kernel))
    npos = int(np.prod(spatial))
    xa = x.astype(acc, copy=False).reshape(n, group, cg, npos)
    wt = w.astype(acc, copy=False).reshape(group, cg, mg * ksize).transpose(0, 2, 1)
    cols = np.matmul(wt, xa).reshape(n, m, ksize, *spatial)  # (n, group, mg * K, P) in channel-major order

    y_full = np.zeros((n, m, *full), dtype=acc)
    for i, window in enumerate(_scatter_indexes(kernel, dilation, stride, spatial)):
        y_full[window] += cols[:, :, i]

    y = np.zeros((n, m, *out), dtype=acc)
    lead = (slice(None), slice(None))
    src: list[slice] = []
    dst: list[slice] = []
    for f, bgn, o in zip(full, begin, out, strict=True):
        lo, hi = max(bgn, 0), min(f, bgn + o)
        hi = max(hi, lo)
        src.append(slice(lo, hi))
        dst.append(slice(lo - bgn, hi - bgn))
    y[lead + tuple(dst)] = y_full[lead + tuple(src)]
    if b is not None:
        y += b.astype(acc, copy=False).reshape(m, *(1,) * nsp)
    return y.astype(x.dtype, copy=False)


KERNELS = (Kernel("ConvTranspose", (1, 11, 22), conv_transpose),)
