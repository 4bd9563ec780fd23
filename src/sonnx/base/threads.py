"""How many threads NumPy's BLAS library uses, set for the duration of a run (``--threads N``); cores and processes.

The executor's matrix products (Conv through im2col, Gemm, MatMul) run in
the BLAS library NumPy links (OpenBLAS in NumPy's wheels), which starts one
thread per core by default. :func:`blas_threads` limits its pool with
``threadpoolctl`` while a run lasts and says how many threads each library
then has, so that a report can state the figure it ran with. Without a count
given, :func:`default_threads` takes the standard variables a user sets for
BLAS (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``...) before the cores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .errors import UsageError

if TYPE_CHECKING:  # multiprocessing is imported by the runs that start workers: a small check starts none
    from multiprocessing.context import BaseContext

CHECK_THREADS = 1
"""BLAS threads of the executions whose values leave the process: the cross-check and the evidence bundle's record.

OpenBLAS may split a product differently with another thread count, which
changes float32 results in the last bits; an ill-conditioned output (a
Softmax over nearly tied logits in onnx's light SqueezeNet) turns those bits
into a different cross-check verdict. A check's verdicts and a bundle's output
digests must not depend on how many cores the machine has, or on whether a
batch worker runs it (Dask workers start with one BLAS thread), so these run
one thread, as the oracles do (onnxruntime with one intra-op thread).
EXEC-ORDERS compares runs of one process with each other, all under the same
count, so it keeps the caller's; ``sonnx run`` uses ``--threads``.
"""


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity call (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def process_context(preload: list[str]) -> BaseContext:
    """How worker processes start: forked from a server process that has imported ``preload`` (POSIX), else spawned.

    Not a plain fork of this process, which may hold threads (a Dask worker's
    or client's, a caller's) whose locks a forked child would inherit. Used by
    :class:`~.workers.WorkerPool`, the batch's and the SMT engine's pool.
    """
    from multiprocessing import get_context

    try:
        ctx = get_context("forkserver")
    except ValueError:
        return get_context("spawn")
    ctx.set_forkserver_preload(preload)
    return ctx


THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "OMP_NUM_THREADS")
"""The environment variables that size a BLAS pool, in the order they are read: the library's own first, then
OpenMP's, as OpenBLAS itself reads them when it starts."""


def environment_threads(environ: Mapping[str, str] | None = None) -> tuple[int, str] | None:
    """The BLAS thread count the environment asks for, with the variable it came from; None when none is set.

    The first of :data:`THREAD_VARIABLES` that holds a whole number of at
    least 1 gives the count. ``OMP_NUM_THREADS`` may list one count per
    nesting level (``4,2``): the first is the outer level's, which the BLAS
    pool uses. An empty value is unset; any other value is a
    :class:`UsageError` naming the variable, rather than a count guessed.
    """
    env = os.environ if environ is None else environ
    for name in THREAD_VARIABLES:
        text = env.get(name, "").strip()
        if not text:
            continue
        first = text.split(",", 1)[0].strip()
        if not first.isdigit() or int(first) < 1:
            raise UsageError(f"{name}={text!r}: a BLAS thread count must be a whole number of at least 1")
        return int(first), name
    return None


def default_threads(environ: Mapping[str, str] | None = None) -> tuple[int, str]:
    """The BLAS thread count of a run given no ``--threads``: the environment's, else the machine's cores.

    Returns the count and where it came from (a variable's name, or ``cores``).
    """
    found = environment_threads(environ)
    return found if found is not None else (machine_cores(), "cores")


def check_threads(count: int) -> int:
    """``count`` when it is a usable thread count, else a :class:`UsageError`."""
    if count < 1:
        raise UsageError(f"--threads {count}: the thread count must be at least 1")
    return count


@contextmanager
def blas_threads(count: int) -> Iterator[dict[str, int]]:
    """Limit NumPy's BLAS pools to ``count`` threads inside the block.

    Yields the libraries found and the thread count each has inside the block
    (``{"openblas": 1}``); empty when NumPy links no BLAS library that
    ``threadpoolctl`` knows.
    """
    check_threads(count)
    import numpy  # noqa: F401  (the BLAS library is found among the loaded ones)
    from threadpoolctl import threadpool_info, threadpool_limits

    with threadpool_limits(limits=count, user_api="blas"):
        seen = {str(i["internal_api"]): int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"}
        yield seen
