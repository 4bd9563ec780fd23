"""Identity removal: readers of an Identity's output read its input instead.

Theorem ``rewrite_identity``: Identity's output equals its input, so every
reader sees the same value. Precondition: the output is not read by a nested
graph, and when it is a graph output, its input is produced by an operation
of the main graph (which then writes the output name directly).
"""

from __future__ import annotations

from typing import Tuple

from ..model.graph import Model, Operation
from .base import Pass, bypass


class IdentityRemoval(Pass):
    name = "identity"
    title = "Identity removal"
    operators = ("Identity",)
    theorem = "rewrite_identity"

    def requires(self, model: Model, op: Operation) -> str | None:
        if op.domain not in ("", "ai.onnx") or len(op.output_mapping) != 1 or not op.output_mapping[0]:
            return "not a standard Identity with one output"
        if len(op.input_mapping) != 1 or not op.input_mapping[0]:
            return "Identity without its input"
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        return result if isinstance(result, str) else None

    def transform(self, model: Model, op: Operation) -> Tuple[Model, str]:
        result = bypass(model, op, op.input_mapping[0], op.output_mapping[0])
        assert not isinstance(result, str)
        return result
