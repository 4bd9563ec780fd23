"""The main graph's embedded weights left in the file until they are read.

Why: parsing a file with protobuf copies every ``raw_data`` into the parsed
message, and a value that keeps it serialized holds it again beside its
decoded array: two copies of the weights while a model runs, and up to three
at the loader's peak. This module finds, at the wire-format level, the
``raw_data`` of each initializer of the main graph (``ModelProto.graph`` =
field 7, ``GraphProto.initializer`` = 5, ``TensorProto.raw_data`` = 9) and
cuts those payloads out of a copy of the file that is otherwise the same,
recording where each one lies in the file. The loader parses the small copy
and reads each weight from the file when its value is read, into an array of
its own, so that the decoded arrays are the only copy.

The same pass over the graph's fields finds where its ``node`` fields
(``GraphProto.node`` = 1) lie, as runs of whole fields of about
:data:`NODE_RUN` bytes, and cuts them out of the copy as well: the loader
parses one run at a time (a run of ``node`` fields is itself a graph message
that holds those nodes) and converts it before it parses the next, so that
the parsed messages of a million nodes never sit in memory beside the
records converted from them. Protobuf appends the elements of a repeated
field in the order they come, so the runs read in order give the nodes in
the order a parse of the whole file gives them.

It only ever declines: on anything it does not expect (a malformed field, a
group, the graph field given twice, a tensor that also names external data or
gives ``raw_data`` twice) it returns None and the loader parses the file as
it is, with protobuf's own checks and messages.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ..base.errors import ModelFormatError

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_MODEL_GRAPH, _GRAPH_INITIALIZER, _GRAPH_NODE = 7, 5, 1
NODE_RUN = 1 << 20
"""Bytes of ``node`` fields from which a run is closed: each run's parsed messages take a few megabytes."""
_TENSOR_RAW_DATA, _TENSOR_EXTERNAL_DATA, _TENSOR_DATA_LOCATION = 9, 13, 14


class _Malformed(Exception):
    """Raised inside the scanner on anything unexpected; never leaves this module."""


class Field(NamedTuple):
    number: int
    start: int
    """Offset of the field's key."""
    payload: int
    """Offset of a length-delimited field's payload (of the value otherwise)."""
    end: int


class Span(NamedTuple):
    """Where a cut-out ``raw_data`` payload lies in the model file."""

    offset: int
    length: int


class ModelFile(NamedTuple):
    """The model file the weights were left in, and what it was when loaded."""

    display: str
    """The file's name in messages."""
    path: str
    identity: tuple[int, int, int, int]
    """(device, inode, size, modification time in ns) of the file that was loaded."""


