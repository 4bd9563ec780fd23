"""Memory and CPU of a process and every process below it, sampled from Linux ``/proc`` (for the benchmarks).

The checks start child processes (FORMAT-ONNX's checker, the SMT engine's
solver pool), so a benchmark that looked at its child alone would miss most
of what a run costs. :class:`Sampler` walks the tree every 20 ms in a
thread: ``peak`` is the highest sum of resident memory seen at one instant,
``hwm`` each process's own peak (``VmHWM``, so their sum is an upper bound),
``cpu`` each process's user + system time as last seen. With ``limit`` it
kills the whole tree once the sum passes that many GB: the machine is
shared, and a run that would swap measures nothing.
"""

from __future__ import annotations

import os
import signal
import threading

TICKS = os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it that is still there."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except OSError:
            continue
    return out


def memory(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in bytes; zeros once it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss, hwm


def cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime: fields 14 and 15 of proc(5)


class Sampler:
    """Samples the process tree below ``pid`` every 20 ms until :meth:`stop` (see the module text)."""

    def __init__(self, pid: int, limit: float = 0.0) -> None:
        self.root = pid
        self.limit = limit
        self.killed = False
        self.peak = 0
        self.hwm: dict[int, int] = {}
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            found = tree(self.root)
            for pid in found:
                rss, hwm = memory(pid)
                total += rss
                self.hwm[pid] = max(self.hwm.get(pid, 0), hwm)
                self.cpu[pid] = max(self.cpu.get(pid, 0.0), cpu(pid))
            self.peak = max(self.peak, total)
            if self.limit and total > self.limit * 1e9:
                self.killed = True
                for pid in reversed(found):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            self._stop.wait(0.02)

    def stop(self) -> Sampler:
        """Stop sampling; the figures stay in the attributes (``peak_gb``, ``hwm_gb``, ``cpu_below``...)."""
        self._stop.set()
        self._thread.join()
        return self

    @property
    def peak_gb(self) -> float:
        return self.peak / 1e9

    @property
    def hwm_gb(self) -> float:
        return sum(self.hwm.values()) / 1e9

    @property
    def cpu_all(self) -> float:
        return sum(self.cpu.values())

    @property
    def cpu_below(self) -> float:
        """CPU seconds of the processes below the root, as last sampled (a lower bound)."""
        return sum(c for p, c in self.cpu.items() if p != self.root)
