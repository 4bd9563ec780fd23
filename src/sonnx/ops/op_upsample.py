"""Upsample (deprecated since version 10): enlarge a tensor by per-axis scales >= 1.

``out = floor(in * scale)`` on every axis. Output index ``y`` reads the source
coordinate ``x = y / scale``; ``nearest`` takes element ``floor(x)``,
``linear``/``bilinear`` interpolates linearly between ``floor(x)`` and
``floor(x) + 1`` (the last element repeats past the end). This is Resize-10's
computation for scales >= 1 (see ``op_resize``).

Versions: 1 (``height_scale``/``width_scale`` attributes on the last two axes
of a 4-D tensor; modes ``nearest``, ``bilinear``), 7 (``scales`` attribute for
every axis; modes ``nearest``, ``linear``), 9 and 10 (``scales`` as an input;
10 deprecates the operator without changing it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._resample import text
from .base import Kernel
from .op_resize import plan_axes, resize_nd


def _upsample(x: np.ndarray, scales: Sequence[float] | np.ndarray, mode: str) -> np.ndarray:
    s = np.asarray(scales, dtype=np.float64).reshape(-1)
    if s.size != x.ndim:
        raise ValueError(f"scales has {s.size} values for a tensor of rank {x.ndim}")
    if not (s >= 1).all():
        raise ValueError(f"Upsample scales must be >= 1, got {s.tolist()}")
    plans = plan_axes(x.shape, list(range(x.ndim)), None, s, None, "asymmetric")
    return resize_nd(x, plans, mode=mode, coordinate_mode="asymmetric", nearest_mode="floor")


def _mode(mode: Any, allowed: tuple[str, str]) -> str:
    m = text(mode)
    if m not in allowed:
        raise ValueError(f"mode must be one of {allowed}, not {m!r}")
    return "nearest" if m == "nearest" else "linear"


def upsample_1(
    x: np.ndarray,
    *,
    height_scale: float | None = None,
    width_scale: float | None = None,
    mode: str = "nearest",
    **_attrs: Any,
) -> np.ndarray:
    """Upsample-1: N x C x H x W scaled by ``height_scale`` and ``width_scale``."""
    if height_scale is None or width_scale is None:
        raise ValueError("Upsample-1 needs the height_scale and width_scale attributes")
    if x.ndim != 4:
        raise ValueError(f"Upsample-1 takes a 4-D tensor, not rank {x.ndim}")
    return _upsample(x, [1.0, 1.0, float(height_scale), float(width_scale)], _mode(mode, ("nearest", "bilinear")))


def upsample_7(x: np.ndarray, *, scales: Sequence[float] | None = None, mode: str = "nearest",
               **_attrs: Any) -> np.ndarray:
    """Upsample-7: ``scales`` attribute."""
    if scales is None:
        raise ValueError("Upsample-7 needs the scales attribute")
    return _upsample(x, scales, _mode(mode, ("nearest", "linear")))


def upsample_9(x: np.ndarray, scales: np.ndarray, *, mode: str = "nearest", **_attrs: Any) -> np.ndarray:
    """Upsample-9 and -10: ``scales`` input."""
    return _upsample(x, scales, _mode(mode, ("nearest", "linear")))


KERNELS = (
    Kernel("Upsample", (1,), upsample_1),
    Kernel("Upsample", (7,), upsample_7),
    Kernel("Upsample", (9, 10), upsample_9),
)
