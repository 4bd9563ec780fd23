"""Input values written as JSON: the file form of every input kind (tensor, map, sequence, optional).

``.npz`` can hold only tensors, so a map, a sequence or an optional input is
given in a JSON file instead. The file is one object keyed by graph-input
name; each value is one of (exactly these keys, nothing else):

* a tensor: ``{"data": ..., "dtype": "float32", "shape": [1, 3]}``. ``data``
  is a number, boolean or string, or nested lists of them. ``dtype`` (an ONNX
  element type name such as ``float``, ``int64``, ``string``, or a NumPy name
  such as ``float32``) may be left out when the model declares the element
  type, and must equal it when both are given. ``shape``, when given, is the
  shape the flat list of elements takes; otherwise the nesting is the shape.
  Integers must be JSON integers in the type's range; floats take any JSON
  number or the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``; booleans
  ``true``/``false``; strings JSON strings;
* a map: ``{"map": {"key": value, ...}}``. JSON keys are text: a map with
  STRING keys takes them as they are, a map with integer keys takes each as
  the decimal text of an integer (``"-3"``). Each value is a JSON scalar of
  the declared value type (a one-element tensor type, as ML maps declare);
* a sequence: ``{"sequence": [value, ...]}``, each value in the form of the
  declared element type;
* an optional: ``{"optional": null}`` for the empty optional, or
  ``{"optional": value}``.

The declared type decides the kind: a value in another form is refused with
one line naming the input. ``sonnx run --output FILE.json`` writes the
outputs in the same form (:func:`file_form`), so what it writes reads back
exactly. The file is parsed strictly
(:mod:`sonnx.base.strict_json`: no key twice, bounded nesting, no bare NaN).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from ...base.errors import InputError, UsageError
from ...base.strict_json import loads
from ...model.graph import TensorType
from ...ops.values import EMPTY, elem_type_name, numpy_dtype

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects an inputs file may have."""
_TENSOR_KEYS = frozenset({"data", "dtype", "shape"})
_NARROW_INTS: dict[int, tuple[int, int]] = {
    TensorProto.INT4: (-8, 7), TensorProto.UINT4: (0, 15), TensorProto.INT2: (-2, 1), TensorProto.UINT2: (0, 3)
}
"""The sub-byte integer types (NumPy has no integer kind for them) and their ranges."""
_FLOAT_WORDS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _element_type(where: str, text: Any) -> int:
    """The ONNX element type a ``dtype`` text names (ONNX or NumPy spelling)."""
    if not isinstance(text, str) or not text:
        raise InputError(f"{where}: dtype must be a type name such as \"float32\" or \"string\"")
    upper = text.upper()
    if upper in TensorProto.DataType.keys() and upper != "UNDEFINED":
        return int(TensorProto.DataType.Value(upper))
    try:
        return int(helper.np_dtype_to_tensor_dtype(np.dtype(text)))
    except (TypeError, ValueError, KeyError):
        raise InputError(f"{where}: {text!r} is not an element type") from None


def _flat(where: str, data: Any) -> tuple[list[Any], tuple[int, ...]]:
    """The scalars of nested lists in order, and the shape the nesting gives (refused when ragged)."""
    if not isinstance(data, list):
        return [data], ()
    if not data:
        return [], (0,)
    parts = [_flat(where, item) for item in data]
    inner = parts[0][1]
    if any(shape != inner for _, shape in parts):
        raise InputError(f"{where}: the nested lists of data are ragged; give a flat list and a shape")
    return [x for items, _ in parts for x in items], (len(data), *inner)


