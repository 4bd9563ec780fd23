"""If: run exactly one of two nested graphs, chosen by a one-element boolean condition.

The branch runs through the same execution semantics as any graph (the
``scope`` runs it with the outer tensors it captures). All versions share this
meaning; they differ only in the types the outputs may have.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model.graph import Graph
from .base import Kernel


def condition(value: Any) -> bool:
    """The truth of a one-element condition tensor (ValueError for any other size)."""
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError(f"the condition must hold exactly one element, it has {arr.size}")
    return bool(arr.reshape(-1)[0])


def if_kernel(cond: Any, *, then_branch: Graph, else_branch: Graph, scope: Any, **_attrs: Any) -> tuple[Any, ...]:
    branch = then_branch if condition(cond) else else_branch
    return tuple(scope.run_nested(branch, ()))


KERNELS = (Kernel("If", (1, 11, 13, 16, 19, 21, 23, 24, 25), if_kernel, needs_scope=True),)
