"""Running onnx's native code on an untrusted model in a child process, under memory and time limits.

onnx's checker and shape inference are C++. A crafted model can make them
recurse until the stack overflows (a model-local function whose graph-attribute
default calls the function itself, for one), which kills the process with
SIGSEGV: Python cannot catch that, so a check done in sonnx's own process would
end with no report at all. :func:`contained` runs such a call in a forked child
instead. The child inherits what the parent holds (the loaded ``onnx`` module,
the bytes or proto already read), so nothing big is copied to it; it sends back
only the call's result, pickled through a pipe. A fork costs milliseconds for a
parent of ordinary size and more for a parent holding gigabytes, small next to
the checker itself (figures: benchmarks/README.md, "Figures behind choices in
the code").

The child runs with an address-space limit (``RLIMIT_AS``: what it had when it
was forked plus :data:`MEMORY_BUDGET`) and a wall-clock limit
(:data:`TIME_LIMIT`), after which it is killed; a runtime executing the model
(the cross-check's oracles) gets the machine's memory and
:data:`RUNTIME_TIME_LIMIT`. A child that dies by a signal, exits without a
result, hits a limit or raises is a :class:`Failure` whose one-line reason
names the signal or the limit. What a caller makes of a failure is its own
choice, and never a finding about the model: FORMAT-ONNX turns it into UNKNOWN
(spec/graph.rst, FORMAT-ONNX), the loader's shape inference into "not inferred".

On a system without ``fork`` (Windows) there is neither fork nor ``RLIMIT_AS``; the
call then runs in this process, unprotected, as it did before (said in
:data:`ISOLATED`).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

MEMORY_BUDGET = 8 * 1024**3
"""Bytes of address space the child may add to what it had when forked: several times what onnx's full check of
the largest model measured needs (benchmarks/README.md, "Figures behind choices in the code")."""

TIME_LIMIT = 900.0
"""Seconds the child may run: about a hundred times the full check of the largest model measured (same table)."""

RUNTIME_TIME_LIMIT = 6 * 3600.0
"""Seconds a runtime executing the model may run (onnx's reference evaluator is up to hundreds of times slower
than onnxruntime on convolution networks)."""


def runtime_memory_budget() -> int:
    """Address space a runtime executing the model may add: the machine's memory (at least :data:`MEMORY_BUDGET`)."""
    try:
        machine = int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        machine = 0
    return max(MEMORY_BUDGET, machine)


ISOLATED = hasattr(os, "fork")
"""Whether native calls run in a child process on this system."""

_READ = 1 << 20


@dataclass(frozen=True)
class Failure:
    """A contained call that gave no result: ``kind`` is ``signal``, ``memory``, ``time``, ``exit`` or ``raised``."""

    kind: str
    reason: str
    """One line naming the signal, the limit or the exception (``was killed by signal SIGSEGV``)."""


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    described = signal.strsignal(number) if hasattr(signal, "strsignal") else None
    return f"signal {name} ({described.lower()})" if described else f"signal {name}"


def _address_space() -> int:
    """The bytes of address space this process maps now (0 when the system does not say)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _child(write_fd: int, fn: Callable[..., Any], args: tuple[Any, ...], memory: int) -> None:
    """The forked child: limit itself, run ``fn``, send its result, and leave without running the parent's exit code."""
    status = 0
    try:
        import faulthandler
        import gc

        gc.disable()  # a collection would touch, and so copy, every page of the parent's objects

        faulthandler.disable()  # a crash of the child is reported by the parent, not as a traceback
        try:
            import resource

            limit = _address_space() + memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):
            pass
        try:
            payload = pickle.dumps(("ok", fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            payload = pickle.dumps(("memory", ""))
        except BaseException as exc:  # anything the call raises goes back to the parent as one line
            payload = pickle.dumps(("raised", f"{type(exc).__name__}: {' '.join(str(exc).split())}"))
        view = memoryview(payload)
        while view:
            view = view[os.write(write_fd, view[:_READ]) :]
    except BaseException:
        status = 3
    finally:
        os._exit(status)


def _read_all(read_fd: int, deadline: float) -> bytes | None:
    """Everything the child writes, or None when ``deadline`` passes first."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([read_fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(read_fd, _READ)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _reap(pid: int, deadline: float) -> int | None:
    """The child's wait status, or None when it has not ended by ``deadline``."""
    pause = 0.0001  # the child is usually gone within a millisecond of closing its pipe
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def contained(
    fn: Callable[..., T],
    *args: Any,
    time_limit: float | None = None,
    memory_budget: int | None = None,
) -> T | Failure:
    """``fn(*args)`` run in a forked child under the limits, or the :class:`Failure` that stopped it.

    The limits default to :data:`TIME_LIMIT` and :data:`MEMORY_BUDGET` as they
    are when called. ``fn``'s result must be picklable; an exception it raises
    is a ``raised`` failure (callers that expect exceptions catch them inside ``fn``).
    """
    time_limit = TIME_LIMIT if time_limit is None else time_limit
    memory_budget = MEMORY_BUDGET if memory_budget is None else memory_budget
    if not ISOLATED:
        try:
            return fn(*args)
        except MemoryError:
            return Failure("memory", "ran out of memory")
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns when a process with threads forks; the child here only runs ``fn`` and leaves
            # with os._exit, and a lock left held by another thread stops it at the time limit, not forever.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError as exc:
        os.close(read_fd)
        os.close(write_fd)
        return Failure("exit", f"could not be started in a child process: {exc.strerror or exc}")
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_fd)
        _child(write_fd, fn, args, memory_budget)
    os.close(write_fd)
    deadline = time.monotonic() + time_limit
    try:
        data = _read_all(read_fd, deadline)
    finally:
        os.close(read_fd)
    status = None if data is None else _reap(pid, deadline)
    if status is None:
        _kill(pid)
        return Failure("time", f"exceeded its time limit of {time_limit:g} s and was stopped")
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return Failure("signal", f"was killed by {_signal_name(number)}")
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or not data:
        return Failure("exit", f"ended with exit status {code} and no result")
    kind, value = pickle.loads(data)
    if kind == "ok":
        return value
    if kind == "memory":
        return Failure("memory", f"ran out of memory (its limit: {memory_budget / 1024**3:g} GiB of address space)")
    return Failure("raised", f"raised {value}")
