"""Reading a bundle that may be hostile: only files the manifest lists, inside the bundle, regular, bounded.

``sonnx evidence verify`` reads a folder someone else wrote. Everything it
opens goes through :func:`open_member`:

* the relative path is a plain path inside the bundle (no absolute path, no
  ``..``, no NUL), and its real location (symbolic links resolved) is inside
  the bundle's real location;
* it is opened without following a final symbolic link and without blocking,
  and must be a regular file (a FIFO, a device or a directory is refused
  before anything is read: a FIFO cannot make the verifier wait);
* its size is checked against a limit before it is read (:func:`read_member`).

Every refusal is a :class:`BundleFileError`, whose message names the file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from ...base.errors import InputError
from ...base.strict_json import json_depth, loads

MAX_JSON_BYTES = 64 << 20
"""The largest JSON file of a bundle that is read (64 MiB)."""
MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects a bundle's JSON file may have (sonnx writes fewer than 12)."""
MAX_SMT_BYTES = 1 << 30
"""The largest SMT-LIB file of a bundle that is read (1 GiB: a million-operation model writes tens of MB)."""


class BundleFileError(InputError):
    """A file of the bundle cannot be read safely (outside the bundle, not a regular file, too large)."""


def member_path(root: Path, rel: str) -> Path:
    """``root / rel`` after checking that ``rel`` names a place inside the bundle."""
    if not isinstance(rel, str) or not rel or "\0" in rel or "\\" in rel:
        raise BundleFileError(f"{rel!r}: not a bundle path")
    parts = PurePosixPath(rel).parts
    if PurePosixPath(rel).is_absolute() or ".." in parts or "." in parts:
        raise BundleFileError(f"{rel!r}: a path outside the bundle")
    p = root.joinpath(*parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(p)
    if os.path.commonpath([real_root, real]) != real_root:
        raise BundleFileError(f"{rel}: leads outside the bundle (through a symbolic link)")
    return p


def open_member(root: Path, rel: str) -> int:
    """A file descriptor of the regular file ``rel`` of the bundle (see the module docstring)."""
    p = member_path(root, rel)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise BundleFileError(f"{rel}: missing") from None
    except OSError as exc:
        raise BundleFileError(f"{rel}: cannot be opened ({exc.strerror or exc})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise BundleFileError(f"{rel}: not a regular file")
    return fd


def read_member(root: Path, rel: str, limit: int) -> bytes:
    """The bytes of ``rel``, refused when larger than ``limit``."""
    fd = open_member(root, rel)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise BundleFileError(f"{rel}: {size} bytes, more than the {limit} this file may have")
        chunks = []
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                break
            chunks.append(block)
            size -= len(block)
            if size < 0:
                raise BundleFileError(f"{rel}: grew while it was read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_json(data: bytes, rel: str) -> Any:
    """Strict JSON: UTF-8, nesting at most :data:`MAX_JSON_DEPTH`, no key twice in an object, no NaN/Infinity.

    Python's own parser keeps the last of two equal keys and recurses once per
    level; a hostile file could hide a value behind a duplicate or exhaust the
    stack, so both are refused here with one line.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleFileError(f"{rel}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise BundleFileError(f"{rel}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return loads(text, None)  # the depth is measured above
    except ValueError as exc:
        raise BundleFileError(f"{rel}: not readable JSON ({exc})") from None


def read_json_member(root: Path, rel: str, limit: int = MAX_JSON_BYTES) -> Any:
    return parse_json(read_member(root, rel, limit), rel)


def hash_member(root: Path, rel: str, hasher: Any) -> None:
    """Feed the bytes of ``rel`` to ``hasher`` in blocks (no size limit: only a digest is kept)."""
    fd = open_member(root, rel)
    try:
        while True:
            block = os.read(fd, 1 << 20)
            if not block:
                return
            hasher.update(block)
    finally:
        os.close(fd)


def walk_members(root: Path) -> Iterator[tuple[str, str]]:
    """Every entry under ``root`` as (relative path, kind): ``file``, ``link``, ``dir`` or ``other``.

    Symbolic links are reported, never followed.
    """
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            rel = Path(full).relative_to(root).as_posix()
            mode = os.lstat(full).st_mode
            if stat.S_ISLNK(mode):
                kind = "link"
            elif stat.S_ISDIR(mode):
                kind = "dir"
            elif stat.S_ISREG(mode):
                kind = "file"
            else:
                kind = "other"
            yield rel, kind
