"""CastMap (ai.onnx.ml): a map from int64 keys to a [1, n] tensor of its values, ordered by key.

``map_form`` DENSE: the values in ascending key order, n = number of entries.
SPARSE: n = ``max_map``, the value of key k at position k, positions without a
key padded (0, or the text ``0.f`` for strings); a key outside [0, max_map)
is refused. ``cast_to`` converts the values: TO_FLOAT (float32), TO_INT64
(floats truncate toward zero; texts parse as numbers) or TO_STRING (numbers
written with six decimals, ``%f``). [Non-normative: the pad text and the
number format are what onnxruntime writes.]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._ml import map_values, texts
from .base import Kernel

_TARGETS: dict[str, np.dtype[Any]] = {
    "TO_FLOAT": np.dtype(np.float32),
    "TO_INT64": np.dtype(np.int64),
    "TO_STRING": np.dtype(object),
}
_STRING_PAD = "0.f"


def _convert(values: np.ndarray, target: np.dtype[Any]) -> np.ndarray:
    """The map's values (float32 numbers or texts) in the target type."""
    if target.kind == "O":
        if values.dtype == object:
            return values
        return texts(np.char.mod("%f", values.astype(np.float64)).astype(object))
    if values.dtype == object:
        try:
            numbers = values.astype(np.float64)
        except ValueError as exc:
            raise ValueError(f"a map value is not a number: {exc}") from None
    else:
        numbers = values
    if target == np.int64:
        return np.trunc(numbers).astype(np.int64)
    return numbers.astype(np.float32)


def cast_map(x: dict[Any, Any], *, cast_to: str = "TO_FLOAT", map_form: str = "DENSE", max_map: int = 1,
             **_attrs: Any) -> np.ndarray:
    """Version 1 (the only one)."""
    if not isinstance(x, dict):
        raise ValueError(f"the input must be a map, not {type(x).__name__}")
    if cast_to not in _TARGETS:
        raise ValueError(f"cast_to must be TO_FLOAT, TO_INT64 or TO_STRING, not {cast_to!r}")
    if map_form not in ("DENSE", "SPARSE"):
        raise ValueError(f"map_form must be DENSE or SPARSE, not {map_form!r}")
    target = _TARGETS[cast_to]
    keys = np.fromiter((int(k) for k in x), dtype=np.int64, count=len(x))
    values = map_values(list(x.values()))
    order = np.argsort(keys, kind="stable")
    keys, converted = keys[order], _convert(values[order], target)
    if map_form == "DENSE":
        return converted.reshape(1, -1)
    if max_map < 0:
        raise ValueError(f"max_map must not be negative, got {max_map}")
    outside = (keys < 0) | (keys >= max_map)
    if outside.any():
        raise ValueError(f"key {int(keys[outside][0])} is outside [0, max_map = {max_map}) of a SPARSE map")
    pad: Any = _STRING_PAD if target.kind == "O" else 0
    out = np.full(max_map, pad, dtype=target)
    out[keys] = converted
    return out.reshape(1, -1)


KERNELS = (Kernel("CastMap", (1,), cast_map, domain="ai.onnx.ml"),)
