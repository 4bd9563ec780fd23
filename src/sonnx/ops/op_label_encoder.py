"""LabelEncoder (ai.onnx.ml): each element replaced by the value its key maps to, or a default.

Version 1 maps strings to integers or back through one list ``classes_strings``:
a string becomes the position of its entry (the last one when listed twice,
``default_int64`` when absent), an int64 i becomes ``classes_strings[i]``
(``default_string`` outside the list).

Version 2 maps any element through two parallel lists, one ``keys_*`` and one
``values_*`` (strings, int64 or floats); an element without a key becomes the
``default_*`` of the values' type. Float keys compare bit for bit, so a NaN key
matches a NaN of the same bits (and -0.0 differs from 0.0).

Version 4 adds ``keys_tensor`` / ``values_tensor`` / ``default_tensor`` (and
the int16, int32 and double types); float keys compare by value except that a
NaN key matches every NaN; a repeated key takes its last value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._ml import lookup, texts
from .base import Kernel


def label_encoder_1(
    x: np.ndarray,
    *,
    classes_strings: Sequence[str] | None = None,
    default_int64: int = -1,
    default_string: str = "_Unused",
    **_attrs: Any,
) -> np.ndarray:
    """Version 1: strings to their position in ``classes_strings``, int64 to the string at that position."""
    classes = texts(list(classes_strings) if classes_strings is not None else [])
    if x.dtype == object:
        return lookup(classes, np.arange(len(classes), dtype=np.int64), texts(x), np.int64(default_int64))
    if x.dtype != np.int64:
        raise ValueError(f"the input must be a string or int64 tensor, not {x.dtype}")
    inside = (x >= 0) & (x < len(classes))
    picked = classes[np.where(inside, x, 0)] if len(classes) else np.full(x.shape, default_string, dtype=object)
    return np.where(inside, picked, default_string).astype(object)


def _one_of(kind: str, given: dict[str, np.ndarray | None]) -> tuple[str, np.ndarray]:
    present = [(name, v) for name, v in given.items() if v is not None]
    if len(present) != 1:
        raise ValueError(f"exactly one of {', '.join(given)} must be given ({len(present)} are)")
    return present[0]


def _attribute_lists(attrs: dict[str, Any], with_tensors: bool) -> tuple[np.ndarray, np.ndarray]:
    def listed(name: str, dtype: Any) -> np.ndarray | None:
        v = attrs.get(name)
        if v is None:
            return None
        return texts(list(v)) if dtype is object else np.asarray(v, dtype=dtype)

    def tensor(name: str) -> np.ndarray | None:
        v = attrs.get(name) if with_tensors else None
        if v is None:
            return None
        arr = np.asarray(v).reshape(-1)
        return texts(arr) if arr.dtype == object else arr

    _, keys = _one_of("keys", {
        "keys_strings": listed("keys_strings", object),
        "keys_int64s": listed("keys_int64s", np.int64),
        "keys_floats": listed("keys_floats", np.float32),
        **({"keys_tensor": tensor("keys_tensor")} if with_tensors else {}),
    })
    _, values = _one_of("values", {
        "values_strings": listed("values_strings", object),
        "values_int64s": listed("values_int64s", np.int64),
        "values_floats": listed("values_floats", np.float32),
        **({"values_tensor": tensor("values_tensor")} if with_tensors else {}),
    })
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values")
    return keys, values


def _default(values: np.ndarray, attrs: dict[str, Any], with_tensors: bool) -> Any:
    if with_tensors and attrs.get("default_tensor") is not None:
        d = np.asarray(attrs["default_tensor"]).reshape(-1)
        if d.size != 1:
            raise ValueError(f"default_tensor must hold one value, it holds {d.size}")
        return texts(d)[0] if d.dtype == object else d.astype(values.dtype)[0]
    if values.dtype == object:
        return str(attrs.get("default_string", "_Unused"))
    if values.dtype.kind == "f":
        return values.dtype.type(attrs.get("default_float", -0.0))
    return values.dtype.type(attrs.get("default_int64", -1))


def _check_input(x: np.ndarray, keys: np.ndarray) -> np.ndarray:
    if (x.dtype == object) != (keys.dtype == object):
        raise ValueError(f"the input ({x.dtype}) and the keys ({keys.dtype}) must both be strings or both numbers")
    return texts(x) if x.dtype == object else x


def label_encoder_2(x: np.ndarray, **attrs: Any) -> np.ndarray:
    """Version 2: list attributes; float keys compare bit for bit."""
    keys, values = _attribute_lists(attrs, with_tensors=False)
    default = _default(values, attrs, with_tensors=False)
    x = _check_input(x, keys)
    if keys.dtype.kind == "f":
        bits = np.dtype(f"u{keys.dtype.itemsize}")
        return lookup(keys.view(bits), values, x.astype(keys.dtype).view(bits), default, last_wins=False)
    return lookup(keys, values, x, default, last_wins=False)


def label_encoder_4(x: np.ndarray, **attrs: Any) -> np.ndarray:
    """Version 4: tensor attributes too; a NaN key matches every NaN; the last of a repeated key wins."""
    keys, values = _attribute_lists(attrs, with_tensors=True)
    default = _default(values, attrs, with_tensors=True)
    x = _check_input(x, keys)
    out = lookup(keys, values, x, default, last_wins=True)
    if keys.dtype.kind == "f" and x.dtype.kind == "f":
        nan_keys = np.flatnonzero(np.isnan(keys))
        if len(nan_keys):
            out = np.where(np.isnan(x), values[nan_keys[-1]], out).astype(values.dtype)
    return out


KERNELS = (
    Kernel("LabelEncoder", (1,), label_encoder_1, domain="ai.onnx.ml"),
    Kernel("LabelEncoder", (2,), label_encoder_2, domain="ai.onnx.ml"),
    Kernel("LabelEncoder", (4,), label_encoder_4, domain="ai.onnx.ml"),
)
