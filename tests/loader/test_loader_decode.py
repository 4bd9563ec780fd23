"""The decoder's refusals, one per class of non-canonical encoding (spec, reading A13).

Each case names the storage and the problem in a one-line :class:`NonCanonicalValueError`; the
differential test (``test_loader_decode_differential``) checks that what is accepted is read as
the runtimes read it. Here the classes whose refusal the runtimes alone would not force (both
read ``raw_data`` when a typed field is also set) are pinned too.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from sonnx.base.errors import ModelFormatError, NonCanonicalValueError
from sonnx.loader.decode import decode

P = TensorProto


def _t(data_type: int, dims: list[int], **fields: object) -> TensorProto:
    t = TensorProto(name="w", data_type=data_type, dims=dims)
    for k, v in fields.items():
        if k == "raw_data":
            t.raw_data = v  # type: ignore[assignment]
        else:
            getattr(t, k).extend(v)
    return t


REFUSED = [
    ("two fields", _t(P.INT32, [2], raw_data=b"\0" * 8, int32_data=[1, 2]), "raw_data and int32_data: two storage"),
    ("two typed", _t(P.FLOAT, [1], float_data=[1.0], double_data=[1.0]), "float_data and double_data: two storage"),
    ("wrong field", _t(P.INT32, [2], int64_data=[1, 2]), "INT32 is stored in int32_data, not int64_data"),
    ("short raw", _t(P.FLOAT, [2], raw_data=b"\0" * 7), "raw_data: 7 bytes for 2 FLOAT elements (8 needed)"),
    ("long typed", _t(P.INT64, [1], int64_data=[1, 2]), "int64_data: 2 entries for 1 INT64 elements (1 needed)"),
    ("no storage", _t(P.FLOAT, [3]), "no storage: no value for 3 elements"),
    ("bool 256", _t(P.BOOL, [1], int32_data=[256]), "entry 256 outside 0..1, the range of BOOL"),
    ("bool -1", _t(P.BOOL, [2], int32_data=[0, -1]), "entry -1 outside 0..1"),
    ("bool raw 2", _t(P.BOOL, [2], raw_data=b"\x01\x02"), "raw_data: BOOL byte 2"),
    ("int8 128", _t(P.INT8, [1], int32_data=[128]), "entry 128 outside -128..127, the range of INT8"),
    ("uint8 -1", _t(P.UINT8, [1], int32_data=[-1]), "entry -1 outside 0..255, the range of UINT8"),
    ("int16", _t(P.INT16, [1], int32_data=[-32769]), "outside -32768..32767"),
    ("uint16", _t(P.UINT16, [1], int32_data=[65536]), "outside 0..65535"),
    ("float16", _t(P.FLOAT16, [1], int32_data=[65536]), "outside 0..65535, the range of FLOAT16"),
    ("bfloat16", _t(P.BFLOAT16, [1], int32_data=[-1]), "outside 0..65535, the range of BFLOAT16"),
    ("float8", _t(P.FLOAT8E4M3FN, [1], int32_data=[256]), "outside 0..255, the range of FLOAT8E4M3FN"),
    ("uint32", _t(P.UINT32, [1], uint64_data=[2**32]), "outside 0..4294967295, the range of UINT32"),
    ("int4 byte", _t(P.INT4, [2], int32_data=[256]), "outside 0..255, the range of INT4"),
    ("int4 padding", _t(P.INT4, [1], raw_data=b"\x17"), "raw_data: unused high bits of the last byte are set (0x17)"),
    ("uint2 padding", _t(P.UINT2, [3], int32_data=[0xC0]), "int32_data: unused high bits"),
    ("int4 short", _t(P.INT4, [3], raw_data=b"\x11"), "raw_data: 1 bytes for 3 INT4 elements (2 needed)"),
    ("float6 typed", _t(P.FLOAT6E2M3, [1], int32_data=[1]), "FLOAT6E2M3 in a typed field is read by neither"),
    ("complex odd", _t(P.COMPLEX64, [2], float_data=[1.0, 2.0, 3.0]), "3 entries for 2 COMPLEX64 elements (4 needed)"),
    ("string raw", _t(P.STRING, [1], raw_data=b"abc"), "raw_data: STRING is stored in string_data only"),
    ("string utf8", _t(P.STRING, [2], string_data=[b"ok", b"\xff"]), "string_data: entry 1 is not UTF-8"),
    ("string short", _t(P.STRING, [2], string_data=[b"ok"]), "string_data: 1 entries for 2 STRING elements"),
    ("undefined", _t(P.UNDEFINED, [0]), "data_type: UNDEFINED has no defined storage"),
    ("unknown type", _t(99, [0]), "data_type: element type 99 has no defined storage"),
    ("negative dim", _t(P.FLOAT, [-1]), "dims: negative dimension in [-1]"),
]


@pytest.mark.parametrize(("t", "message"), [(t, m) for _, t, m in REFUSED], ids=[k for k, _, _ in REFUSED])
def test_each_non_canonical_class_is_refused_by_name(t: TensorProto, message: str) -> None:
    with pytest.raises(NonCanonicalValueError) as caught:
        decode(t, "w")
    line = caught.value.one_line()
    assert line.startswith("tensor 'w': ") and message in line, line
    assert isinstance(caught.value, ModelFormatError) and caught.value.exit_code == 2


def test_a_segmented_or_unread_external_tensor_is_refused() -> None:
    t = _t(P.FLOAT, [1], raw_data=b"\0" * 4)
    t.segment.begin = 0
    with pytest.raises(NonCanonicalValueError, match="segment: a tensor stored in segments"):
        decode(t, "w")
    t = _t(P.FLOAT, [1])
    t.data_location = P.EXTERNAL
    with pytest.raises(NonCanonicalValueError, match="external data: not read"):
        decode(t, "w")


ACCEPTED = [
    np.array([True, False, True]),
    np.array([-128, 127, 0], np.int8),
    np.array([0, 65535], np.uint16),
    np.array([[1.5, -0.0], [np.inf, -2.0]], np.float16),
    np.array([1 + 2j, -3.5j], np.complex64),
    np.array([2**32 - 1, 0], np.uint32),
    np.zeros((2, 0, 3), np.float32),
]


@pytest.mark.parametrize("a", ACCEPTED, ids=lambda a: f"{a.dtype}{list(a.shape)}")
@pytest.mark.parametrize("raw", [True, False], ids=["raw_data", "typed"])
def test_canonical_encodings_read_as_onnx_writes_them(a: np.ndarray, raw: bool) -> None:
    t = numpy_helper.from_array(a, "w") if raw else helper.make_tensor("w", helper.np_dtype_to_tensor_dtype(a.dtype),
                                                                          list(a.shape), a.reshape(-1).tolist())
    got = decode(t, "w")
    assert got.dtype == a.dtype and got.shape == a.shape and got.tobytes() == a.tobytes()


def test_packed_types_read_from_either_storage() -> None:
    want = np.array([-8, 7, 0], dtype=helper.tensor_dtype_to_np_dtype(P.INT4))
    raw = numpy_helper.from_array(want, "w")
    typed = _t(P.INT4, [3], int32_data=list(raw.raw_data))
    for t in (raw, typed):
        got = decode(t, "w")
        assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_strings_are_text() -> None:
    got = decode(_t(P.STRING, [2], string_data=["é".encode(), b""]), "w")
    assert got.dtype == object and got.tolist() == ["é", ""]
