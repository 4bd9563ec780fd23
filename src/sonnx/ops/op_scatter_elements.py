"""ScatterElements: a copy of ``data`` where each ``updates`` entry is written at the position GatherElements reads.

``out[i_0, ..., indices[i], ..., i_r] = f(out[...], updates[i])`` with ``f`` the
reduction: replace (``none``), ``add``, ``mul``, ``max``, ``min``.

Versions: 11 and 13 (13 adds bfloat16) only replace; 16 adds the ``reduction``
attribute with ``add`` and ``mul``; 18 adds ``max`` and ``min``. With ``none``
and an output position named twice ONNX leaves the result unspecified; sonnx's
choice is that the last write wins, in row-major order of ``indices`` (models
relying on it are flagged elsewhere in sonnx). Reductions accumulate every
update, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._indexing import check_reduction, scatter_elements_into
from .base import Kernel


def _scatter_elements(allowed: Sequence[str]) -> Callable[..., np.ndarray]:
    def scatter_elements(
        data: np.ndarray,
        indices: np.ndarray,
        updates: np.ndarray,
        *,
        axis: int = 0,
        reduction: str = "none",
        **_attrs: Any,
    ) -> np.ndarray:
        how = check_reduction(reduction, allowed, "ScatterElements")
        return scatter_elements_into(data, indices, updates, axis, how, "ScatterElements")

    scatter_elements.__doc__ = f"ScatterElements with reductions {', '.join(allowed)}."
    return scatter_elements


KERNELS = (
    Kernel("ScatterElements", (11, 13), _scatter_elements(("none",))),
    Kernel("ScatterElements", (16,), _scatter_elements(("none", "add", "mul"))),
    Kernel("ScatterElements", (18,), _scatter_elements(("none", "add", "mul", "max", "min"))),
)
