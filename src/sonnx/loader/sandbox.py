"""Running onnx's native code on an untrusted model in a child process, under memory and time limits.

onnx's checker and shape inference are C++. A crafted model can make them
recurse until the stack overflows (a model-local function whose graph-attribute
default calls the function itself, for one), which kills the process with
SIGSEGV: Python cannot catch that, so a check done in sonnx's own process would
end with no report at all. :func:`contained` runs such a call in a forked child
instead. The child inherits what the parent holds (the loaded ``onnx`` module,
the bytes or proto already read), so nothing big is copied to it; it sends back
only the call's result, pickled into an unnamed file the parent reads once the
child has left (a pipe only tells the parent when). :func:`contained` waits for
the result at once; :func:`start` returns at once, so that the parent works
while the child does, and :meth:`Started.join` collects the result later. A fork costs milliseconds for a
parent of ordinary size and more for a parent holding gigabytes, small next to
the checker itself (figures: benchmarks/README.md, "Figures behind choices in
the code").

The child runs with an address-space limit (``RLIMIT_AS``: what it had when it
was forked plus :data:`MEMORY_BUDGET`) and a wall-clock limit
(:data:`TIME_LIMIT`, kept by the child's own clock, so that it holds however late
the parent joins), after which it is killed; a runtime executing the model
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
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

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


def _child(done_fd: int, result_fd: int, fn: Callable[..., Any], args: tuple[Any, ...], memory: int,
           seconds: float) -> None:
    """The forked child: limit itself, run ``fn``, write its result to ``result_fd``, and leave without running the
    parent's exit code (its end of the pipe ``done_fd`` closes as it leaves, which tells the parent it is done)."""
    status = 0
    try:
        import faulthandler
        import gc

        gc.disable()  # a collection would touch, and so copy, every page of the parent's objects

        faulthandler.disable()  # a crash of the child is reported by the parent, not as a traceback
        # The child keeps its own wall-clock limit, so that it stops in time while the parent is busy elsewhere:
        # SIGALRM with its default action ends the process, and the parent names the limit.
        try:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
        except (ValueError, OSError):
            pass  # the parent's deadline still stops it, when the parent waits for it
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
            view = view[os.write(result_fd, view[:_READ]) :]
    except BaseException:
        status = 3
    finally:
        os._exit(status)  # closes ``done_fd`` with every other descriptor


def _wait_done(done_fd: int, deadline: float) -> bool:
    """Whether the child closed its end of the pipe (it left) before ``deadline``; a deadline already past still
    sees a child that has left."""
    while True:
        ready, _, _ = select.select([done_fd], [], [], max(deadline - time.monotonic(), 0.0))
        if not ready:
            return False
        if not os.read(done_fd, _READ):
            return True


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


def _result_file() -> int:
    """An unnamed file the child writes its result to: the parent reads it once the child has left, so a child
    never waits on a parent busy elsewhere, whatever the size of its result."""
    if hasattr(os, "memfd_create"):
        try:
            return os.memfd_create("sonnx-sandbox-result", getattr(os, "MFD_CLOEXEC", 0))
        except OSError:
            pass
    with tempfile.TemporaryFile() as fh:  # the duplicate outlives the object; Started closes it
        return os.dup(fh.fileno())


