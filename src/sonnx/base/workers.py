"""Worker processes that run one function on many items, and say which item a worker held when it died.

Used by the batch's local pool and the SMT engine's solver pool instead of
:class:`concurrent.futures.ProcessPoolExecutor`, for two reasons:

* a worker that dies (an out-of-memory kill, a crash in native code) costs
  only the item it held. The executor fails every pending future when one
  worker dies, and cannot say which item killed it;
* no hang when a worker dies early. In the executor, a worker started by
  ``submit`` while the manager thread is already tearing the broken pool down
  is never terminated, and the manager waits for it forever (seen with
  Python 3.11 and the forkserver start method; measured in
  ``benchmarks/README.md``). Here every worker is started, watched and
  stopped by one dispatcher thread, and a pool's end terminates every
  process it ever started that is still alive.

Each worker has its own duplex pipe and holds at most one item: the
dispatcher sends an item to an idle worker, waits on the pipes and on the
processes' sentinels together, and turns what it sees into an
:data:`Outcome`: the value (:class:`Done`), an exception the function raised,
in words (:class:`Raised`), the end of the process (:class:`Died`), or the
pool closing first (:class:`Cancelled`). A dead worker is replaced when items
are waiting. Workers start from :func:`~.threads.process_context` (a fork
server that has imported ``preload``), all of them when the pool is made, so
a process that may not have children fails there, in the caller's thread.
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from .threads import process_context

ItemT = TypeVar("ItemT")
ValueT = TypeVar("ValueT")

STOP_SECONDS = 5.0
"""How long a closing pool waits for a worker to end after asking it to, before terminating it."""


@dataclass(frozen=True)
class Done(Generic[ValueT]):
    """The function returned ``value``."""

    value: ValueT


@dataclass(frozen=True)
class Raised:
    """The function raised in the worker (or its value could not be sent back): ``message`` names the exception."""

    message: str


@dataclass(frozen=True)
class Died:
    """The worker process ended while it held the item: ``reason`` says how (exit status or signal)."""

    reason: str


@dataclass(frozen=True)
class Cancelled:
    """The pool was closed before the item's answer came."""


Outcome = Done[Any] | Raised | Died | Cancelled


def _serve(conn: Connection, fn: Callable[[Any], Any]) -> None:
    """A worker's loop: receive an item, send back ``("done", value)`` or ``("raised", words)``; None ends it.

    Ctrl-C reaches the workers with the rest of the terminal's process group:
    a worker then ends quietly, and the pool's owner, interrupted too, closes
    the pool.
    """
    try:
        _loop(conn, fn)
    except KeyboardInterrupt:
        return


def _loop(conn: Connection, fn: Callable[[Any], Any]) -> None:
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):  # the pool's end of the pipe is gone
            return
        if item is None:
            return
        try:
            reply: tuple[str, Any] = ("done", fn(item))
        except Exception as exc:
            reply = ("raised", f"{type(exc).__name__}: {' '.join(str(exc).split())}")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # the value cannot be pickled: pickling fails before a byte is sent
            conn.send(("raised", f"its answer could not be sent back ({type(exc).__name__}: {exc})"))


def ended(process: BaseProcess) -> str:
    """How a worker process ended, in words: its exit status, or the signal that killed it."""
    process.join(STOP_SECONDS)
    code = process.exitcode
    if code is None:
        return "the worker process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the worker process was killed by {name}"
    return f"the worker process ended with exit status {code}"


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    ticket: int | None = None


def _stop(workers: list[_Worker]) -> None:
    """End every process: idle ones are asked to, busy or deaf ones are terminated, then killed."""
    for w in workers:
        if w.ticket is None:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        else:
            w.process.terminate()
    for w in workers:
        w.process.join(STOP_SECONDS)
        if w.process.exitcode is None:
            w.process.terminate()
            w.process.join(STOP_SECONDS)
        if w.process.exitcode is None:
            w.process.kill()
            w.process.join()
        w.conn.close()


