"""Small helpers for building large indices: a cache keyed per check, the garbage collector paused, and the
memory they freed given back to the system."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large indices (it would rescan the model)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cached(cache: dict[object, object], key: object, build: Callable[[], T]) -> T:
    """``cache[key]``, computed by ``build`` on first use."""
    if key in cache:
        return cache[key]  # type: ignore[return-value]
    value = build()
    cache[key] = value
    return value


def release_freed_heap() -> bool:
    """Give the pages of the C heap that hold no live allocation back to the system (glibc's ``malloc_trim``).

    Freeing a large structure (the parsed protobuf messages of a model, an
    index of a million names) leaves free chunks between live ones, which
    glibc keeps resident: only the top of its heap is returned on its own.
    The check calls this where such a structure was just let go while a
    child process may still be working beside it, so that the two together
    hold less memory at once. No value changes. Whether the call was made:
    elsewhere than with glibc it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # imported here: only large models ask for it

    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # a C library without it (musl)
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True
