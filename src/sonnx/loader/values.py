"""Initial values (ONNX initializers and tensor attributes) as lazy :class:`InitialValue` objects.

A value keeps the serialized ``TensorProto`` (a few bytes of header plus the
embedded data, if any) and decodes it only when ``read()`` is called, so a
model can be checked for structure without materialising its weights.

Every value is read by the one decoder, :mod:`.decode` (spec, reading
A13), which refuses encodings the runtimes may read differently.
A tensor of a whole-byte element type with exactly the expected length of
``raw_data`` and no other storage keeps only those bytes, and ``read()``
returns the decoder's read-only view over them (BOOL bytes checked in one
pass, other types not looked at). The
main graph's initializers are not kept at all: the loader leaves their bytes
in the file (:mod:`.detach`) and ``read()`` reads them from it, so the
decoded arrays are the only copy of the weights while a model runs.
External data is located and checked when the value is built (see
:mod:`.external`); its bytes are read by the reader.
"""

from __future__ import annotations

import math
import sys
from functools import partial
from typing import Any

import numpy as np
import onnx

from ..base.errors import ModelFormatError, NonCanonicalValueError
from ..model.graph import ExternalLocation, InitialValue
from .decode import TYPED_FIELDS, decode_raw
from .detach import ModelFile, Span, read_span
from .external import ExternalData, decode_tensor, read_external
from .proto import EXTERNAL


def _read_embedded(model_path: str, blob: bytes, name: str) -> Any:
    return decode_tensor(model_path, onnx.TensorProto.FromString(blob), name)


_P = onnx.TensorProto
_WHOLE_BYTES = frozenset({
    _P.FLOAT, _P.UINT8, _P.INT8, _P.UINT16, _P.INT16, _P.INT32, _P.INT64, _P.BOOL, _P.FLOAT16, _P.DOUBLE,
    _P.UINT32, _P.UINT64, _P.COMPLEX64, _P.COMPLEX128, _P.BFLOAT16, _P.FLOAT8E4M3FN, _P.FLOAT8E4M3FNUZ,
    _P.FLOAT8E5M2, _P.FLOAT8E5M2FNUZ, _P.FLOAT8E8M0,
})
"""Element types whose ``raw_data`` is read by :func:`.decode.decode_raw` as a view, without unpacking."""


def _plain(t: Any) -> tuple[int, tuple[int, ...], int] | None:
    """(element type, dims, bytes) when ``t``'s value is its ``raw_data`` alone, read as a view.

    That is a whole-byte type of :data:`_WHOLE_BYTES` on a little-endian
    machine, with no ``segment`` and no typed field set beside ``raw_data``
    (:func:`.decode.decode_raw` still checks the length, and BOOL bytes);
    None sends the whole tensor through :func:`.decode.decode`.
    """
    if sys.byteorder != "little" or t.data_type not in _WHOLE_BYTES or t.HasField("segment"):
        return None
    if any(len(getattr(t, f)) for f in TYPED_FIELDS):
        return None
    dims = tuple(int(d) for d in t.dims)
    if any(d < 0 for d in dims):
        return None
    data_type = int(t.data_type)
    return data_type, dims, math.prod(dims) * np.dtype(onnx.helper.tensor_dtype_to_np_dtype(data_type)).itemsize


def _decode_raw(model_path: str, raw: Any, data_type: int, dims: tuple[int, ...], name: str) -> np.ndarray:
    """:func:`.decode.decode_raw`, its refusals naming the model file; the array is read-only."""
    try:
        a = decode_raw(raw, data_type, dims, name)
    except NonCanonicalValueError as e:
        raise NonCanonicalValueError(f"{model_path}: {e}") from None
    a.flags.writeable = False  # a view over the one kept copy of the bytes
    return a


def _read_plain_span(file: ModelFile, span: Span, data_type: int, dims: tuple[int, ...], name: str) -> Any:
    return _decode_raw(file.display, read_span(file, span, name), data_type, dims, name)


def _read_span_tensor(file: ModelFile, span: Span, blob: bytes, name: str) -> Any:
    t = onnx.TensorProto.FromString(blob)
    t.raw_data = read_span(file, span, name).tobytes()
    return decode_tensor(file.display, t, name)


