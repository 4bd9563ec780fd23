"""From a file's bytes to the shallow ``ModelProto`` the loader converts, and the main graph's nodes run by run.

With the cut of :mod:`.detach` the message parsed is the file without the
main graph's embedded ``raw_data`` payloads and without its ``node`` fields;
the nodes are then parsed one run at a time while the graph is converted
(:func:`node_runs`), so that a million parsed ``NodeProto`` messages never
sit in memory beside the records made from them. Whatever the cut, a file
protobuf cannot parse fails with protobuf's own error for the whole file:
:func:`parse_model` parses the file as it is when the cut declines or its
copy does not parse, and a load that fails before it has read every run
asks :func:`whole_file_error` first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf.message import DecodeError

from ..base.errors import ModelFormatError
from .detach import Span, detach_weights
from .proto import GraphProto, ModelProto, decode_detail


def parse_model(data: bytes, display: str, cut_weights: bool) -> tuple[Any, tuple[Span | None, ...], tuple[Span, ...]]:
    """The shallow ``ModelProto`` of ``data``, and (``cut_weights``) the main graph's weights and node runs cut out
    of it.

    The file as it is gets parsed whenever cutting declines or the cut copy
    does not parse, so errors are protobuf's own for the file itself.
    """
    cut = detach_weights(data) if cut_weights else None
    if cut is not None:
        try:
            return ModelProto.FromString(cut.stripped), cut.raw, cut.nodes
        except DecodeError:
            pass
    try:
        return ModelProto.FromString(data), (), ()
    except DecodeError as e:
        raise ModelFormatError(f"{display}: not a well-formed ONNX model: {decode_detail(e)}") from None


def node_runs(data: bytes, runs: tuple[Span, ...]) -> Iterator[Any]:
    """The main graph's nodes, one run of ``node`` fields of ``data`` parsed at a time (see :mod:`.detach`)."""
    view = memoryview(data)
    for run in runs:
        yield GraphProto.FromString(view[run.offset:run.offset + run.length]).node


def whole_file_error(data: bytes, display: str) -> None:
    """Raise the error a parse of the whole file gives, if it gives one.

    A load that reads the nodes run by run calls this when it fails before
    every run is read: a node protobuf cannot parse is the error a whole
    parse would have met before anything else.
    """
    try:
        ModelProto.FromString(data)
    except DecodeError as e:
        raise ModelFormatError(f"{display}: not a well-formed ONNX model: {decode_detail(e)}") from None
