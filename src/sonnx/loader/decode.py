"""The one decoder of stored tensor values (spec, reading A13: stored values).

Every value a verdict, a rewrite precondition or the executor reads from a model (initializers,
``Constant`` values, tensor and sparse-tensor attributes, external data) is a ``TensorProto``
decoded here. The decoder accepts only canonical encodings, on which onnxruntime and onnx's
reference evaluator were measured to read the same bits (``tools/measure_decoding.py``):

* exactly one storage: ``raw_data`` (external data arrives as ``raw_data``) or the typed field
  the element type uses; no other typed field, no two fields at once, no ``segment``;
* exactly the element count: ``raw_data`` of the packed size (sub-byte types packed low bits
  first, unused high bits of the last byte zero), a typed field of one entry per element (two per
  complex element, one byte per entry for packed types);
* each widened entry inside its type's range: BOOL 0 or 1 (in ``raw_data`` bytes too), INT8,
  UINT8, INT16, UINT16 their ranges, FLOAT16 and BFLOAT16 bit patterns 0..65535, 8-bit floats and
  packed bytes 0..255, UINT32 in ``uint64_data`` below 2**32;
* strings only in ``string_data`` and valid UTF-8.

Anything else raises :class:`NonCanonicalValueError` naming the tensor, the storage and the
problem: the runtimes read such encodings differently (a BOOL 256 is true for onnxruntime and
false for the reference evaluator) or refuse them, so no reading of them can be established.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import ml_dtypes
import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..base.errors import NonCanonicalValueError

_P = onnx.TensorProto

TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
"""The typed storage fields of ``TensorProto``."""


def _bits(dt: np.dtype[Any]) -> int:
    if dt.kind in "cb" or dt.itemsize > 1:
        return dt.itemsize * 8
    for info in (ml_dtypes.finfo, ml_dtypes.iinfo):
        try:
            return int(info(dt).bits)
        except (ValueError, TypeError):
            continue
    return 8


def _layouts() -> dict[int, tuple[np.dtype[Any], int, str]]:
    """For every fixed-width element type: its NumPy type, its storage bits and its typed field."""
    out: dict[int, tuple[np.dtype[Any], int, str]] = {}
    for _, number in _P.DataType.items():
        if number in (_P.UNDEFINED, _P.STRING):
            continue
        try:
            dt = np.dtype(helper.tensor_dtype_to_np_dtype(number))
            field = helper.tensor_dtype_to_field(number)
        except (KeyError, ValueError, TypeError):
            continue  # a type this onnx or numpy cannot represent: refused as unknown
        out[int(number)] = (dt, _bits(dt), field)
    return out


LAYOUTS = _layouts()

_RANGES: dict[int, tuple[int, int]] = {
    _P.BOOL: (0, 1),
    _P.INT8: (-(2**7), 2**7 - 1),
    _P.UINT8: (0, 2**8 - 1),
    _P.INT16: (-(2**15), 2**15 - 1),
    _P.UINT16: (0, 2**16 - 1),
    _P.FLOAT16: (0, 2**16 - 1),
    _P.BFLOAT16: (0, 2**16 - 1),
    _P.UINT32: (0, 2**32 - 1),
}
"""Range of one typed-field entry for the types stored widened (8-bit floats and packed bytes: 0..255)."""

_NO_TYPED = frozenset({_P.FLOAT6E2M3, _P.FLOAT6E3M2})
"""Packed types with no typed-field encoding both runtimes read (both refuse even onnx's own)."""


def _fail(name: str, storage: str, problem: str) -> NonCanonicalValueError:
    return NonCanonicalValueError(f"tensor {name!r}: {storage}: {problem}")


def _count(t: Any, name: str) -> tuple[tuple[int, ...], int]:
    dims = tuple(int(d) for d in t.dims)
    if any(d < 0 for d in dims):
        raise _fail(name, "dims", f"negative dimension in {list(dims)}")
    return dims, math.prod(dims)


def set_fields(t: Any) -> list[str]:
    """The storage fields of ``t`` that hold something (``raw_data`` when present, even empty)."""
    found = ["raw_data"] if t.HasField("raw_data") else []
    return found + [f for f in TYPED_FIELDS if len(getattr(t, f))]


def type_name(data_type: int) -> str:
    try:
        return str(_P.DataType.Name(data_type))
    except ValueError:
        return f"element type {data_type}"


def packed_bytes(data_type: int, count: int) -> int | None:
    """Bytes ``raw_data`` must hold for ``count`` elements, or None for STRING and unknown types."""
    layout = LAYOUTS.get(data_type)
    return None if layout is None else (count * layout[1] + 7) // 8


def decode(t: Any, name: str) -> np.ndarray:
    """The array ``t`` holds, as both runtimes read it; :class:`NonCanonicalValueError` when not canonical.

    ``t`` is a ``TensorProto`` whose external data, if any, has been read into ``raw_data``.
    """
    if t.HasField("segment"):
        raise _fail(name, "segment", "a tensor stored in segments")
    if t.data_location == _P.EXTERNAL:
        raise _fail(name, "external data", "not read into the tensor before decoding")
    dims, count = _count(t, name)
    fields = set_fields(t)
    if len(fields) > 1:
        raise _fail(name, " and ".join(fields), "two storage fields are set")
    if t.data_type == _P.STRING:
        return _strings(t, name, fields, dims, count)
    layout = LAYOUTS.get(int(t.data_type))
    if layout is None:
        raise _fail(name, "data_type", f"{type_name(int(t.data_type))} has no defined storage")
    dtype, bits, field = layout
    if not fields:
        if count:
            raise _fail(name, "no storage", f"no value for {count} elements")
        return np.zeros(dims, dtype=dtype)
    if fields[0] == "raw_data":
        return decode_raw(t.raw_data, int(t.data_type), dims, name)
    if fields[0] != field:
        raise _fail(name, fields[0], f"{type_name(int(t.data_type))} is stored in {field}, not {fields[0]}")
    return _typed(t, name, dtype, bits, field, dims, count)


def decode_raw(raw: bytes | memoryview | np.ndarray, data_type: int, dims: tuple[int, ...], name: str) -> np.ndarray:
    """The array of ``raw_data`` bytes ``raw`` (read-only when it is a view over them)."""
    dtype, bits, _ = LAYOUTS[data_type]
    count = math.prod(dims)
    data = np.frombuffer(raw, dtype=np.uint8)
    need = (count * bits + 7) // 8
    if data.size != need:
        raise _fail(name, "raw_data", f"{data.size} bytes for {count} {type_name(data_type)} elements ({need} needed)")
    if data_type == _P.BOOL and data.size and int(data.max()) > 1:
        raise _fail(name, "raw_data", f"BOOL byte {int(data.max())} (only 0 and 1 are read alike)")
    if bits < 8:
        return _unpack(data, data_type, dims, count, bits, name, "raw_data")
    if sys.byteorder != "little" and dtype.itemsize > 1:
        return data.view(dtype.newbyteorder("<")).astype(dtype).reshape(dims)
    return data.view(dtype).reshape(dims)


def _unpack(
    data: np.ndarray, data_type: int, dims: tuple[int, ...], count: int, bits: int, name: str, storage: str
) -> np.ndarray:
    """Sub-byte elements packed low bits first; set bits past the last element are refused."""
    used = count * bits % 8
    if used and int(data[-1]) >> used:
        raise _fail(name, storage, f"unused high bits of the last byte are set ({int(data[-1]):#04x})")
    t = _P()
    t.data_type = data_type
    t.dims.extend(dims)
    t.raw_data = data.tobytes()
    return np.asarray(numpy_helper.to_array(t))


def _entries(t: Any, field: str) -> np.ndarray:
    """The typed field as an array of its stored width (bit-exact: no conversion through Python floats)."""
    kind = {"float_data": np.float32, "double_data": np.float64, "uint64_data": np.uint64}.get(field, np.int64)
    return np.asarray(getattr(t, field), dtype=kind)


def _typed(
    t: Any, name: str, dtype: np.dtype[Any], bits: int, field: str, dims: tuple[int, ...], count: int
) -> np.ndarray:
    data_type = int(t.data_type)
    entries = _entries(t, field)
    if data_type in _NO_TYPED:
        raise _fail(name, field, f"{type_name(data_type)} in a typed field is read by neither runtime")
    per = 2 if dtype.kind == "c" else 1
    need = (count * bits + 7) // 8 if bits < 8 else count * per
    if entries.size != need:
        raise _fail(name, field, f"{entries.size} entries for {count} {type_name(data_type)} elements ({need} needed)")
    if data_type in _RANGES:
        low, high = _RANGES[data_type]
    elif field == "int32_data" and data_type != _P.INT32:
        low, high = 0, 255  # 8-bit floats as bit patterns, packed types as bytes
    else:
        low, high = 0, -1  # the entry is the element: any value of the field is in range
    if high >= low and entries.size:
        lo, hi = int(entries.min()), int(entries.max())
        if lo < low or hi > high:
            bad = lo if lo < low else hi
            raise _fail(name, field, f"entry {bad} outside {low}..{high}, the range of {type_name(data_type)}")
    if bits < 8:
        return _unpack(entries.astype(np.uint8), data_type, dims, count, bits, name, field)
    if dtype.kind == "c":
        return entries.view(dtype).reshape(dims).copy()
    if dtype.kind in "iub":
        return entries.astype(dtype).reshape(dims)
    if entries.dtype == dtype:
        return entries.reshape(dims)
    return entries.astype(np.dtype(f"<u{dtype.itemsize}")).view(dtype).reshape(dims)


def _strings(t: Any, name: str, fields: list[str], dims: tuple[int, ...], count: int) -> np.ndarray:
    if fields and fields[0] != "string_data":
        raise _fail(name, fields[0], "STRING is stored in string_data only")
    items = list(t.string_data)
    if len(items) != count:
        raise _fail(name, "string_data", f"{len(items)} entries for {count} STRING elements")
    out = np.empty(count, dtype=object)
    for k, s in enumerate(items):
        try:
            out[k] = s.decode("utf-8")
        except UnicodeDecodeError:
            raise _fail(name, "string_data", f"entry {k} is not UTF-8") from None
    return out.reshape(dims)