def _convert(where: str, et: int, items: list[Any]) -> np.ndarray:
    """The scalars as a 1-D array of element type ``et``, each checked against what the type can hold."""
    if et == TensorProto.STRING:
        if not all(isinstance(x, str) for x in items):
            raise InputError(f"{where}: a STRING tensor takes JSON strings only")
        return np.array(items, dtype=object).reshape(len(items))
    dtype = numpy_dtype(et)
    if et == TensorProto.BOOL:
        if not all(isinstance(x, bool) for x in items):
            raise InputError(f"{where}: a BOOL tensor takes true and false only")
        return np.array(items, dtype=np.bool_).reshape(len(items))
    narrow = et in _NARROW_INTS
    if dtype.kind in "iu" or narrow:
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
            raise InputError(f"{where}: a {elem_type_name(et)} tensor takes JSON integers only")
        low, high = _NARROW_INTS[et] if narrow else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
        bad = next((x for x in items if not low <= x <= high), None)
        if bad is not None:
            raise InputError(f"{where}: {bad} is outside the range of {elem_type_name(et)} [{low}, {high}]")
        return np.array(items, dtype=np.int64 if low < 0 else np.uint64).astype(dtype).reshape(len(items))
    if dtype.kind == "c":
        raise InputError(f"{where}: complex tensors cannot be given in JSON; use an .npz file")
    numbers = []
    for x in items:
        if isinstance(x, str) and x in _FLOAT_WORDS:
            numbers.append(_FLOAT_WORDS[x])
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            try:
                numbers.append(float(x))
            except OverflowError:
                raise InputError(f"{where}: {x} is too large for a floating-point number") from None
        else:
            raise InputError(f"{where}: a {elem_type_name(et)} tensor takes numbers, \"NaN\", \"Infinity\", "
                             f"\"-Infinity\" only, not {x!r}")
    with np.errstate(over="ignore"):
        return np.array(numbers, dtype=np.float64).astype(dtype).reshape(len(items))


def _tensor(where: str, ttype: TensorType | None, spec: Any) -> np.ndarray:
    if not isinstance(spec, dict) or "data" not in spec or not set(spec) <= _TENSOR_KEYS:
        raise InputError(f"{where}: a tensor is declared; give {{\"data\": ..., \"dtype\"?: ..., \"shape\"?: [...]}}")
    declared = ttype.elem_type if ttype is not None else 0
    et = _element_type(where, spec["dtype"]) if "dtype" in spec else declared
    if et == 0:
        raise InputError(f"{where}: the model declares no element type; give a dtype")
    if declared and et != declared:
        raise InputError(
            f"{where}: dtype {elem_type_name(et)} is given, the model declares {elem_type_name(declared)}"
        )
    items, nested = _flat(where, spec["data"])
    shape = nested
    if "shape" in spec:
        given = spec["shape"]
        if not isinstance(given, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                  for d in given):
            raise InputError(f"{where}: shape must be a list of sizes (integers >= 0)")
        shape = tuple(given)
        if math.prod(shape) != len(items):
            raise InputError(f"{where}: shape {list(shape)} holds {math.prod(shape)} elements, data has {len(items)}")
    return _convert(where, et, items).reshape(shape)


def _map_key(where: str, key_type: int, key: str) -> Any:
    if key_type == TensorProto.STRING:
        return key
    try:
        value = int(key, 10)
    except ValueError:
        raise InputError(f"{where}: the map's keys are {elem_type_name(key_type)}; {key!r} is not an integer") from None
    _convert(where, key_type, [value])  # refuses a key outside the key type's range
    return value


def _map(where: str, ttype: TensorType, spec: Any) -> dict[Any, Any]:
    if not isinstance(spec, dict):
        raise InputError(f"{where}: a map is given as a JSON object")
    value_type = ttype.element
    if value_type is None or value_type.kind != "tensor" or value_type.elem_type == 0:
        raise InputError(f"{where}: the map's declared value type is not a tensor element type")
    out: dict[Any, Any] = {}
    for key, raw in spec.items():
        arr = _convert(f"{where}[{key!r}]", value_type.elem_type, [raw])
        out[_map_key(where, ttype.elem_type, key)] = arr[0] if value_type.elem_type != TensorProto.STRING else raw
    return out


