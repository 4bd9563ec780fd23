"""External tensor data: location checks at load time, byte reading on demand.

ONNX lets a tensor keep its bytes in a separate file (``data_location =
EXTERNAL``), named by a ``location`` entry relative to the model file's
folder, with optional ``offset`` and ``length``. A location is a path taken
from an untrusted file, so before anything is opened it must be:

* relative (no leading ``/`` or ``\\``, no drive letter),
* free of ``..`` components, and
* inside the model's folder once every symbolic link is resolved (both the
  data path and the folder are resolved with :func:`os.path.realpath`).

Otherwise :class:`~sonnx.base.errors.UnsafePathError` is raised. A missing file or
a byte range past its end raises :class:`~sonnx.base.errors.ExternalDataError`.
These checks only ``stat`` files. When weights are requested
(``read_weights=True``) the loader also opens each file once to prove it is
readable and checks that it holds as many bytes as the tensor needs; the
bytes themselves are still read only when a value's ``read()`` is called.

Reading never goes through ``onnx``'s own external-data loader: the reader
opens the already checked path, reads the checked range, and decodes (with
:mod:`.decode`, as every stored value) a copy of the tensor whose
``raw_data`` it fills itself.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import onnx

from ..base.errors import ExternalDataError, ModelFormatError, NonCanonicalValueError, UnsafePathError
from ..model.graph import Attribute, ExternalLocation, InitialValue, Model
from .decode import decode, packed_bytes


def expected_nbytes(data_type: int, dims: tuple[int, ...]) -> int | None:
    """Bytes ``raw_data`` must hold for this type and shape, or None when not fixed (strings)."""
    if any(d < 0 for d in dims):
        return None
    return packed_bytes(data_type, math.prod(dims))


def _is_unsafe_form(location: str) -> str | None:
    """Why ``location`` is unsafe by its form alone (absolute, drive, ``..``), or None."""
    if "\x00" in location:
        return "contains a NUL character"
    if PurePosixPath(location).is_absolute() or location.startswith(("/", "\\")):
        return "is absolute"
    win = PureWindowsPath(location)
    if win.drive or win.is_absolute():
        return "names a drive"
    parts = location.replace("\\", "/").split("/")
    if ".." in parts:
        return "climbs out with '..'"
    return None


class ExternalData:
    """Checks and reads the external data of one model file.

    ``model_path`` is the path of the model as given; the base folder is its
    folder, resolved. An empty ``model_path`` is a model read from no file
    (:mod:`.memory`): it has no folder, so every external location is refused.
    ``display`` is how messages name the model file.
    ``check_contents`` is True when weights are requested: each data file is
    then also opened once and its size checked against the number of bytes
    the tensor needs.
    """

    def __init__(self, model_path: str, display: str, check_contents: bool) -> None:
        self.model_path = display
        self.base = os.path.realpath(os.path.dirname(os.path.abspath(model_path))) if model_path else ""
        self.check_contents = check_contents
        self._readable: dict[str, int] = {}

    def _fail(self, cls: type[ExternalDataError], tensor: str, detail: str) -> ExternalDataError:
        return cls(f"{self.model_path}: tensor {tensor!r}: {detail}")

    def locate(
        self, tensor: str, entries: Iterable[tuple[str, str]], data_type: int, dims: tuple[int, ...]
    ) -> ExternalLocation:
        """Check the external-data entries of tensor ``tensor`` and return where its bytes are."""
        keys: dict[str, str] = {}
        for k, v in entries:
            keys[k] = v
        location = keys.get("location")
        if not location:
            raise self._fail(ExternalDataError, tensor, "external data has no 'location' entry")
        why = _is_unsafe_form(location)
        if why is not None:
            raise self._fail(UnsafePathError, tensor, f"external data location {location!r} {why}")
        offset = self._number(tensor, keys, "offset")
        if offset is None:
            offset = 0
        length = self._number(tensor, keys, "length")
        if not self.base:
            raise self._fail(
                ExternalDataError,
                tensor,
                f"its data is in the external file {location!r}, and a model given in memory or on stdin has no "
                "folder to find it in; check the model's file instead",
            )
        resolved = os.path.realpath(os.path.join(self.base, location))
        if os.path.commonpath([resolved, self.base]) != self.base:
            raise self._fail(
                UnsafePathError, tensor, f"external data location {location!r} resolves outside the model's folder"
            )
        try:
            st = os.stat(resolved)
        except FileNotFoundError:
            raise self._fail(ExternalDataError, tensor, f"external data file {location!r} does not exist") from None
        except OSError as e:
            raise self._fail(ExternalDataError, tensor, f"external data file {location!r}: {e.strerror}") from None
        if not stat.S_ISREG(st.st_mode):
            raise self._fail(ExternalDataError, tensor, f"external data location {location!r} is not a regular file")
        if st.st_nlink > 1:
            raise self._fail(
                UnsafePathError,
                tensor,
                f"external data file {location!r} has {st.st_nlink} hard links: it may be a file outside the "
                "model's folder under a name inside it",
            )
        size = st.st_size
        end = offset + (length if length is not None else 0)
        if offset > size or end > size:
            raise self._fail(
                ExternalDataError,
                tensor,
                f"external data range [{offset}, {end}) is past the end of {location!r} ({size} bytes)",
            )
        self._check_size(tensor, location, size, offset, length, data_type, dims)
        if self.check_contents:
            self._check_readable(tensor, location, resolved)
        return ExternalLocation(resolved, offset, length)

    def _number(self, tensor: str, keys: dict[str, str], key: str) -> int | None:
        """The non-negative integer entry ``key``, or None when absent."""
        raw = keys.get(key)
        if raw is None:
            return None
        # ASCII digits only: int() would also take full-width or other Unicode digits, and signs and spaces
        value = int(raw) if isinstance(raw, str) and raw.isascii() and raw.isdigit() else -1
        if value < 0:
            raise self._fail(ExternalDataError, tensor, f"external data {key} {raw!r} is not a non-negative integer")
        return value

    def _check_readable(self, tensor: str, location: str, resolved: str) -> None:
        """Open the file once to prove it can be read (only when weights are to be read)."""
        if resolved in self._readable:
            return
        try:
            with open(resolved, "rb") as fh:
                self._readable[resolved] = os.fstat(fh.fileno()).st_size
        except OSError as e:
            raise self._fail(
                ExternalDataError, tensor, f"external data file {location!r} cannot be read: {e.strerror}"
            ) from None

    def _check_size(
        self,
        tensor: str,
        location: str,
        size: int,
        offset: int,
        length: int | None,
        data_type: int,
        dims: tuple[int, ...],
    ) -> None:
        """Check, from the file's size alone (nothing is read), that the range holds the tensor's bytes.

        With a ``length`` entry the range must be exactly the size the tensor's
        type and shape need. Without one, the tensor takes the bytes it needs
        from ``offset`` on, and the file must hold at least that many. This
        holds for ``--structure-only`` too: sizes are checked without reading.
        """
        need = expected_nbytes(data_type, dims)
        available = length if length is not None else size - offset
        if need is not None and available != need:
            if length is None and available > need:
                return
            raise self._fail(
                ExternalDataError,
                tensor,
                f"external data in {location!r} holds {available} bytes at offset {offset}"
                f" but the tensor needs {need}",
            )


def read_external(model_path: str, base: str, tensor_bytes: bytes, where: ExternalLocation, name: str) -> Any:
    """Read the bytes of an external tensor from its checked location and decode them (:mod:`.decode`).

    ``tensor_bytes`` is the serialized ``TensorProto`` (with its external-data
    entries); the copy that is decoded gets the bytes as ``raw_data``. The
    path is resolved again first, so a link swapped in after loading is
    still refused.
    """
    if os.path.realpath(where.path) != where.path or os.path.commonpath([where.path, base]) != base:
        raise UnsafePathError(f"{model_path}: tensor {name!r}: external data path {where.path!r} changed since loading")
    t = onnx.TensorProto.FromString(tensor_bytes)
    need = expected_nbytes(int(t.data_type), tuple(int(d) for d in t.dims))
    count = where.length if where.length is not None else need
    try:
        with open(where.path, "rb") as fh:
            fh.seek(where.offset)
            data = fh.read() if count is None else fh.read(count)
    except OSError as e:
        raise ExternalDataError(f"{model_path}: tensor {name!r}: cannot read external data: {e.strerror}") from None
    if count is not None and len(data) != count:
        raise ExternalDataError(
            f"{model_path}: tensor {name!r}: external data file {where.path!r} holds {len(data)} bytes"
            f" at offset {where.offset}, expected {count}"
        )
    del t.external_data[:]
    t.data_location = onnx.TensorProto.DEFAULT
    t.raw_data = data
    return decode_tensor(model_path, t, name)


def decode_tensor(model_path: str, t: Any, name: str) -> Any:
    """The value of ``t`` read by the one decoder (:mod:`.decode`), its refusals naming the model file."""
    try:
        return decode(t, name)
    except NonCanonicalValueError as e:
        raise NonCanonicalValueError(f"{model_path}: {e}") from None
    except Exception as e:  # a canonical encoding the unpacking still fails on: unusable, never a crash
        detail = " ".join(str(e).split()) or type(e).__name__
        raise ModelFormatError(f"{model_path}: tensor {name!r}: value cannot be decoded: {detail}") from None


def _values(attr: Attribute) -> Iterator[InitialValue]:
    if isinstance(attr.value, InitialValue):
        yield attr.value
    elif attr.type == "TENSORS":
        yield from (v for v in attr.value if isinstance(v, InitialValue))


def external_locations(model: Model, model_path: str) -> list[str]:
    """Locations, relative to the model's folder, of every external data file the loaded model uses (sorted).

    Read from the model sonnx loaded (its own loader: no depth limit), so every
    place a tensor can live is covered: initializers of every graph, nested or
    in a function body, tensor attributes (a Constant's ``value`` or
    ``sparse_value``) and functions' attribute defaults. The loader already
    checked each location stays inside the folder; a location that does not
    is a :class:`ValueError`.
    """
    folder = os.path.realpath(os.path.dirname(os.path.abspath(model_path)))
    found: set[str] = set()
    graphs = [g for _p, g in model.graph.nested()]
    for f in model.functions:
        graphs.extend(g for _p, g in f.body.nested())
    values: list[InitialValue] = []
    for g in graphs:
        values.extend(t.initial_value for t in g.tensors.values() if t.initial_value is not None)
        for op in g.operations:
            for a in op.attributes:
                values.extend(_values(a))
    for f in model.functions:
        for a in f.attribute_defaults:
            values.extend(_values(a))
    for v in values:
        if v.external is not None:
            rel = os.path.relpath(v.external.path, folder)
            if rel.startswith("..") or os.path.isabs(rel):
                raise ValueError(f"external data file {v.external.path!r} is outside the model's folder")
            found.add(Path(rel).as_posix())
    return sorted(found)
