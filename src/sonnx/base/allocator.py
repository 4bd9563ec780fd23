"""Keep freed memory in the process, so that the next large allocations reuse it instead of faulting in new pages.

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
"""

from __future__ import annotations

import ctypes
import sys

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
    if sys.platform.startswith("linux"):
        try:
            # the process's own symbols, the C library's among them: no search for the library's file, which
            # ctypes.util.find_library does by running ldconfig in a child process
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):  # not glibc (musl has no mallopt)
            mallopt = None
        if mallopt is not None:
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mallopt.restype = ctypes.c_int
            kept = bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    _state["kept"] = kept
    return kept
