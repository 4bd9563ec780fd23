"""Initial values (ONNX initializers and tensor attributes) as lazy :class:`InitialValue` objects.

A value keeps the serialized ``TensorProto`` (a few bytes of header plus the
embedded data, if any) and decodes it only when ``read()`` is called, so a
model can be checked for structure without materialising its weights.
External data is located and checked when the value is built (see
:mod:`.external`); its bytes are read by the reader.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import onnx

from ..errors import ModelFormatError
from ..model.graph import ExternalLocation, InitialValue
from .external import ExternalData, decode_tensor, read_external
from .proto import EXTERNAL


def _read_embedded(model_path: str, blob: bytes, name: str) -> Any:
    return decode_tensor(model_path, onnx.TensorProto.FromString(blob), name)


class ValueFactory:
    """Builds :class:`InitialValue` objects for one model file.

    ``external`` checks external-data locations against the model's folder.
    """

    def __init__(self, model_path: str, external: ExternalData) -> None:
        self.model_path = model_path
        self.external = external

    def _reader(self, t: Any, name: str) -> tuple[ExternalLocation | None, Any]:
        """Where the tensor's bytes are (None when embedded) and a function returning its array."""
        blob = t.SerializeToString()
        if t.data_location == EXTERNAL:
            dims = tuple(int(d) for d in t.dims)
            entries = [(e.key, e.value) for e in t.external_data]
            where = self.external.locate(name, entries, int(t.data_type), dims)
            return where, partial(read_external, self.model_path, self.external.base, blob, where, name)
        return None, partial(_read_embedded, self.model_path, blob, name)

    def dense(self, t: Any, name: str) -> InitialValue:
        """The value of a (shallow) ``TensorProto``; ``name`` is used in messages."""
        where, reader = self._reader(t, name)
        return InitialValue(int(t.data_type), tuple(int(d) for d in t.dims), False, where, reader)

    def sparse(self, s: Any, name: str) -> InitialValue:
        """The value of a ``SparseTensorProto``; ``read()`` returns the dense array."""
        v_where, v_reader = self._reader(s.values, name)
        i_where, i_reader = self._reader(s.indices, name + " (indices)")
        dims = tuple(int(d) for d in s.dims)
        reader = partial(_densify, self.model_path, name, dims, v_reader, i_reader)
        where = v_where if v_where is not None else i_where
        return InitialValue(int(s.values.data_type), dims, True, where, reader)


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
            flat[indices] = values
        elif indices.ndim == 2 and indices.shape == (nnz, len(dims)):
            if nnz and (indices.min() < 0 or np.any(indices >= np.asarray(dims))):
                raise IndexError("index out of range")
            dense[tuple(indices.T)] = values
        else:
            raise ModelFormatError(
                f"{bad}: indices of shape {list(indices.shape)} do not fit {nnz} values of a rank-{len(dims)} tensor"
            )
    except IndexError as e:
        raise ModelFormatError(f"{bad}: {e}") from None
    return dense
