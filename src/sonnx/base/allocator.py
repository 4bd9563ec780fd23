"""glibc's allocator: keep freed memory for reuse, or give it back to the system.

Keep freed memory in the process, so that the next large allocations reuse it instead of faulting in new pages.

Two users: the executor, whose arrays come and go, and the SMT engine on a
small model, whose solvers each take a fresh z3 context of about 17 MB
(:func:`sonnx.smt.engine.run_smt`); with the freed memory kept, the next
context reuses the pages of the one before instead of zeroing new ones.

An executor's run allocates a fresh array for almost every value and frees it after its
last reader. With glibc's default settings, memory freed at the top of the
heap beyond a threshold is given back to the system, and arrays above a
(self-adjusting) size are mapped and unmapped one by one: the next run, or the
next operation, faults the same pages in again. Each fault traps into the
kernel, which zeroes the page; in a virtual machine whose host takes freed
pages back, the host faults too.

:func:`keep_freed_memory` sets, once per process, glibc's ``M_TRIM_THRESHOLD``
to 1 GiB (the heap is not trimmed below that much free memory) and
``M_MMAP_THRESHOLD`` to 32 MiB, glibc's largest (arrays up to that size come
from the heap, and are reused from it). Arrays above 32 MiB are still
mapped and unmapped. No value changes; the process keeps the largest heap it
has had until it exits (see the peak-memory column of ``benchmarks/README.md``). Elsewhere than with
glibc it does nothing and says so.

:func:`release_freed_heap` does the opposite, once, where a large structure was
just let go (the parsed runs of a big model, an index of a million names):
glibc's ``malloc_trim`` returns the free pages between live chunks, which the
heap otherwise keeps resident, so that the checking process holds less while
FORMAT-ONNX's child works beside it.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 1 << 30
MMAP_THRESHOLD = 32 << 20
"""glibc's ``DEFAULT_MMAP_THRESHOLD_MAX`` on 64-bit systems: a larger value is refused."""

_state: dict[str, bool] = {}


def keep_freed_memory() -> bool:
    """Set glibc's trim and mmap thresholds once (see the module text); whether they are in force."""
    if "kept" in _state:
        return _state["kept"]
    kept = False
    mallopt = _glibc("mallopt", [ctypes.c_int, ctypes.c_int])
    if mallopt is not None:
        kept = bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    _state["kept"] = kept
    return kept


def release_freed_heap() -> bool:
    """Give the heap's pages that hold no live allocation back to the system (``malloc_trim(0)``); whether it ran.

    No value changes. Elsewhere than with glibc it does nothing.
    """
    trim = _glibc("malloc_trim", [ctypes.c_size_t])
    if trim is None:
        return False
    trim(0)
    return True


def _glibc(name: str, argtypes: list[Any]) -> Any:
    """The C library's function ``name`` (returning a C int), or None off Linux or where the library lacks it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        # the process's own symbols, the C library's among them: no search for the library's file, which
        # ctypes.util.find_library does by running ldconfig in a child process
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # not glibc (musl has neither mallopt nor malloc_trim)
        return None
    function.argtypes = argtypes
    function.restype = ctypes.c_int
    return function