def _read_result(result_fd: int) -> bytes:
    size = os.fstat(result_fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(result_fd, min(_READ, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


AFTER_DONE = 5.0
"""Seconds a child that closed its pipe (it is leaving) is given to end, even when the parent comes after the
time limit: the limit is the child's to keep, and a child that met it keeps its result."""


class Started(Generic[T]):
    """A call running in a forked child (:func:`start`), whose result :meth:`join` waits for.

    The child keeps its own time limit, so the parent may join late (after
    work of its own) and still receive the same result, or the same failure,
    as a call it had waited for at once. :meth:`cancel` stops a child whose
    result is no longer wanted; both are idempotent.
    """

    def __init__(self, outcome: T | Failure | None, pid: int = 0, done_fd: int = -1, result_fd: int = -1,
                 deadline: float = 0.0, time_limit: float = 0.0, memory_budget: int = 0) -> None:
        self._outcome = outcome
        self._pid, self._done_fd, self._result_fd = pid, done_fd, result_fd
        self._deadline, self._time_limit, self._memory_budget = deadline, time_limit, memory_budget

    @property
    def pid(self) -> int:
        """The child's process ID while it is neither joined nor cancelled (0 otherwise)."""
        return self._pid

    @property
    def running(self) -> bool:
        """Whether a child was started and neither joined nor cancelled."""
        return self._pid != 0

    def join(self) -> T | Failure:
        """The call's result, or the :class:`Failure` that stopped it (waiting until the time limit at most)."""
        if self._pid:
            self._outcome = self._collect()
        assert self._outcome is not None
        return self._outcome

    def cancel(self) -> None:
        """Stop the child, when it is still running, and forget it."""
        if self._pid:
            _kill(self._pid)
            self._close()
            self._outcome = Failure("exit", "was stopped: its result was no longer needed")

    def _close(self) -> None:
        os.close(self._done_fd)
        os.close(self._result_fd)
        self._pid = 0

    def _collect(self) -> T | Failure:
        pid = self._pid
        try:
            left = _wait_done(self._done_fd, self._deadline)
            status = _reap(pid, max(self._deadline, time.monotonic() + AFTER_DONE)) if left else None
            if status is None:
                _kill(pid)
                return Failure("time", f"exceeded its time limit of {self._time_limit:g} s and was stopped")
            data = _read_result(self._result_fd)
        finally:
            self._close()
        return _outcome(status, data, self._time_limit, self._memory_budget)


def _outcome(status: int, data: bytes, time_limit: float, memory_budget: int) -> Any:
    """What a child that ended with wait ``status`` and wrote ``data`` gives: its result or a :class:`Failure`."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGALRM:  # the child's own clock: see _child
            return Failure("time", f"exceeded its time limit of {time_limit:g} s and was stopped")
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


def start(
    fn: Callable[..., T],
    *args: Any,
    time_limit: float | None = None,
    memory_budget: int | None = None,
) -> Started[T]:
    """``fn(*args)`` started in a forked child under the limits; :meth:`Started.join` gives its result or failure.

    The limits default to :data:`TIME_LIMIT` and :data:`MEMORY_BUDGET` as they
    are when called; the time limit runs from now. ``fn``'s result must be
    picklable; an exception it raises is a ``raised`` failure (callers that
    expect exceptions catch them inside ``fn``). Without ``fork`` the call runs
    here, at once.
    """
    time_limit = TIME_LIMIT if time_limit is None else time_limit
    memory_budget = MEMORY_BUDGET if memory_budget is None else memory_budget
    if not ISOLATED:
        try:
            return Started(fn(*args))
        except MemoryError:
            return Started(Failure("memory", "ran out of memory"))
    try:
        result_fd = _result_file()
    except OSError as exc:
        return Started(Failure("exit", f"could not be started in a child process: {exc.strerror or exc}"))
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns when a process with threads forks; the child here only runs ``fn`` and leaves
            # with os._exit, and a lock left held by another thread stops it at the time limit, not forever.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError as exc:
        for fd in (read_fd, write_fd, result_fd):
            os.close(fd)
        return Started(Failure("exit", f"could not be started in a child process: {exc.strerror or exc}"))
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_fd)
        _child(write_fd, result_fd, fn, args, memory_budget, time_limit)
    os.close(write_fd)
    deadline = time.monotonic() + time_limit
    return Started(None, pid, read_fd, result_fd, deadline, time_limit, memory_budget)


def contained(
    fn: Callable[..., T],
    *args: Any,
    time_limit: float | None = None,
    memory_budget: int | None = None,
) -> T | Failure:
    """``fn(*args)`` run in a forked child under the limits, or the :class:`Failure` that stopped it: :func:`start`
    and :meth:`Started.join` at once."""
    return start(fn, *args, time_limit=time_limit, memory_budget=memory_budget).join()
