"""Removal of a Pad that does nothing: every begin and end count is 0.

Theorem ``rewrite_pad_nop``: with all counts 0 the output has the input's
shape and every output element reads the input element at the same index,
whatever the mode and the fill value. The seed's condition ("pads all 0",
with an alternative left unfinished) is the right one; the proof also
refutes the tempting weaker one "each axis keeps its size" (begin + end = 0):
pads (-1, +1) keep the size but shift the elements by one.

Precondition: the pads (and axes, when given) are constants, all 0.
"""

from __future__ import annotations

from typing import Tuple

from ..model.graph import Model, Operation
from ._pad import pad_params
from .base import Pass, bypass


class PadRemoval(Pass):
    name = "pad-nop"
    title = "Removal of a Pad that does nothing"
    operators = ("Pad",)
    theorem = "rewrite_pad_nop"

    def requires(self, model: Model, op: Operation) -> str | None:
        if op.domain not in ("", "ai.onnx"):
            return "not a standard Pad"
        p = pad_params(model, op)
        if isinstance(p, str):
            return p
        if not p.is_nop:
            return f"pads are not all 0 (begin {list(p.begin)}, end {list(p.end)})"
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        return result if isinstance(result, str) else None

    def transform(self, model: Model, op: Operation) -> Tuple[Model, str]:
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        assert not isinstance(result, str)
        return result
