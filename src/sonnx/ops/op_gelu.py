"""Gelu: x * Phi(x) = x/2 * (1 + erf(x / sqrt(2))), Phi the standard normal distribution function, element-wise.

``approximate="tanh"`` uses x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
instead. x = -inf gives the limit 0 in both forms (not -inf * 0). The erf
form is evaluated in float64 (``_erf``) and rounded to x's type.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._elementwise import apply_float, text
from ._erf import erf
from .base import Kernel


def _exact(w: np.ndarray) -> np.ndarray:
    return 0.5 * w * (1 + erf(w / math.sqrt(2)))


def _tanh_form(w: np.ndarray) -> np.ndarray:
    return 0.5 * w * (1 + np.tanh(math.sqrt(2 / math.pi) * (w + 0.044715 * w**3)))


def gelu(x: np.ndarray, approximate: str | bytes = "none", **_attrs: Any) -> np.ndarray:
    """The only version (20)."""
    mode = text(approximate)
    if mode not in ("none", "tanh"):
        raise ValueError(f"Gelu's approximate must be 'none' or 'tanh', got {mode!r}")
    form = _exact if mode == "none" else _tanh_form
    return apply_float("Gelu", lambda w: np.where(np.isneginf(w), -0.0, form(w)), x)


KERNELS = (Kernel("Gelu", (20,), gelu),)
