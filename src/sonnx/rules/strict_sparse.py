"""STRICT-SPARSE (strict profile): no sparse tensor anywhere in the model.

Strict-profile restriction: only dense tensors are used, so every value has a
single, simple layout. Checked in every graph: no initializer is sparse, no
declared type is (or contains) a ``sparse_tensor``, and no operation has an
attribute of type ``SPARSE_TENSOR`` or ``SPARSE_TENSORS`` (such as the
``sparse_value`` of a ``Constant``).
"""

from __future__ import annotations

from typing import Any

from ..base.verdict import Severity, Verdict, Witness
from ..base.witness import brief, first, op_ref
from ..model.graph import TensorType
from ..model.index import attribute_ops
from ..model.structure import scopes
from .base import CheckContext

ID = "STRICT-SPARSE"
SEVERITY = Severity.ERROR


def has_sparse(t: TensorType | None) -> bool:
    """True when ``t`` is a sparse tensor type or holds one (in a sequence or an optional)."""
    while t is not None:
        if t.kind == "sparse_tensor":
            return True
        t = t.element
    return False


def check(ctx: CheckContext) -> Verdict:
    found: list[dict[str, Any]] = []
    for sc in scopes(ctx):
        g = sc.graph
        for name, t in g.tensors.items():  # declaration order: stable, and no sort of a large table
            if t.initial_value is not None and t.initial_value.sparse:
                found.append({"scope": sc.path, "tensor": name, "problem": "sparse initializer"})
            elif has_sparse(t.type):
                found.append({"scope": sc.path, "tensor": name, "problem": "declared type holds a sparse tensor"})
        ops = g.operations
        for j in attribute_ops(ctx, g):
            for a in ops[j].attributes:
                if a.type in ("SPARSE_TENSOR", "SPARSE_TENSORS"):
                    found.append({**op_ref(sc.path, j, ops[j]), "attribute": a.name, "problem": f"{a.type} attribute"})
    if not found:
        return Verdict.proved(ID, SEVERITY)
    shown = [f"{f.get('tensor') or f.get('operation')}: {f['problem']}" for f in found]
    return Verdict.violated(
        ID,
        Witness(f"{len(found)} sparse tensor(s): {brief(shown, 3)}", {"count": len(found), "sparse": first(found)}),
        SEVERITY,
    )