def identity_of(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_span(file: ModelFile, span: Span, name: str) -> np.ndarray:
    """The bytes of ``span`` read again from the model file into an array of their own (``uint8``).

    The file must still be the one that was loaded (same device, inode, size
    and modification time): a weight is never read from another file.
    """
    bad = f"{file.display}: tensor {name!r}"
    buf = np.empty(span.length, np.uint8)
    try:
        with open(file.path, "rb") as fh:
            if identity_of(os.fstat(fh.fileno())) != file.identity:
                raise ModelFormatError(f"{bad}: the model file changed after it was loaded")
            fh.seek(span.offset)
            got = fh.readinto(buf.data)
    except OSError as e:
        raise ModelFormatError(f"{bad}: cannot read the model file again: {e.strerror}") from None
    if got != span.length:
        raise ModelFormatError(f"{bad}: the model file changed after it was loaded")
    return buf


class Detached(NamedTuple):
    """The file with the main graph's ``raw_data`` payloads and ``node`` fields cut out, and where they lie.

    ``raw[k]`` is the (offset, length) in the file of the ``raw_data`` of the
    ``k``-th initializer of the main graph; None where that initializer kept
    its own fields (it had no single plain ``raw_data``). ``nodes`` are the
    runs of the main graph's ``node`` fields (keys included), in file order.
    """

    stripped: bytes
    raw: tuple[Span | None, ...]
    nodes: tuple[Span, ...] = ()


def _varint(data: bytes | memoryview, pos: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Malformed
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _fields(data: memoryview, start: int, end: int) -> list[Field]:
    """The fields of the message in ``data[start:end]``, in order."""
    out: list[Field] = []
    pos = start
    while pos < end:
        key, p = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed
        if wire == _VARINT:
            _, q = _varint(data, p, end)
            out.append(Field(number, pos, p, q))
        elif wire in (_I64, _I32):
            q = p + (8 if wire == _I64 else 4)
            if q > end:
                raise _Malformed
            out.append(Field(number, pos, p, q))
        elif wire == _LEN:
            n, p = _varint(data, p, end)
            if p + n > end:
                raise _Malformed
            out.append(Field(number, pos, p, p + n))
        else:  # groups (3, 4) and undefined wire types
            raise _Malformed
        pos = out[-1].end
    return out


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if not value:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


def _length_field(data: memoryview, field: Field, body: bytes) -> bytes:
    """``field`` (length-delimited) again with ``body`` as its payload: its own key, a new length."""
    key_end = _varint(data, field.start, field.payload)[1]
    return bytes(data[field.start:key_end]) + _encode_varint(len(body)) + body


def _tensor(data: memoryview, field: Field) -> tuple[bytes, Span | None]:
    """An initializer's bytes without its ``raw_data``, and that payload; or itself and None."""
    inner = _fields(data, field.payload, field.end)
    numbers = [f.number for f in inner]
    if numbers.count(_TENSOR_RAW_DATA) != 1 or _TENSOR_EXTERNAL_DATA in numbers or _TENSOR_DATA_LOCATION in numbers:
        return bytes(data[field.start:field.end]), None
    raw = next(f for f in inner if f.number == _TENSOR_RAW_DATA)
    if _varint(data, raw.start, raw.payload)[0] & 7 != _LEN:
        return bytes(data[field.start:field.end]), None
    body = bytes(data[field.payload:raw.start]) + bytes(data[raw.end:field.end])
    return _length_field(data, field, body), Span(raw.payload, raw.end - raw.payload)


def _initializers(data: bytes, start: int, end: int) -> tuple[list[Field], list[Span]]:
    """The ``initializer`` fields of the graph message ``data[start:end]``, and the runs of its ``node`` fields.

    One pass over the fields, without building anything for the fields it
    skips: a graph of a million operations has a million ``node`` fields, and
    this loop is the cost of cutting for such a model. A run is closed at a
    field that is no ``node`` and once it holds :data:`NODE_RUN` bytes.
    """
    out: list[Field] = []
    runs: list[Span] = []
    run = run_end = start
    pos = start
    while pos < end:
        at = pos
        key = data[pos]
        pos += 1
        if key & 0x80:
            key, pos = _varint(data, at, end)
        wire = key & 7
        if key >> 3 == 0:
            raise _Malformed
        if wire == _LEN:
            if pos >= end:
                raise _Malformed
            n = data[pos]
            pos += 1
            if n & 0x80:
                n, pos = _varint(data, pos - 1, end)
            payload = pos
            pos += n
            if key >> 3 == _GRAPH_NODE:
                if at != run_end or at - run >= NODE_RUN:
                    if run_end > run:
                        runs.append(Span(run, run_end - run))
                    run = at
                run_end = pos
            elif key >> 3 == _GRAPH_INITIALIZER:
                out.append(Field(_GRAPH_INITIALIZER, at, payload, pos))
        elif wire == _VARINT:
            pos = _varint(data, pos, end)[1]
        elif wire in (_I64, _I32):
            pos += 8 if wire == _I64 else 4
        else:  # groups (3, 4) and undefined wire types
            raise _Malformed
        if pos > end:
            raise _Malformed
    if run_end > run:
        runs.append(Span(run, run_end - run))
    return out, runs


def detach_weights(data: bytes) -> Detached | None:
    """Cut the main graph's embedded ``raw_data`` and its ``node`` fields out of ``data``; None to parse ``data``
    as it is."""
    view = memoryview(data)
    try:
        top = _fields(view, 0, len(view))
        graphs = [f for f in top if f.number == _MODEL_GRAPH]
        if len(graphs) != 1 or _varint(view, graphs[0].start, graphs[0].payload)[0] & 7 != _LEN:
            return None
        graph = graphs[0]
        fields, runs = _initializers(data, graph.payload, graph.end)
        cuts = [_tensor(view, f) for f in fields]
    except _Malformed:
        return None
    if not runs and not any(payload is not None for _, payload in cuts):
        return None
    # (start, end, what replaces it), in file order: an initializer's own bytes without its payload, or nothing
    spans = [(f.start, f.end, body) for f, (body, _) in zip(fields, cuts, strict=True)]
    spans.extend((r.offset, r.offset + r.length, b"") for r in runs)
    spans.sort(key=lambda span: span[0])
    parts: list[bytes] = []
    at = graph.payload
    for start, stop, body in spans:
        parts.append(data[at:start])
        parts.append(body)
        at = stop
    parts.append(data[at:graph.end])
    new_graph = _length_field(view, graph, b"".join(parts))
    stripped = data[:graph.start] + new_graph + data[graph.end:]
    return Detached(stripped, tuple(payload for _, payload in cuts), tuple(runs))
