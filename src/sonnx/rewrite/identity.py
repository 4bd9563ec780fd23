"""Identity removal: readers of an Identity's output read its input instead.

Theorem ``rewrite_identity``: Identity's output equals its input, so every
reader sees the same value. Precondition: the output is not read by a nested
graph, and when it is a graph output, its input is produced by an operation
of the main graph (which then writes the output name directly).
"""

from __future__ import annotations

from ..model.graph import Model, Operation
from .base import BypassPass, standard_form


class IdentityRemoval(
    BypassPass, name="identity", title="Identity removal", operators=("Identity",), theorem="rewrite_identity"
):
    def precondition(self, model: Model, op: Operation) -> str | None:
        why = standard_form(op)
        if why is not None:
            return why
        if len(op.input_mapping) != 1 or not op.input_mapping[0]:
            return "Identity without its input"
        return None
