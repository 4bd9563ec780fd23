"""Constant: a tensor given by exactly one attribute."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import Kernel


def _tensor(value: Any) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise ValueError(f"Constant's value must be a tensor, got {type(value).__name__}")
    return value.copy()


def _only_value(*others: Any) -> bool:
    return all(v is None for v in others)


def constant_value(value: Any | None = None, **_attrs: Any) -> np.ndarray:
    """Opsets 1 and 9: the tensor attribute ``value`` (required)."""
    if value is None:
        raise ValueError("Constant needs its value attribute")
    return _tensor(value)


def constant(
    value: Any | None = None,
    sparse_value: Any | None = None,
    value_float: float | None = None,
    value_floats: Sequence[float] | None = None,
    value_int: int | None = None,
    value_ints: Sequence[int] | None = None,
    value_string: str | None = None,
    value_strings: Sequence[str] | None = None,
    **_attrs: Any,
) -> np.ndarray:
    """Opset 11 on (the ``value_*`` forms from 12): exactly one attribute gives the tensor.

    Sparse tensors are outside what sonnx executes and are refused.
    """
    if value is not None and sparse_value is None and _only_value(
        value_float, value_floats, value_int, value_ints, value_string, value_strings
    ):
        return _tensor(value)  # the usual form, without gathering the attributes given
    given = {
        name: v
        for name, v in (
            ("value", value),
            ("sparse_value", sparse_value),
            ("value_float", value_float),
            ("value_floats", value_floats),
            ("value_int", value_int),
            ("value_ints", value_ints),
            ("value_string", value_string),
            ("value_strings", value_strings),
        )
        if v is not None
    }
    if len(given) != 1:
        raise ValueError(f"Constant needs exactly one value attribute, got {sorted(given) or 'none'}")
    if sparse_value is not None:
        raise ValueError("Constant with sparse_value is not supported (sonnx executes dense tensors only)")
    if value is not None:
        return _tensor(value)
    if value_float is not None:
        return np.array(value_float, dtype=np.float32)
    if value_floats is not None:
        return np.array(list(value_floats), dtype=np.float32).reshape(-1)
    if value_int is not None:
        return np.array(value_int, dtype=np.int64)
    if value_ints is not None:
        return np.array(list(value_ints), dtype=np.int64).reshape(-1)
    if value_string is not None:
        return np.array(value_string, dtype=np.object_)
    assert value_strings is not None
    out = np.empty(len(value_strings), dtype=np.object_)
    out[:] = list(value_strings)
    return out


KERNELS = (
    Kernel("Constant", (1, 9), constant_value),
    Kernel("Constant", (11, 12, 13, 19, 21, 23, 24, 25), constant),
)
