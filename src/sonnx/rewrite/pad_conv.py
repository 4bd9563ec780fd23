"""Fusion of a Pad into the following Conv (its explicit ``pads`` grow).

Theorem ``rewrite_pad_conv``: for every spatial rank, size, kernel, stride,
dilation, Conv padding and Pad counts >= 0, every element of every window
reads the same input element, or a padding position in both, and the output
sizes agree; Conv's padding is 0, so with a Pad value of 0 every product is
the same. The seed's condition (constant mode, value 0, counts >= 0) holds
for Conv with two additions the proof shows necessary: no padding of the
batch and channel axes, and ``auto_pad`` NOTSET or VALID (SAME_* derives the
padding from the input size; the proof gives a counterexample). The value
must be +0.0 (a -0.0 fill is refused conservatively: see pad_pool.py).
"""

from __future__ import annotations

from ..model.graph import Attribute, Model, Operation
from ._pad import Fusion, PadFusion, find_fusion, is_positive_zero


class PadIntoConv(
    PadFusion, name="pad-conv", title="Fusion of Pad into Conv", operators=("Conv",), theorem="rewrite_pad_conv"
):
    def fusion(self, model: Model, op: Operation) -> tuple[Fusion, tuple[Attribute, ...]] | str:
        f = find_fusion(model, op)
        if isinstance(f, str):
            return f
        if not is_positive_zero(f.params.fill):
            return f"Pad value {f.params.fill!r} is not +0"
        return f, ()
