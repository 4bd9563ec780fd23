"""Gemm: Y = alpha * A' B' + beta * C, with A' = A or its transpose (``transA``), likewise B'.

A' is M x K, B' is K x N. C is broadcast to M x N (unidirectionally: only C
changes shape). Gemm-1 and -6 broadcast C only with the ``broadcast``
attribute, otherwise C must already be M x N; from Gemm-7 C always
broadcasts, and from Gemm-11 it is optional.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Kernel


def _gemm(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray | None,
    *,
    broadcast_c: bool,
    alpha: float = 1.0,
    beta: float = 1.0,
    transA: int = 0,
    transB: int = 0,
    **_attrs: Any,
) -> np.ndarray:
    """Every version: the attributes with their schema defaults; ``broadcast_c`` says whether C may broadcast."""
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"Gemm: A and B must be matrices, got shapes {a.shape} and {b.shape}")
    left = a.T if transA else a
    right = b.T if transB else b
    if left.shape[1] != right.shape[0]:
        raise ValueError(f"Gemm: A' {left.shape} and B' {right.shape} do not multiply")
    dtype = a.dtype
    y = np.matmul(left, right)
    if alpha != 1.0:
        y = y * np.asarray(alpha, dtype=dtype)
    y = y.astype(dtype, copy=False)
    if c is not None:
        mn = y.shape
        if not broadcast_c and c.shape != mn:
            raise ValueError(f"Gemm: C has shape {c.shape}, not {mn}, and broadcast is 0")
        try:
            c_full = np.broadcast_to(c, mn)
        except ValueError:
            raise ValueError(f"Gemm: C of shape {c.shape} does not broadcast to {mn}") from None
        term = c_full if beta == 1.0 else c_full * np.asarray(beta, dtype=dtype)
        y = y + term.astype(dtype, copy=False)
    return np.asarray(y).astype(dtype, copy=False)


def _required(c: np.ndarray | None) -> np.ndarray:
    """C, which Gemm needs before opset 11."""
    if c is None:
        raise ValueError("Gemm before opset 11 needs C")
    return c


def gemm_legacy(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None, *, broadcast: int = 0, **attrs: Any
                ) -> np.ndarray:
    """Opsets 1 and 6: C required; it broadcasts only when ``broadcast`` is set."""
    return _gemm(a, b, _required(c), broadcast_c=bool(broadcast), **attrs)


def gemm_7(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None, **attrs: Any) -> np.ndarray:
    """Opsets 7 and 9: C required, unidirectionally broadcast."""
    return _gemm(a, b, _required(c), broadcast_c=True, **attrs)


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None, **attrs: Any) -> np.ndarray:
    """Opset 11 on: C optional (absent means zero), unidirectionally broadcast."""
    return _gemm(a, b, c, broadcast_c=True, **attrs)


KERNELS = (
    Kernel("Gemm", (1, 6), gemm_legacy),
    Kernel("Gemm", (7, 9), gemm_7),
    Kernel("Gemm", (11, 13), gemm),
)
