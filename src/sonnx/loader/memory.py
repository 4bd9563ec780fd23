"""A model given as bytes rather than as a file: an ``onnx.ModelProto`` in memory, serialized bytes, or stdin.

The loader reads a file's bytes and decodes them (``sonnx.loader.load``). A model held
in memory is read the same way: it is serialized once
(``ModelProto.SerializeToString()``, the bytes ``onnx.save`` writes for a model
without external data) and those bytes go through the very decoder and
refusals a file's bytes go through, so the values read are the values a
runtime given the same model reads. Nothing is written to disk.

Such a model has no folder, so a tensor that keeps its bytes in external data
has nowhere to be found: the loader refuses it
(:class:`~sonnx.base.errors.ExternalDataError`, naming the tensor) rather than
look relative to the current directory, which the bytes of a pipe should not
choose. A protobuf message is at most 2 GiB, so a model above that cannot be
a ``ModelProto`` nor come through stdin; it is checked from its file.

:class:`ModelBytes` carries the bytes with the name reports give the model
(:data:`IN_MEMORY`, :data:`STDIN`) and their SHA-256, which names the model
where a file's SHA-256 would (``--waivers``): for bytes read from stdin it is
the SHA-256 of the file that was piped in.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import onnx

from ..base.errors import InputError, UsageError

IN_MEMORY = "<in-memory model>"
"""How reports and messages name a model given as an ``onnx.ModelProto`` or as bytes."""

STDIN = "<stdin>"
"""How reports and messages name a model read from standard input (``MODEL`` given as ``-``)."""

MAX_MODEL_BYTES = 2**31 - 1
"""The most bytes a model given in memory or on stdin may have: protobuf's limit for one message (2 GiB)."""

_BLOCK = 1 << 20


@dataclass(frozen=True)
class ModelBytes:
    """The serialized bytes of a model that has no file, and the name reports give it."""

    data: bytes = field(repr=False)
    name: str = IN_MEMORY

    def __post_init__(self) -> None:
        if not self.data:
            raise InputError(f"{self.name}: empty model (no bytes)")

    @property
    def sha256(self) -> str:
        """The SHA-256 of the bytes read (the file's SHA-256 when they are a file's contents)."""
        import hashlib  # here: a check that digests nothing does not load OpenSSL's library at start-up

        return hashlib.sha256(self.data).hexdigest()

    @property
    def stem(self) -> str:
        """A file-name stem for what is written about the model (``--smt-dir``)."""
        return "stdin" if self.name == STDIN else "model"


def is_in_memory(model: object) -> bool:
    """Whether ``model`` is a model given in memory: an ``onnx.ModelProto``, bytes, or :class:`ModelBytes`."""
    return isinstance(model, onnx.ModelProto | bytes | bytearray | memoryview | ModelBytes)


def model_bytes_of(model: Any) -> ModelBytes:
    """``model`` (an ``onnx.ModelProto``, its serialized bytes, or :class:`ModelBytes`) as :class:`ModelBytes`.

    A proto is serialized once; a proto protobuf cannot serialize (above 2 GiB)
    is an :class:`~sonnx.base.errors.InputError`.
    """
    if isinstance(model, ModelBytes):
        return model
    if isinstance(model, bytes | bytearray | memoryview):
        return ModelBytes(bytes(model))
    if isinstance(model, onnx.ModelProto):
        try:
            data = model.SerializeToString()
        except ValueError as exc:  # protobuf refuses a message above its 2 GiB limit
            raise InputError(f"{IN_MEMORY}: cannot be serialized: {' '.join(str(exc).split())}") from None
        return ModelBytes(data)
    raise UsageError(f"expected an onnx.ModelProto or its serialized bytes, not {type(model).__name__}")


def read_stream(stream: BinaryIO, name: str = STDIN, limit: int = MAX_MODEL_BYTES) -> ModelBytes:
    """The bytes of a model read from ``stream`` to its end, at most ``limit`` of them (:data:`MAX_MODEL_BYTES`).

    A terminal is refused before anything is read (nobody types a model), as
    are more than ``limit`` bytes and no bytes at all; each is a one-line
    :class:`~sonnx.base.errors.InputError`.
    """
    try:
        if stream.isatty():
            raise InputError(f"{name}: standard input is a terminal; pipe a model into it (cat m.onnx | ...)")
    except (AttributeError, ValueError, OSError):
        pass
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            block = stream.read(min(_BLOCK, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
            if size > limit:
                raise InputError(
                    f"{name}: more than {limit} bytes, above what one ONNX model can hold without external data; "
                    "check the model's file instead"
                )
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    return ModelBytes(b"".join(chunks), name)


def source_name(path: str | os.PathLike[str]) -> str:
    """The name a model given on the command line has in reports: its path, or :data:`STDIN` for ``-``."""
    text = os.fspath(path)
    return STDIN if text == "-" else text
