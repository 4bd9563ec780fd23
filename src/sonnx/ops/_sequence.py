"""Shared checks of the sequence kernels: a sequence argument, and a position in it."""

from __future__ import annotations

from typing import Any

import numpy as np


def as_sequence(value: Any, what: str) -> list[Any]:
    """``value`` itself when it is a sequence (a list), else ValueError naming ``what``."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a sequence, got {type(value).__name__}")
    return value


def position(pos: Any, n: int, upper: int) -> int:
    """The index a one-element integer ``pos`` names in a sequence of ``n``: from the back when negative.

    Accepted range ``[-n, upper]`` (``upper`` is ``n - 1`` to read or erase, ``n`` to insert); outside it,
    ValueError.
    """
    arr = np.asarray(pos)
    if arr.size != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"the position must be one integer, got {arr.dtype}{list(arr.shape)}")
    p = int(arr.reshape(-1)[0])
    if not -n <= p <= upper:
        raise ValueError(f"position {p} is outside [{-n}, {upper}] for a sequence of {n}")
    return p + n if p < 0 else p
