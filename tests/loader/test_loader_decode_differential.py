"""The decoder against the runtimes (spec, reading A13): the three read the same bits, or sonnx refuses.

Every element type x every storage field, the adversarial cases of ``tools/measure_decoding.py``
(wrong field, two fields, one element short or long, widened entries out of range, padding bits,
BOOL bytes other than 0/1, strings that are not UTF-8) and seeded random payloads: sonnx's decoder
reads each tensor, onnxruntime and onnx's reference evaluator read it back through an ``Identity``
model, bit for bit (NaN payloads included). A type onnxruntime cannot hold at all is listed in
:data:`ORT_CANNOT_HOLD` with its reason, and the test checks that it still refuses a canonical payload.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from onnx import TensorProto, helper

from sonnx.base.errors import NonCanonicalValueError
from sonnx.loader.decode import LAYOUTS, decode
from tools.decoding_peers import Reading, read_ort, read_reference, same
from tools.measure_decoding import ELEMENT_TYPES, TYPED_FIELDS, bits_of, cases, read_sonnx, typed_values

P = TensorProto

ORT_CANNOT_HOLD = {
    P.COMPLEX64: "MLDataType for tensor(complex64) is not registered in onnxruntime",
    P.COMPLEX128: "MLDataType for tensor(complex128) is not registered in onnxruntime",
    P.FLOAT6E2M3: "MLDataType for tensor(float6e2m3) is not registered in onnxruntime",
    P.FLOAT6E3M2: "MLDataType for tensor(float6e3m2) is not registered in onnxruntime",
}
"""Element types onnxruntime 1.32 refuses even canonically stored (a model using one cannot run there at all)."""


def _check(t: TensorProto, label: str) -> str:
    """Assert the three agree or sonnx refuses; return which of the two happened."""
    ours = read_sonnx(t)
    if ours.error is not None:
        with pytest.raises(NonCanonicalValueError):
            decode(t, "x")
        assert "\n" not in ours.error and "'x'" in ours.error, ours.error
        return "refused"
    ref = read_reference(t)
    assert same(ref, ours), f"{label}: the reference evaluator reads {ref.describe()}, sonnx {ours.describe()}"
    ort = read_ort(t)
    if t.data_type in ORT_CANNOT_HOLD:
        assert ort.error is not None, f"{label}: onnxruntime now reads {ort.describe()}: update ORT_CANNOT_HOLD"
        assert "not currently registered or supported" in ort.error or "Type Error" in ort.error, ort.error
        return "read (onnxruntime cannot hold the type)"
    assert same(ort, ours), f"{label}: onnxruntime reads {ort.describe()} ({ort.error}), sonnx {ours.describe()}"
    return "read"


@pytest.mark.parametrize("data_type", ELEMENT_TYPES, ids=lambda d: P.DataType.Name(d))
def test_every_storage_case_is_read_alike_or_refused(data_type: int) -> None:
    outcomes = {c.label: _check(c.tensor, c.label) for c in cases(data_type, random.Random(data_type))}
    # the canonical encodings are read, not refused: refusing everything would pass the check above
    canonical = [k for k in outcomes if k.endswith(("raw_data", "string_data ascii"))]
    if data_type == P.STRING:
        canonical = [f"{P.DataType.Name(data_type)} string_data ascii"]
    elif LAYOUTS[data_type][2] in TYPED_FIELDS and data_type not in (P.FLOAT6E2M3, P.FLOAT6E3M2):
        canonical.append(f"{P.DataType.Name(data_type)} {LAYOUTS[data_type][2]}")
    for label in canonical:
        assert outcomes[label].startswith("read"), (label, outcomes[label])


@pytest.mark.parametrize(
    ("data_type", "field", "entry", "ort_bits"),
    [
        (P.BOOL, "int32_data", 256, b"\x01"),  # onnxruntime: true; the reference evaluator: false
        (P.BOOL, "int32_data", 2, b"\x01"),
        (P.BOOL, "raw_data", 2, b"\x01"),
        (P.UINT4, "raw_data", 0x5F, b"\x5f"),  # a padding bit: onnxruntime keeps it, the reference clears it
    ],
)
def test_the_runtimes_differ_where_the_decoder_refuses(data_type: int, field: str, entry: int, ort_bits: bytes) -> None:
    """The measured disagreements the refusals rest on: if a runtime changes, this says so."""
    t = TensorProto(name="x", data_type=data_type, dims=[1])
    if field == "raw_data":
        t.raw_data = bytes([entry])
    else:
        t.int32_data.append(entry)
    ort, ref = read_ort(t), read_reference(t)
    assert ort.bits == ((1,), ort_bits)
    assert not same(ort, ref)
    assert read_sonnx(t).error is not None


def _random_tensor(rng: random.Random, data_type: int) -> tuple[str, TensorProto]:
    """A random payload: mostly canonical, sometimes one entry short or long, out of range, or in another field."""
    count = rng.choice([0, 1, 3, 7])
    t = TensorProto(name="x", data_type=data_type, dims=[count])
    if data_type == P.STRING:
        t.string_data.extend(bytes(rng.randrange(256) for _ in range(rng.randrange(3))) for _ in range(count))
        return "random strings", t
    bits = bits_of(data_type)
    nbytes = (count * bits + 7) // 8
    raw = bytes(rng.choice([0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)]) for _ in range(nbytes))
    delta = rng.choice([0, 0, 0, -1, 1])
    how = rng.choice(["raw", "typed", "typed", "other"])
    if how == "raw":
        t.raw_data = raw[: max(0, len(raw) + delta)] if delta < 0 else raw + bytes(delta)
        return f"random raw_data ({delta:+d})", t
    if data_type == P.BOOL:
        raw = bytes(b & 1 for b in raw)
    field, values = typed_values(data_type, raw) if bits >= 8 or data_type not in ORT_CANNOT_HOLD else (
        "int32_data", list(raw))
    values = list(values)
    if values and rng.random() < 0.3 and field == "int32_data":
        values[rng.randrange(len(values))] = rng.choice([-1, 2, 255, 256, 65535, 65536, -(2**31)])
    if delta < 0:
        values = values[:-1]
    elif delta > 0:
        values = values + values[:1] if values else [0]
    if how == "other":
        field = rng.choice([f for f in TYPED_FIELDS if f not in (field, "string_data")])
        values = [float(v) for v in values] if field in ("float_data", "double_data") else [
            abs(int(v)) % 100 for v in values]
    getattr(t, field).extend(values)
    return f"random {field} ({delta:+d})", t


def test_random_payloads_are_read_alike_or_refused() -> None:
    rng = random.Random(31)
    seen: dict[str, int] = {}
    for _ in range(3):
        for data_type in ELEMENT_TYPES:
            label, t = _random_tensor(rng, data_type)
            outcome = _check(t, f"{P.DataType.Name(data_type)} {label}")
            seen[outcome] = seen.get(outcome, 0) + 1
    assert seen.get("read", 0) >= 20 and seen.get("refused", 0) >= 10, seen


FLOAT_PATTERNS = {
    P.FLOAT: np.array([0x7F800001, 0xFFC00123, 0x80000000, 0x7F800000, 0x00000001], np.uint32),
    P.DOUBLE: np.array([0x7FF0000000000001, 0xFFF8000000000123, 0x8000000000000000, 0x1], np.uint64),
}
"""A signalling NaN, a negative NaN with a payload, -0, +inf and a subnormal (the bits Python floats could change)."""


@pytest.mark.parametrize("data_type", list(FLOAT_PATTERNS), ids=lambda d: P.DataType.Name(d))
@pytest.mark.parametrize("storage", ["raw_data", "typed"])
def test_nan_payloads_are_kept_bit_for_bit(data_type: int, storage: str) -> None:
    bits = FLOAT_PATTERNS[data_type]
    field = helper.tensor_dtype_to_field(data_type)
    t = TensorProto(name="x", data_type=data_type, dims=[bits.size])
    if storage == "raw_data":
        t.raw_data = bits.tobytes()
    else:
        # set through the wire format: a Python float in between would quieten the signalling NaN
        tag = {"float_data": 0x22, "double_data": 0x52}[field]
        t.MergeFromString(bytes([tag, bits.nbytes]) + bits.tobytes())
    got = decode(t, "x")
    assert got.view(bits.dtype).tolist() == bits.tolist()
    assert _check(t, f"{P.DataType.Name(data_type)} {storage}") == "read"


def test_a_reading_compares_bits_not_values() -> None:
    """NaN equals NaN only when the bits do, and -0 is not 0: the comparison the test relies on."""
    a = Reading(((1,), np.array([np.nan], np.float32).tobytes()), None)
    b = Reading(((1,), np.array([0x7FC00001], np.uint32).tobytes()), None)
    assert same(a, a) and not same(a, b)
    assert not same(Reading(((1,), np.float32(0.0).tobytes()), None), Reading(((1,), np.float32(-0.0).tobytes()), None))
