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

from typing import Any, Final

import numpy as np
from onnx import helper as onnx_helper

from ..errors import ExecutionError


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
