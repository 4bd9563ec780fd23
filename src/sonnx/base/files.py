"""Writing output files: atomically, never over an input, nothing left behind.

Every file sonnx writes (a rewritten model, a partition, executor outputs)
goes through :func:`write_atomically`: the content is written to a temporary
file in the destination's folder, given a normal file's mode, and renamed over
the destination; on any failure the temporary file is removed and the
destination is untouched. :func:`refuse_overwrite` stops a command before it
replaces one of its own inputs (``sonnx run M.onnx --output M.onnx``).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np

from .errors import InputError, SonnxError, UsageError


class WriteError(SonnxError):
    """An output cannot be written: the file system refused, or the value has no file form (exit 2)."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: str, fill: Callable[[BinaryIO], object]) -> None:
    """Write ``path`` with ``fill(file)``, atomically (a temporary file in the same folder, then a rename)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".sonnx-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


def refuse_overwrite(output: str, inputs: Sequence[str], option: str) -> None:
    """Refuse (:class:`UsageError`) to write ``output`` when it is one of ``inputs`` (same file, any spelling)."""
    if not os.path.exists(output):
        return
    for name in inputs:
        try:
            same = os.path.exists(name) and os.path.samefile(output, name)
        except OSError:
            same = False
        if same:
            raise UsageError(f"{option} {output}: that is an input of this command; it would be overwritten")


MAX_INPUT_FILE_BYTES = 256 << 20
"""The largest JSON input file (a partition) that is read: 256 MiB."""


def read_option_file(path: str, option: str, limit: int, error: type[SonnxError] = UsageError) -> bytes:
    """The bytes of a file an option names (``--waivers``, ``--operator-declarations``), read as
    :func:`read_input_file` reads it; a failure is one ``error`` line naming the option and the file."""
    try:
        return read_input_file(path, limit)
    except InputError as exc:
        why = exc.one_line().removeprefix(f"{path}: ")
        raise error(f"{option} {path}: cannot read it: {why}") from None


def read_input_file(path: str, limit: int = MAX_INPUT_FILE_BYTES) -> bytes:
    """The bytes of a file given on the command line: a regular file of at most ``limit`` bytes.

    Opened without blocking, so a FIFO cannot make the command wait; a
    device (``/dev/zero``) or a directory is refused before anything is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise InputError(f"{path}: {st.st_size} bytes, more than the {limit} such a file may have")
        chunks: list[bytes] = []
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                return b"".join(chunks)
            chunks.append(block)
    finally:
        os.close(fd)


def require_regular_file(path: str) -> None:
    """Refuse (:class:`InputError`) a path that is missing or not a regular file, without opening it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path}: not a regular file")


def _npz_array(name: str, value: Any) -> np.ndarray:
    """``value`` as an array an ``.npz`` holds without pickles: strings as NumPy text, anything else refused."""
    if not isinstance(value, (np.ndarray, np.generic)):
        kind = "sequence" if isinstance(value, list) else "map" if isinstance(value, dict) else "optional"
        raise UsageError(f"{name!r} is a {kind}, which an .npz file cannot hold: write it to a .json file")
    arr = np.asarray(value)
    if arr.dtype.kind == "O":
        if not all(isinstance(x, str) for x in arr.reshape(-1)):
            raise UsageError(f"{name!r} holds objects other than strings, which an .npz file cannot hold")
        return arr.astype(str) if arr.size else np.zeros(arr.shape, dtype="<U1")
    return arr


def write_npz(path: str, arrays: Mapping[str, Any]) -> None:
    """Write ``arrays`` as an ``.npz`` archive, atomically: one ``<name>.npy`` member each, no pickles.

    Written member by member rather than through ``np.savez(**arrays)``,
    whose own parameter names would clash with an array called ``file``.
    """

    plain = {name: _npz_array(name, value) for name, value in arrays.items()}

    def fill(fh: BinaryIO) -> None:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as archive:
            for name, value in plain.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, value, allow_pickle=False)

    write_atomically(path, fill)


T = TypeVar("T")


def write_directory(dest: Path, fill: Callable[[Path], T], failed: Callable[[str], SonnxError]) -> T:
    """Fill a new folder beside ``dest`` with ``fill`` and rename it to ``dest``: a reader sees no folder or the
    whole one, and an interruption (Ctrl-C included) leaves nothing behind.

    A ``dest`` that exists (an empty folder, or a whole earlier one the caller agreed to replace) is moved aside
    and removed only once the new folder is in place. An OS error becomes ``failed(reason)``; what ``fill``
    returns is returned.
    """
    parent = dest.resolve().parent
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=parent))
    except OSError as exc:
        raise failed(str(exc.strerror or exc)) from None
    old: Path | None = None
    try:
        result = fill(tmp)
        os.chmod(tmp, 0o755)
        if dest.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=parent))
            os.replace(dest, old / dest.name)
        os.replace(tmp, dest)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise failed(str(exc.strerror or exc)) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None and dest.exists():
            shutil.rmtree(old, ignore_errors=True)
    return result