def value_of(where: str, ttype: TensorType | None, spec: Any) -> Any:
    """The executor's value for ``spec`` (one value of the file form above) of declared type ``ttype``."""
    kind = "tensor" if ttype is None else ttype.kind
    if kind == "sparse_tensor":
        kind = "tensor"
    wrapper = next(iter(spec)) if isinstance(spec, dict) and len(spec) == 1 else None
    if kind == "map":
        if wrapper != "map":
            raise InputError(f"{where}: a map is declared; give {{\"map\": {{...}}}}")
        assert ttype is not None
        return _map(where, ttype, spec["map"])
    if kind == "sequence":
        assert ttype is not None
        if wrapper != "sequence" or not isinstance(spec["sequence"], list):
            raise InputError(f"{where}: a sequence is declared; give {{\"sequence\": [...]}}")
        return [value_of(f"{where}[{k}]", ttype.element, item) for k, item in enumerate(spec["sequence"])]
    if kind == "optional":
        assert ttype is not None
        if wrapper != "optional":
            raise InputError(f"{where}: an optional is declared; give {{\"optional\": null}} or {{\"optional\": ...}}")
        held = spec["optional"]
        return EMPTY if held is None else value_of(f"{where}?", ttype.element, held)
    if kind != "tensor":
        raise InputError(f"{where}: inputs of kind {kind!r} cannot be given by this version")
    return _tensor(where, ttype, spec)


def _scalar(x: Any) -> Any:
    """One element in its JSON form: floats exactly (their float64 value), NaN and infinities as words."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, str):
        return x
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (complex, np.complexfloating)):
        raise UsageError("a complex value cannot be written as JSON; use an .npz file")
    f = float(x)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    return f


def file_form(ttype: TensorType | None, value: Any) -> Any:
    """``value`` (of declared type ``ttype``) in the file form above, which :func:`value_of` reads back."""
    kind = "tensor" if ttype is None else ttype.kind
    inner = ttype.element if ttype is not None else None
    if kind == "optional":
        return {"optional": None if value is EMPTY or value is None else file_form(inner, value)}
    if isinstance(value, list):
        return {"sequence": [file_form(inner if kind == "sequence" else None, v) for v in value]}
    if isinstance(value, dict):
        return {"map": {str(k): _scalar(np.asarray(v).reshape(-1)[0] if isinstance(v, np.ndarray) else v)
                        for k, v in value.items()}}
    arr = np.asarray(value)
    et = ttype.elem_type if ttype is not None and ttype.elem_type else 0
    if not et:
        et = TensorProto.STRING if arr.dtype.kind in "OUS" else int(helper.np_dtype_to_tensor_dtype(arr.dtype))
    return {"dtype": TensorProto.DataType.Name(et).lower(), "shape": list(arr.shape),
            "data": [_scalar(x) for x in arr.reshape(-1).tolist()]}


def parse_inputs(text: str, path: str, types: dict[str, TensorType | None]) -> dict[str, Any]:
    """The values of a JSON inputs file (text already read), typed by the declared ``types`` by input name.

    A name that is not a key of ``types`` (no graph input) is a :class:`UsageError`.
    """
    try:
        data = loads(text, MAX_DEPTH)
    except ValueError as exc:
        raise InputError(f"{path}: not readable JSON ({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: an inputs file is a JSON object keyed by graph-input name")
    unknown = sorted(set(data) - set(types))
    if unknown:
        raise UsageError(f"not graph inputs of the model: {', '.join(unknown)}")
    return {name: value_of(f"{path}: input {name!r}", types.get(name), spec) for name, spec in data.items()}


def parse_value(text: str, path: str, name: str, ttype: TensorType | None) -> Any:
    """One value in the file form above, for ``--input NAME=FILE.json``."""
    try:
        data = loads(text, MAX_DEPTH)
    except ValueError as exc:
        raise InputError(f"{path}: not readable JSON ({' '.join(str(exc).split())})") from None
    return value_of(f"{path}: input {name!r}", ttype, data)
