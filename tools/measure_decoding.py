"""Measure how onnxruntime, onnx's reference evaluator and ``numpy_helper`` read every stored encoding.

For every ONNX element type and every way of storing a tensor (``raw_data``, the typed field the
type uses, another typed field, both at once, payloads one element short or long, widened values
out of their type's range, padding bits set in packed types, BOOL bytes other than 0/1, strings
that are not UTF-8), it builds the tensor, reads it through the three peers (:mod:`decoding_peers`)
and through sonnx's decoder, and prints one line per case: what each reads, and whether they agree.

Run from the repository root: ``PYTHONPATH=src .venv/bin/python -m tools.measure_decoding``
(``--all`` prints every case, not only those where a peer or sonnx disagrees with the others).
Its summary is the table of reading A13 in ``spec/graph.rst``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from onnx import TensorProto, helper

from sonnx.loader.decode import LAYOUTS
from tools.decoding_peers import (
    Reading,
    bits_of_array,
    element_type_name,
    read_numpy_helper,
    read_ort,
    read_reference,
    same,
)

P = TensorProto

TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")

ELEMENT_TYPES = tuple(v for _, v in P.DataType.items() if v != P.UNDEFINED)


def bits_of(data_type: int) -> int:
    """Storage bits of one element (STRING: 0), as the decoder counts them."""
    layout = LAYOUTS.get(data_type)
    return 0 if layout is None else layout[1]


def pack(codes: list[int], bits: int) -> bytes:
    """Elements' bit codes packed little-end first, as ONNX stores sub-byte types."""
    acc = 0
    for k, c in enumerate(codes):
        acc |= (c & ((1 << bits) - 1)) << (k * bits)
    return acc.to_bytes((len(codes) * bits + 7) // 8, "little")


@dataclass(frozen=True)
class Case:
    """One stored tensor and what it tests."""

    label: str
    tensor: TensorProto


def _tensor(data_type: int, count: int) -> TensorProto:
    t = TensorProto()
    t.name = "x"
    t.data_type = data_type
    t.dims.append(count)
    return t


def _random_raw(rng: random.Random, data_type: int, count: int) -> bytes:
    """A canonical ``raw_data`` of ``count`` random elements (random bit patterns, BOOL 0/1)."""
    bits = bits_of(data_type)
    if data_type == P.BOOL:
        return bytes(rng.randrange(2) for _ in range(count))
    if bits < 8:
        return pack([rng.randrange(1 << bits) for _ in range(count)], bits)
    return bytes(rng.randrange(256) for _ in range(count * bits // 8))


def typed_values(data_type: int, raw: bytes) -> tuple[str, list[Any]]:
    """The typed field and its entries holding the same elements as the canonical ``raw`` (not STRING)."""
    field = helper.tensor_dtype_to_field(data_type)
    bits = bits_of(data_type)
    dt = np.dtype(helper.tensor_dtype_to_np_dtype(data_type))
    if field == "int32_data" and bits < 8:
        return field, list(raw)
    if field == "int32_data" and dt.kind not in "iub":
        code = np.dtype(f"<u{dt.itemsize}")
        return field, [int(v) for v in np.frombuffer(raw, code)]
    arr = np.frombuffer(raw, dt.newbyteorder("<"))
    if dt.kind == "c":
        arr = arr.view(np.float32 if dt.itemsize == 8 else np.float64)
    if field in ("float_data", "double_data"):
        return field, [float(v) for v in arr]
    return field, [int(v) for v in arr.astype(np.int64 if dt.kind != "u" else np.uint64)]


def _with(t: TensorProto, field: str, values: list[Any]) -> TensorProto:
    getattr(t, field).extend(values)
    return t


OUT_OF_RANGE: dict[int, tuple[int, ...]] = {
    P.BOOL: (2, 256, -1),
    P.INT8: (128, -129, 256),
    P.UINT8: (256, -1),
    P.INT16: (32768, -32769),
    P.UINT16: (65536, -1),
    P.FLOAT16: (65536, -1, 0x10001),
    P.BFLOAT16: (65536, -1),
    P.FLOAT8E4M3FN: (256, -1),
    P.FLOAT8E4M3FNUZ: (256,),
    P.FLOAT8E5M2: (256,),
    P.FLOAT8E5M2FNUZ: (256,),
    P.FLOAT8E8M0: (256,),
}
"""Widened values outside the range of the type stored in ``int32_data`` (packed types: a byte above 255)."""


def cases(data_type: int, rng: random.Random, count: int = 5) -> Iterator[Case]:
    """Every storage variant of one element type, canonical and not."""
    name = element_type_name(data_type)
    if data_type == P.STRING:
        words = [bytes(rng.randrange(32, 127) for _ in range(rng.randrange(4))) for _ in range(count)]
        yield Case(f"{name} string_data ascii", _with(_tensor(data_type, count), "string_data", words))
        non_utf8 = [b"\xff\xfe", b"a\x80", *words[2:]]
        yield Case(f"{name} string_data non-utf8", _with(_tensor(data_type, count), "string_data", non_utf8))
        yield Case(f"{name} string_data short", _with(_tensor(data_type, count), "string_data", words[:-1]))
        t = _with(_tensor(data_type, count), "string_data", words)
        t.raw_data = b"abc"
        yield Case(f"{name} string_data+raw_data", t)
        raw_only = _tensor(data_type, 1)
        raw_only.raw_data = b"abc"
        yield Case(f"{name} raw_data", raw_only)
        return
    raw = _random_raw(rng, data_type, count)
    field, values = typed_values(data_type, raw)
    t = _tensor(data_type, count)
    t.raw_data = raw
    yield Case(f"{name} raw_data", t)
    yield Case(f"{name} {field}", _with(_tensor(data_type, count), field, values))
    for label, payload in (("short", raw[:-1]), ("long", raw + b"\x00")):
        t = _tensor(data_type, count)
        t.raw_data = payload
        yield Case(f"{name} raw_data {label}", t)
    yield Case(f"{name} {field} short", _with(_tensor(data_type, count), field, values[:-1]))
    yield Case(f"{name} {field} long", _with(_tensor(data_type, count), field, values + values[:1]))
    t = _with(_tensor(data_type, count), field, values)
    t.raw_data = raw
    yield Case(f"{name} raw_data+{field}", t)
    for other in TYPED_FIELDS:
        if other in (field, "string_data"):
            continue
        small = [k + 1 for k in range(count)]
        wrong: list[Any] = [float(v) for v in small] if other in ("float_data", "double_data") else small
        yield Case(f"{name} {other} (not its field)", _with(_tensor(data_type, count), other, wrong))
    bits = bits_of(data_type)
    for bad in OUT_OF_RANGE.get(data_type, ()):
        yield Case(f"{name} {field} holds {bad}", _with(_tensor(data_type, count), field, [bad, *values[1:]]))
    if bits < 8:
        yield Case(f"{name} {field} holds 256", _with(_tensor(data_type, count), field, [256, *values[1:]]))
        pad = bytearray(raw)
        pad[-1] |= 0x80
        t = _tensor(data_type, count)
        t.raw_data = bytes(pad)
        yield Case(f"{name} raw_data padding bit set", t)
        yield Case(f"{name} {field} padding bit set", _with(_tensor(data_type, count), field, list(pad)))
    if data_type == P.BOOL:
        t = _tensor(data_type, count)
        t.raw_data = b"\x02" + raw[1:]
        yield Case(f"{name} raw_data byte 2", t)
    if data_type == P.UINT32:
        yield Case(f"{name} uint64_data holds 2**32", _with(_tensor(data_type, count), field, [2 ** 32, *values[1:]]))


def read_sonnx(t: TensorProto) -> Reading:
    """sonnx's decoder's reading, or its refusal."""
    from sonnx.base.errors import SonnxError
    from sonnx.loader.decode import decode

    try:
        return Reading(bits_of_array(decode(t, "x")), None)
    except SonnxError as exc:
        return Reading(None, exc.one_line())


def verdict(ort: Reading, ref: Reading, ours: Reading) -> str:
    """``agree`` when the three read the same, ``sonnx refuses`` when it refuses, else which peer differs."""
    if ours.error is not None:
        return "sonnx refuses"
    bad = [n for n, r in (("onnxruntime", ort), ("reference", ref)) if not same(r, ours)]
    return "agree" if not bad else "DIFFERS from " + ", ".join(bad)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--all", action="store_true", help="print every case")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for data_type in ELEMENT_TYPES:
        for case in cases(data_type, rng):
            ort, ref, nh, ours = (read_ort(case.tensor), read_reference(case.tensor),
                                  read_numpy_helper(case.tensor), read_sonnx(case.tensor))
            peers = "peers agree" if same(ort, ref) else "peers differ"
            helper_note = "=ort" if same(nh, ort) else nh.describe()[:28]
            line = (f"{case.label:42} ort {ort.describe()[:40]:40} | ref {ref.describe()[:28]:28} | "
                    f"numpy_helper {helper_note:28} | {peers}; {verdict(ort, ref, ours)}")
            if args.all or not same(ort, ref) or not same(nh, ort) or "DIFFERS" in line:
                print(line)
                for what, r in (("ort", ort), ("ref", ref), ("sonnx", ours)):
                    if r.error:
                        print(f"    {what}: {r.error[:150]}")


if __name__ == "__main__":
    main()
