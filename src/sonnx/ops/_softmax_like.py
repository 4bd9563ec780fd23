"""The version scaffolding LogSoftmax and Hardmax share with Softmax (see ``op_softmax``).

Versions 1 and 11 view the input as a matrix: the dimensions before ``axis``
make the rows, those from ``axis`` on the columns, and the function applies
to each row of the flattened trailing part (version 1 does not define a
negative ``axis``: refused; 11 counts it from the back). Version 13 applies
the function along ``axis`` alone (default -1). The two agree when ``axis``
is the last dimension. A 0-d input is one row of one element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Kernel

AlongAxis = Callable[[np.ndarray, int], np.ndarray]


def check_axis(x: np.ndarray, axis: int, operator: str, allow_negative: bool) -> int:
    """``axis`` checked against x's rank (a 0-d tensor counts as rank 1) and made non-negative."""
    rank = max(x.ndim, 1)
    if axis < 0 and not allow_negative:
        raise ValueError(f"{operator}-1: negative axis {axis}")
    if not -rank <= axis < rank:
        raise ValueError(f"{operator}: axis {axis} outside rank {x.ndim}")
    return axis + rank if axis < 0 else axis


def _coerced(along: AlongAxis, x: np.ndarray, axis: int) -> np.ndarray:
    if x.size == 0:
        return along(x, axis)
    rows = int(np.prod(x.shape[:axis], dtype=np.int64))
    return along(x.reshape(rows, -1), 1).reshape(x.shape)


def _one_axis(along: AlongAxis, x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return along(x.reshape(1), 0).reshape(())
    return along(x, axis)


def softmax_like_kernels(operator: str, along: AlongAxis) -> tuple[Kernel, ...]:
    """Kernels for versions 1, 11 and 13 of an operator given by ``along(x, axis)`` (any non-negative axis).

    ``along`` must accept empty arrays (returning an empty result of the same shape).
    """

    def version_1(x: np.ndarray, axis: int = 1, **_: Any) -> np.ndarray:
        return _coerced(along, x, check_axis(x, axis, operator, allow_negative=False))

    def version_11(x: np.ndarray, axis: int = 1, **_: Any) -> np.ndarray:
        return _coerced(along, x, check_axis(x, axis, operator, allow_negative=True))

    def version_13(x: np.ndarray, axis: int = -1, **_: Any) -> np.ndarray:
        return _one_axis(along, x, check_axis(x, axis, operator, allow_negative=True))

    name = operator.lower()
    version_1.__name__ = version_1.__qualname__ = f"{name}_1"
    version_1.__doc__ = f"{operator}-1: rows of the 2-D view at a non-negative ``axis`` (default 1)."
    version_11.__name__ = version_11.__qualname__ = f"{name}_11"
    version_11.__doc__ = f"{operator}-11: rows of the 2-D view at ``axis`` (default 1, negative from the back)."
    version_13.__name__ = version_13.__qualname__ = name
    version_13.__doc__ = f"{operator}-13: along ``axis`` only (default -1)."
    return (
        Kernel(operator, (1,), version_1),
        Kernel(operator, (11,), version_11),
        Kernel(operator, (13,), version_13),
    )