class WorkerPool(Generic[ItemT, ValueT]):
    """``workers`` processes running ``fn`` on submitted items; use as a context manager.

    ``fn`` must be picklable (a module-level function, or an instance of a
    module-level class): each worker receives it once, when it starts.
    :meth:`submit` returns a ticket; :meth:`outcome` waits for one ticket's
    :data:`Outcome`, :meth:`next_outcome` for whichever comes first.
    """

    def __init__(self, fn: Callable[[ItemT], ValueT], workers: int, preload: Sequence[str]) -> None:
        self._fn = fn
        self._size = max(1, workers)
        self._context = process_context(list(preload))
        self._cv = threading.Condition()
        self._queue: deque[tuple[int, ItemT]] = deque()
        self._outcomes: dict[int, Outcome] = {}
        self._open: set[int] = set()
        self._tickets = 0
        self._closed = False
        self._failure: str | None = None
        self._workers: list[_Worker] = []
        self._wake_r, self._wake_w = os.pipe()
        self._finalizer = weakref.finalize(self, _stop, self._workers)
        try:
            for _ in range(self._size):
                self._workers.append(self._spawn())
        except BaseException:
            self._finalizer()
            self._close_wake()
            raise
        self._thread = threading.Thread(target=self._dispatch_loop, name="sonnx-worker-pool", daemon=True)
        self._thread.start()

    def __enter__(self) -> WorkerPool[ItemT, ValueT]:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def size(self) -> int:
        return self._size

    def pids(self) -> list[int]:
        """The process ids of the live workers (for tests and progress)."""
        with self._cv:
            return [w.process.pid for w in self._workers if w.process.pid is not None]

    def submit(self, item: ItemT) -> int:
        """Queue ``item`` for the next idle worker; return its ticket."""
        with self._cv:
            if self._closed:
                raise ValueError("the worker pool is closed")
            ticket = self._tickets
            self._tickets += 1
            self._open.add(ticket)
            if self._failure is not None:
                self._outcomes[ticket] = Died(self._failure)
            else:
                self._queue.append((ticket, item))
            self._cv.notify_all()
        self._wake()
        return ticket

    def outcome(self, ticket: int) -> Outcome:
        """Wait for ``ticket``'s outcome (each ticket's outcome is given once)."""
        with self._cv:
            if ticket not in self._open:
                raise KeyError(f"no open ticket {ticket}")
            while ticket not in self._outcomes:
                self._cv.wait(1.0)
            self._open.discard(ticket)
            return self._outcomes.pop(ticket)

    def next_outcome(self) -> tuple[int, Outcome]:
        """Wait for the first outcome not yet given, of any ticket."""
        with self._cv:
            if not self._open:
                raise KeyError("no open ticket")
            while not self._outcomes:
                self._cv.wait(1.0)
            ticket = next(iter(self._outcomes))
            self._open.discard(ticket)
            return ticket, self._outcomes.pop(ticket)

    def close(self) -> None:
        """Cancel what has no answer yet, end every worker process and the dispatcher; a second call does nothing."""
        with self._cv:
            if self._closed:
                return
            self._closed = True
            for ticket in self._open:
                self._outcomes.setdefault(ticket, Cancelled())
            self._queue.clear()
            self._cv.notify_all()
        self._wake()
        self._thread.join()
        self._finalizer()
        self._close_wake()

    # -- the dispatcher thread ------------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        parent, child = self._context.Pipe(duplex=True)
        context: Any = self._context  # a fork-server or spawn context; typeshed's BaseContext lacks Process
        process: BaseProcess = context.Process(target=_serve, args=(child, self._fn), name="sonnx-worker")
        try:
            process.start()
        finally:
            child.close()
        return _Worker(process, parent)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:  # closed: the pool has ended
            pass

    def _close_wake(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def _dispatch_loop(self) -> None:
        try:
            while self._step():
                pass
        except BaseException as exc:  # a defect here must not leave a caller waiting for ever
            with self._cv:
                self._failure = f"the worker pool failed ({type(exc).__name__}: {exc})"
                for ticket in self._open:
                    self._outcomes.setdefault(ticket, Died(self._failure))
                self._queue.clear()
                self._cv.notify_all()

    def _step(self) -> bool:
        """Send waiting items to idle workers, wait for one event, take it in; False once the pool is closed."""
        with self._cv:
            if self._closed:
                return False
            self._send_waiting()
            watched: list[Any] = [self._wake_r]
            for w in self._workers:
                watched.append(w.process.sentinel)
                if w.ticket is not None:
                    watched.append(w.conn)
        ready = set(wait(watched))
        if self._wake_r in ready:
            os.read(self._wake_r, 4096)
        with self._cv:
            if self._closed:
                return False
            for w in list(self._workers):
                ended_now = w.process.sentinel in ready
                if w.ticket is not None and (w.conn in ready or (ended_now and w.conn.poll())):
                    self._receive(w)  # an answer sent before the process ended still counts
                elif ended_now:
                    self._bury(w)
            self._cv.notify_all()
        return True

    def _send_waiting(self) -> None:
        while self._queue:
            idle = next((w for w in self._workers if w.ticket is None), None)
            if idle is None:
                if len(self._workers) >= self._size:
                    return
                try:
                    idle = self._spawn()
                except Exception as exc:
                    if self._workers:  # the live workers will take the items
                        self._size = len(self._workers)
                        return
                    why = f"no worker process could be started ({type(exc).__name__}: {exc})"
                    for ticket, _item in self._queue:
                        self._outcomes[ticket] = Died(why)
                    self._queue.clear()
                    return
                self._workers.append(idle)
            ticket, item = self._queue.popleft()
            idle.ticket = ticket
            try:
                idle.conn.send(item)
            except (OSError, EOFError):  # it died idle: the item is counted as lost with it
                self._bury(idle)
            except Exception as exc:  # the item cannot be pickled
                idle.ticket = None
                self._outcomes[ticket] = Raised(f"the item could not be sent to a worker ({type(exc).__name__}: {exc})")

    def _receive(self, w: _Worker) -> None:
        assert w.ticket is not None
        try:
            kind, value = w.conn.recv()
        except (EOFError, OSError):
            self._bury(w)
            return
        self._outcomes[w.ticket] = Done(value) if kind == "done" else Raised(value)
        w.ticket = None

    def _bury(self, w: _Worker) -> None:
        """``w``'s process has ended: its item, if it held one, died with it."""
        self._workers.remove(w)
        reason = ended(w.process)
        w.conn.close()
        if w.ticket is not None:
            self._outcomes[w.ticket] = Died(reason)
