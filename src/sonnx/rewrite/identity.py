"""Identity removal: readers of an Identity's output read its input instead.

Theorem ``rewrite_identity``: Identity's output equals its input, so every
reader sees the same value. Precondition: the output is not read by a nested
graph, and when it is a graph output, its input is produced by an operation
of the main graph (which then writes the output name directly).
"""

from __future__ import annotations

from ..model.graph import Model, Operation
from .base import BypassPass


class IdentityRemoval(BypassPass):
    name = "identity"
    title = "Identity removal"
    operators = ("Identity",)
    theorem = "rewrite_identity"

    def precondition(self, model: Model, op: Operation) -> str | None:
        if op.domain not in ("", "ai.onnx") or len(op.output_mapping) != 1 or not op.output_mapping[0]:
            return "not a standard Identity with one output"
        if len(op.input_mapping) != 1 or not op.input_mapping[0]:
            return "Identity without its input"
        return None
