"""Initial values of whole-byte types are read-only views over the one kept copy of ``raw_data``.

The view must be exactly what ``onnx.numpy_helper.to_array`` gives (type,
shape, bytes, read-only flag), and everything else goes through the one
decoder (:mod:`sonnx.loader.decode`), whose refusals are ``NonCanonicalValueError``.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, numpy_helper

from sonnx.base.errors import NonCanonicalValueError
from sonnx.loader.external import ExternalData
from sonnx.loader.values import ValueFactory

DTYPES = [
    np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.bool_, np.complex64, np.complex128, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
]
SHAPES = [(), (0,), (3,), (2, 0, 4), (2, 3, 5)]


def _factory(tmp_path: Path) -> ValueFactory:
    path = str(tmp_path / "m.onnx")
    return ValueFactory(path, ExternalData(path, path, check_contents=True))


def _tensor(dtype: type, shape: tuple[int, ...], seed: int) -> TensorProto:
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
    a = bits.view(np.dtype(dtype)).reshape(shape) if bits.size else np.zeros(shape, dtype)
    if dtype is np.bool_:
        a = a.view(np.uint8) % 2 == 1
    t = onnx.TensorProto(name="w", dims=list(shape), data_type=onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))
    t.raw_data = np.ascontiguousarray(a).tobytes()
    return t


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_view_is_what_onnx_decodes(tmp_path: Path, dtype: type, shape: tuple[int, ...]) -> None:
    t = _tensor(dtype, shape, seed=len(shape) * 31 + np.dtype(dtype).itemsize)
    want = numpy_helper.to_array(t)
    got = _factory(tmp_path).dense(t, "w").read()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert got.flags.writeable == want.flags.writeable


def test_reads_share_the_kept_bytes_instead_of_copying(tmp_path: Path) -> None:
    t = numpy_helper.from_array(np.arange(1000, dtype=np.float32), "w")
    value = _factory(tmp_path).dense(t, "w")
    a, b = value.read(), value.read()
    assert np.shares_memory(a, b)
    assert not a.flags.writeable


def test_a_wrong_length_is_refused_by_the_decoder(tmp_path: Path) -> None:
    t = numpy_helper.from_array(np.arange(6, dtype=np.float32), "w")
    t.raw_data = t.raw_data[:-2]
    value = _factory(tmp_path).dense(t, "w")
    with pytest.raises(NonCanonicalValueError, match=r"m\.onnx: tensor 'w': raw_data: 22 bytes for 6 FLOAT elements"):
        value.read()


def test_raw_data_beside_a_typed_field_leaves_the_fast_path(tmp_path: Path) -> None:
    t = numpy_helper.from_array(np.arange(3, dtype=np.int32), "w")
    t.int32_data.extend([7, 8, 9])  # both runtimes read raw_data here; the encoding is still not canonical
    with pytest.raises(NonCanonicalValueError, match="raw_data and int32_data: two storage fields are set"):
        _factory(tmp_path).dense(t, "w").read()


@pytest.mark.parametrize("kind", ["int4", "string", "typed_field"])
def test_types_the_decoder_unpacks_read_as_onnx_does(tmp_path: Path, kind: str) -> None:
    if kind == "int4":
        t = onnx.helper.make_tensor("w", TensorProto.INT4, [3], [1, -2, 7])
    elif kind == "string":
        t = onnx.helper.make_tensor("w", TensorProto.STRING, [2], [b"a", b"bc"])
    else:
        t = onnx.helper.make_tensor("w", TensorProto.FLOAT, [2], [1.5, -2.0])  # float_data, not raw_data
    want = numpy_helper.to_array(t)
    got = _factory(tmp_path).dense(t, "w").read()
    assert got.dtype == want.dtype and got.shape == want.shape and got.tolist() == want.tolist()
    assert np.array_equal(got, want)