class ValueFactory:
    """Builds :class:`InitialValue` objects for one model file.

    ``external`` checks external-data locations against the model's folder;
    ``file`` is the model file itself, for the weights the loader left in it
    (:mod:`.detach`).
    """

    def __init__(self, model_path: str, external: ExternalData, file: ModelFile | None = None) -> None:
        self.model_path = model_path
        self.external = external
        self.file = file
        self.data_types: set[int] = set()
        """The element types of every tensor value made (the IR-version check reads them)."""

    def _reader(self, t: Any, name: str, span: Span | None = None) -> tuple[ExternalLocation | None, Any]:
        """Where the tensor's bytes are (None when embedded) and a function returning its array.

        ``span`` is where the tensor's ``raw_data`` lies in the model file when
        the loader cut it out of the message (:mod:`.detach`); ``t`` then has
        no ``raw_data`` of its own and the bytes are read when the value is.
        """
        plain = _plain(t)
        if span is not None and self.file is not None:
            if plain is not None and plain[2] == span.length:
                return None, partial(_read_plain_span, self.file, span, plain[0], plain[1], name)
            return None, partial(_read_span_tensor, self.file, span, t.SerializeToString(), name)
        if plain is not None and t.data_location != EXTERNAL and t.HasField("raw_data"):
            raw = t.raw_data
            if len(raw) == plain[2]:
                return None, partial(_decode_raw, self.model_path, raw, plain[0], plain[1], name)
        blob = t.SerializeToString()
        if t.data_location == EXTERNAL:
            dims = tuple(int(d) for d in t.dims)
            entries = [(e.key, e.value) for e in t.external_data]
            where = self.external.locate(name, entries, int(t.data_type), dims)
            return where, partial(read_external, self.model_path, self.external.base, blob, where, name)
        return None, partial(_read_embedded, self.model_path, blob, name)

    def dense(self, t: Any, name: str, span: Span | None = None) -> InitialValue:
        """The value of a (shallow) ``TensorProto``; ``name`` is used in messages; ``span`` as for ``_reader``."""
        where, reader = self._reader(t, name, span)
        self.data_types.add(int(t.data_type))
        return InitialValue(int(t.data_type), tuple(int(d) for d in t.dims), False, where, reader)

    def sparse(self, s: Any, name: str) -> InitialValue:
        """The value of a ``SparseTensorProto``; ``read()`` returns the dense array."""
        v_where, v_reader = self._reader(s.values, name)
        i_where, i_reader = self._reader(s.indices, name + " (indices)")
        dims = tuple(int(d) for d in s.dims)
        reader = partial(_densify, self.model_path, name, dims, v_reader, i_reader)
        where = v_where if v_where is not None else i_where
        self.data_types.update((int(s.values.data_type), int(s.indices.data_type)))
        return InitialValue(int(s.values.data_type), dims, True, where, reader)


def _refuse_repeats(bad: str, positions: np.ndarray) -> None:
    """Refuse a sparse tensor that names one position twice (spec, reading A13).

    ONNX requires the indices in increasing order, so a position named twice is
    not canonical: onnx's checker rejects it, and which of the two values a
    runtime keeps is its own choice (onnxruntime 1.32 keeps the last; onnx's
    reference evaluator reads no sparse initializer at all).
    """
    if positions.size < 2:
        return
    ordered = np.sort(positions, kind="stable")
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if same.size:
        raise NonCanonicalValueError(f"{bad}: position {int(ordered[same[0]])} is named twice by the indices")


def _densify(model_path: str, name: str, dims: tuple[int, ...], v_reader: Any, i_reader: Any) -> Any:
    """Scatter the values of a sparse tensor into a dense array of shape ``dims``.

    ONNX allows two index layouts: ``[NNZ]`` linear positions, or ``[NNZ, rank]``
    coordinates. Anything else, or an index out of range, is a format error.
    """
    values = np.asarray(v_reader())
    indices = np.asarray(i_reader())
    bad = f"{model_path}: sparse tensor {name!r}"
    if values.ndim != 1:
        raise ModelFormatError(f"{bad}: values have rank {values.ndim}, expected 1")
    if any(d < 0 for d in dims):
        raise ModelFormatError(f"{bad}: negative dimension in {list(dims)}")
    if indices.dtype.kind not in "iu":
        raise ModelFormatError(f"{bad}: indices are not integers")
    nnz = values.shape[0]
    try:
        dense = np.zeros(dims, dtype=values.dtype)
    except (ValueError, MemoryError) as e:
        raise ModelFormatError(f"{bad}: a dense array of shape {list(dims)} cannot be built: {e}") from None
    try:
        if indices.ndim == 1 and indices.shape[0] == nnz:
            flat = dense.reshape(-1)
            if nnz and (indices.min() < 0 or indices.max() >= flat.shape[0]):
                raise IndexError("index out of range")
            _refuse_repeats(bad, indices)
            flat[indices] = values
        elif indices.ndim == 2 and indices.shape == (nnz, len(dims)):
            if nnz and (indices.min() < 0 or np.any(indices >= np.asarray(dims))):
                raise IndexError("index out of range")
            if nnz and dims:
                _refuse_repeats(bad, np.ravel_multi_index(tuple(indices.T), dims))
            dense[tuple(indices.T)] = values
        else:
            raise ModelFormatError(
                f"{bad}: indices of shape {list(indices.shape)} do not fit {nnz} values of a rank-{len(dims)} tensor"
            )
    except IndexError as e:
        raise ModelFormatError(f"{bad}: {e}") from None
    return dense
