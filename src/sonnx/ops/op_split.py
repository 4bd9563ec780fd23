"""Split: cut a tensor along ``axis`` into consecutive parts.

The part lengths come from ``split`` (an attribute before opset 13, an input
from 13; Split-1 accepts either). Without them the axis is cut into equal
parts: one per output before opset 18, where the number of outputs is not an
attribute but the number of outputs the operation names, which
``base.call_kernel`` passes as ``num_outputs`` (``Kernel.output_count_as``). From
opset 18 ``num_outputs`` is an attribute and, when the axis does not divide
evenly, every part has ceil(n / num_outputs) elements but the last, smaller
(a split that would leave the last part empty is refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel, int_vector


def _axis(x: np.ndarray, axis: int) -> int:
    """``axis`` checked against x's rank and made non-negative."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Split: axis {axis} outside rank {x.ndim}")
    return axis + x.ndim if axis < 0 else axis


def _cut(x: np.ndarray, axis: int, lengths: Sequence[int]) -> tuple[np.ndarray, ...]:
    ax = _axis(x, axis)
    parts = [int(k) for k in lengths]
    if any(k < 0 for k in parts) or sum(parts) != x.shape[ax]:
        raise ValueError(f"Split: lengths {parts} do not add up to dimension {x.shape[ax]}")
    bounds = np.cumsum(parts)[:-1].tolist()
    return tuple(np.split(x, bounds, axis=ax))  # views: the kernels never write into their inputs


def _cut_equally_unless(
    x: np.ndarray, axis: int, lengths: Sequence[int] | None, count: int | None
) -> tuple[np.ndarray, ...]:
    """``x`` cut into ``lengths``, or, without them, into ``count`` equal parts (before opset 18)."""
    if lengths is not None:
        return _cut(x, axis, lengths)
    if count is None or count < 1:
        raise ValueError("Split without split lengths needs the number of outputs")
    n = x.shape[_axis(x, axis)]
    if n % count:
        raise ValueError(f"Split: dimension {n} does not divide into {count} equal parts")
    return _cut(x, axis, [n // count] * count)


def split_1(
    x: np.ndarray,
    split_input: np.ndarray | None = None,
    axis: int = 0,
    split: Sequence[int] | None = None,
    num_outputs: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """Opset 1: lengths from the ``split`` attribute or the second input; non-negative axis."""
    if axis < 0:
        raise ValueError(f"Split-1: negative axis {axis}")
    lengths = int_vector("Split", "split", split_input)
    if lengths is None and split is not None:
        lengths = list(split)
    return _cut_equally_unless(x, axis, lengths, num_outputs)


def split_attribute(
    x: np.ndarray,
    axis: int = 0,
    split: Sequence[int] | None = None,
    num_outputs: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """Opsets 2 and 11: lengths from the ``split`` attribute (negative axis from 11)."""
    lengths = list(split) if split is not None and len(split) else None
    return _cut_equally_unless(x, axis, lengths, num_outputs)


def split_2(x: np.ndarray, axis: int = 0, **attrs: Any) -> tuple[np.ndarray, ...]:
    """Opset 2: as 11, with a non-negative axis."""
    if axis < 0:
        raise ValueError(f"Split-2: negative axis {axis}")
    return split_attribute(x, axis=axis, **attrs)


def split_13(
    x: np.ndarray,
    split: np.ndarray | None = None,
    axis: int = 0,
    num_outputs: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """Opset 13: lengths from the optional ``split`` input."""
    return _cut_equally_unless(x, axis, int_vector("Split", "split", split), num_outputs)


def split_18(
    x: np.ndarray,
    split: np.ndarray | None = None,
    axis: int = 0,
    num_outputs: int | None = None,
    **_attrs: Any,
) -> tuple[np.ndarray, ...]:
    """Opset 18: exactly one of the ``split`` input and the ``num_outputs`` attribute."""
    lengths = int_vector("Split", "split", split)
    if (lengths is None) == (num_outputs is None):
        raise ValueError("Split-18 needs exactly one of the split input and the num_outputs attribute")
    if lengths is not None:
        return _cut(x, axis, lengths)
    assert num_outputs is not None
    if num_outputs < 1:
        raise ValueError(f"Split: num_outputs must be positive, got {num_outputs}")
    n = x.shape[_axis(x, axis)]
    size = -(-n // num_outputs)
    parts = [min(size, max(n - k * size, 0)) for k in range(num_outputs)]
    if parts[-1] <= 0:
        raise ValueError(f"Split: dimension {n} cannot be cut into {num_outputs} non-empty parts")
    return _cut(x, axis, parts)


KERNELS = (
    Kernel("Split", (1,), split_1, output_count_as="num_outputs"),
    Kernel("Split", (2,), split_2, output_count_as="num_outputs"),
    Kernel("Split", (11,), split_attribute, output_count_as="num_outputs"),
    Kernel("Split", (13,), split_13, output_count_as="num_outputs"),
    Kernel("Split", (18,), split_18),
)
