"""Fusion of a Pad into the following AveragePool or MaxPool (its explicit ``pads`` grow).

Theorem ``rewrite_pad_pool``. The index mapping is the same as for Conv
(every window element reads the same input element or a padding position),
but what a pooling window does with padding differs from what Pad writes
there, so the seed's condition (constant mode, value 0, counts >= 0) is too
weak. The proof finds three counterexamples and the pass uses the corrected
preconditions:

* MaxPool: a pooling window's padding never wins, while the Pad's zeros are
  ordinary elements: on all-negative input the maximum changes (0 against
  the largest negative value). Corrected: the Pad's value is the lowest
  value of the type (-inf for floats), every window of the fused operation
  still covers at least one input element (a window over padding only has no
  maximum), and the ``Indices`` output is unused (its positions would refer
  to the unpadded input).
* AveragePool with ``count_include_pad`` = 0: the Pad's zeros count in the
  divisor before the fusion, not after. Corrected: ``count_include_pad`` = 1,
  or the pool has no padding of its own, in which case the fused pool gets
  ``count_include_pad`` = 1 (opset >= 7).
* ``ceil_mode`` = 1 with end padding: the rule that drops a window starting
  in the end padding counts the Pad's end elements as input before the
  fusion and as padding after, so the output size can change. Corrected:
  ``ceil_mode`` = 0, or the Pad's end counts are all 0.

The fill value 0 must also be +0.0. The proof works on reals, which have one
zero; a -0.0 fill is refused conservatively (on the NumPy executor sums start
from +0.0 and no difference was observed, but an accumulation that starts
from the first product would keep -0.0 where the fused operation gives +0.0).
"""

from __future__ import annotations

import numpy as np

from ..model.graph import Attribute, Model, Operation
from ..ops._windows import resolve_geometry, window_counts
from ..ops.values import numpy_dtype
from ._pad import Fusion, PadFusion, find_fusion, is_positive_zero
from .base import ai_onnx_opset, captured_names, declared_elem_type, readers, static_shape


def _int_attr(op: Operation, name: str, default: int) -> int:
    a = op.attribute(name)
    return int(a.value) if a is not None else default


def _lowest_fill(fill: object, elem_type: int) -> bool:
    if fill is None:
        return False
    v = np.asarray(fill)
    if v.dtype.kind == "f":
        return bool(np.isneginf(v))
    if v.dtype.kind in "iu":
        if elem_type == 0:
            return False
        dt = numpy_dtype(elem_type)
        return dt.kind in "iu" and int(v) == int(np.iinfo(dt).min)
    return False


class PadIntoPool(
    PadFusion,
    name="pad-pool",
    title="Fusion of Pad into pooling",
    operators=("AveragePool", "MaxPool"),
    theorem="rewrite_pad_pool",
):
    def fusion(self, model: Model, op: Operation) -> tuple[Fusion, tuple[Attribute, ...]] | str:
        got = self._check_fusion(model, op)
        if isinstance(got, str):
            return got
        f = got[0]
        sizes_attr = op.attribute("kernel_shape")
        sizes = tuple(int(k) for k in sizes_attr.value) if sizes_attr is not None else ()
        nsp = len(f.merged) // 2
        if len(sizes) != nsp:
            return f"kernel_shape {list(sizes)} does not give one size per spatial axis ({nsp})"
        for i in range(nsp):
            if f.merged[i] >= sizes[i] or f.merged[nsp + i] >= sizes[i]:
                pads = (f.merged[i], f.merged[nsp + i])
                return (
                    f"the fused padding {pads} on spatial axis {i} is not smaller than the kernel ({sizes[i]}): "
                    "onnxruntime refuses such pooling padding, though ONNX allows it"
                )
        return got

    def _check_fusion(self, model: Model, op: Operation) -> tuple[Fusion, tuple[Attribute, ...]] | str:
        """The conditions of the arithmetic (the theorem's hypotheses); :meth:`fusion` adds the runtime's."""
        f = find_fusion(model, op)
        if isinstance(f, str):
            return f
        p = f.params
        if _int_attr(op, "ceil_mode", 0) and any(p.end[2:]):
            return "ceil_mode = 1 with end padding: the output size can change (see the counterexample)"
        extra: tuple[Attribute, ...] = ()
        if op.operator == "AveragePool":
            if ai_onnx_opset(model) < 7:
                return "AveragePool before opset 7 has no count_include_pad"
            if not is_positive_zero(p.fill):
                return f"Pad value {p.fill!r} is not +0: the padded elements would change the sums"
            if not _int_attr(op, "count_include_pad", 0):
                if any(f.pads):
                    return "count_include_pad = 0 with the pool's own padding: the divisors would mix both rules"
                extra = (Attribute("count_include_pad", "INT", 1),)
            return f, extra
        # MaxPool
        if len(op.output_mapping) > 1 and op.output_mapping[1]:
            idx = op.output_mapping[1]
            g = model.graph
            if readers(g, idx) or idx in g.outputs or idx in captured_names(g):
                return "the Indices output is used; its positions would refer to the unpadded input"
        elem = declared_elem_type(model.graph, f.pad.input_mapping[0])
        if not _lowest_fill(p.fill, elem):
            return f"Pad value {p.fill!r} is not the lowest value of the type: padding could win the maximum"
        shape = static_shape(model.graph, f.pad.input_mapping[0])
        if shape is None:
            return "the Pad's input shape is not declared static; cannot show every window covers an input element"
        kernel = op.attribute("kernel_shape")
        strides = op.attribute("strides")
        dil = op.attribute("dilations")
        try:
            geo = resolve_geometry(
                shape[2:],
                tuple(kernel.value) if kernel is not None else (),
                tuple(strides.value) if strides is not None else None,
                tuple(dil.value) if dil is not None else None,
                f.merged,
                "NOTSET",
                bool(_int_attr(op, "ceil_mode", 0)),
            )
        except ValueError as exc:
            return f"the fused window geometry is invalid: {exc}"
        if np.any(window_counts(geo, shape[2:], False) == 0):
            return "a fused window would cover padding only (its maximum is undefined)"
        return f, extra
