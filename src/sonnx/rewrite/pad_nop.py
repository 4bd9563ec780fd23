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

from ..model.graph import Model, Operation
from ._pad import pad_params
from .base import BypassPass, standard_form


class PadRemoval(
    BypassPass,
    name="pad-nop",
    title="Removal of a Pad that does nothing",
    operators=("Pad",),
    theorem="rewrite_pad_nop",
):
    def precondition(self, model: Model, op: Operation) -> str | None:
        why = standard_form(op, None)
        if why is not None:
            return why
        p = pad_params(model, op)
        if isinstance(p, str):
            return p
        if not p.is_nop:
            return f"pads are not all 0 (begin {list(p.begin)}, end {list(p.end)})"
        return None
