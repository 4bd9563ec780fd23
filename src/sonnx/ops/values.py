"""The values kernels compute with, and the element types they carry.

ONNX values are tensors, sequences of tensors, maps and optionals. The
executor represents them as:

* a tensor: a ``numpy.ndarray``; element types NumPy lacks (bfloat16, the
  float8 and float4 variants, 2- and 4-bit integers) use the ``ml_dtypes``
  types that onnx itself maps them to (:func:`numpy_dtype`);
* a sequence: a Python ``list`` of values (an empty sequence is ``[]``);
* a map: a Python ``dict`` from keys (int or str) to values;
* an optional: the held value itself when it holds one, and :data:`EMPTY`
  when it holds none.

An omitted optional *input* (the empty name in an input mapping) is passed
to a kernel as ``None``, which is distinct from :data:`EMPTY`, an optional
*value* that is empty. [Non-normative: ONNX lets ``OptionalHasElement`` and
``OptionalGetElement`` take a plain tensor or sequence since opset 18, so an
optional holding a value needs no wrapper of its own.]
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

import numpy as np
from onnx import helper as onnx_helper

from ..base.errors import ExecutionError


class EmptyOptional:
    """The value of an optional that holds nothing (one instance: :data:`EMPTY`)."""

    _instance: EmptyOptional | None = None

    def __new__(cls) -> EmptyOptional:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "EMPTY"

    def __reduce__(self) -> str:
        return "EMPTY"


EMPTY: Final = EmptyOptional()


def is_value(x: Any) -> bool:
    """Whether ``x`` is a value a kernel may return (tensor, sequence, map or empty optional)."""
    return isinstance(x, (np.ndarray, list, dict, EmptyOptional))


def numpy_dtype(elem_type: int) -> np.dtype[Any]:
    """The NumPy dtype of an ONNX element type (``TensorProto.DataType``), ml_dtypes where NumPy has none."""
    try:
        return np.dtype(onnx_helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, TypeError, ValueError):
        raise ExecutionError(f"element type {elem_type} has no NumPy equivalent") from None


def elem_type_name(elem_type: int) -> str:
    """``FLOAT``, ``INT64``... for messages (the number itself when onnx does not know it)."""
    try:
        return str(onnx_helper.tensor_dtype_to_string(elem_type)).removeprefix("TensorProto.")
    except (KeyError, TypeError, ValueError):
        return str(elem_type)


def describe(x: Any) -> str:
    """A short description of a value for messages: ``float32[2, 3]``, ``sequence of 4``, ``map of 2``."""
    if isinstance(x, np.ndarray):
        return f"{x.dtype}{list(x.shape)}"
    if isinstance(x, list):
        return f"sequence of {len(x)}"
    if isinstance(x, dict):
        return f"map of {len(x)}"
    if isinstance(x, EmptyOptional):
        return "empty optional"
    return type(x).__name__


def value_bytes(value: Any) -> bytes:
    """A canonical byte encoding of a value: equal bytes if and only if the values are bit-identical.

    A numeric tensor contributes its dtype, shape and C-order bytes (NaN
    payloads and the sign of zero count); a string tensor its strings in
    UTF-8, each with its length; a sequence its elements in order; a map its
    keys in sorted order with their values; the empty optional a tag of its
    own. Object arrays are never encoded by their pointers, so the encoding
    is the same in every process.
    """
    out: list[bytes] = []
    stack: list[Any] = [value]
    while stack:  # iterative: a sequence of sequences costs no Python stack
        v = stack.pop()
        if isinstance(v, EmptyOptional):
            out.append(b"E")
        elif isinstance(v, list):
            out.append(b"L%d;" % len(v))
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            keys = sorted(v)
            out.append(b"M%d;" % len(keys))
            for k in reversed(keys):
                stack.append(v[k])
                stack.append(np.asarray(k))
        else:
            arr = np.asarray(v, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
            out.append(f"T{arr.dtype.str}{list(arr.shape)};".encode())
            if arr.dtype.kind in "OUS":
                for s in arr.reshape(-1):
                    b = str(s).encode("utf-8") if not isinstance(s, bytes) else s
                    out.append(b"%d:" % len(b) + b)
            else:
                out.append(arr.tobytes())
    return b"".join(out)


def same_value(a: Any, b: Any) -> bool:
    """Bit-identical values (tensors, sequences, maps, optionals): see :func:`value_bytes`."""
    return value_bytes(a) == value_bytes(b)


def value_digest(value: Any) -> dict[str, Any]:
    """How a value is recorded: its dtype and shape (tensors) or kind, and the SHA-256 of :func:`value_bytes`."""
    if isinstance(value, (list, dict, EmptyOptional)):
        kind = "sequence" if isinstance(value, list) else "map" if isinstance(value, dict) else "optional"
        return {"kind": kind, "sha256": hashlib.sha256(value_bytes(value)).hexdigest()}
    arr = np.asarray(value, order="C")
    return {
        "dtype": arr.dtype.name,
        "shape": [int(d) for d in arr.shape],
        "sha256": hashlib.sha256(value_bytes(arr)).hexdigest(),
    }
