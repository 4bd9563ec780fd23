"""The worker pool under the batch and the SMT solver pool (``sonnx.base.workers``).

What it promises: every submitted item gets exactly one outcome (its value, the
exception in words, the death of the process that held it, or a cancellation
by close); a death costs only the item the dead worker held; a dead worker is
replaced; closing ends every process the pool started. The last one is the
hang ``concurrent.futures.ProcessPoolExecutor`` showed under load: a worker
started while a broken pool was being torn down was never terminated.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sonnx.base import workers as workers_module
from sonnx.base.workers import Cancelled, Died, Done, Raised, WorkerPool, ended
from tests.batch import crashers


def gone(pid: int) -> bool:
    """True once ``pid`` is neither running nor a zombie (its parent, the fork server, reaps it)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            time.sleep(0.05)
            continue
        time.sleep(0.05)
    return False


def test_every_item_gets_its_own_outcome() -> None:
    with WorkerPool(crashers.square_or_die, 2, ["tests.batch.crashers"]) as pool:
        tickets = {x: pool.submit(x) for x in (3, -2, -3, 4, -1, 5)}
        got = {x: pool.outcome(t) for x, t in tickets.items()}
    assert got[3] == Done(9) and got[4] == Done(16) and got[5] == Done(25)
    assert got[-2] == Raised("ValueError: planted: no square for -2")
    assert isinstance(got[-3], Raised) and got[-3].message.startswith("its answer could not be sent back")
    assert got[-1] == Died("the worker process ended with exit status 9")


def test_a_death_costs_only_the_item_held_and_the_worker_is_replaced() -> None:
    with WorkerPool(crashers.square_or_die, 2, []) as pool:
        first = set(pool.pids())
        tickets = [pool.submit(x) for x in (-1, 2, -1, 3, 4, -1, 6)]
        outcomes = [pool.outcome(t) for t in tickets]
        after = set(pool.pids())
    assert [type(o) for o in outcomes] == [Died, Done, Died, Done, Done, Died, Done]
    assert [o.value for o in outcomes if isinstance(o, Done)] == [4, 9, 16, 36]
    assert after - first and len(after) <= 2  # dead workers were replaced (when items waited), up to the size


def test_next_outcome_gives_each_ticket_once() -> None:
    with WorkerPool(crashers.square_or_die, 2, []) as pool:
        tickets = {pool.submit(x): x for x in range(6)}
        seen = dict(pool.next_outcome() for _ in tickets)
        with pytest.raises(KeyError, match="no open ticket"):
            pool.next_outcome()
        with pytest.raises(KeyError, match="no open ticket 0"):
            pool.outcome(0)
    assert seen == {t: Done(x * x) for t, x in tickets.items()}


def test_closing_cancels_what_has_no_answer_and_ends_every_process(tmp_path: Path) -> None:
    """Closed while both workers are busy with long jobs and more wait: nothing is answered, nothing is left."""
    pool = WorkerPool(crashers.Nap(str(tmp_path)), 2, [])
    pids = pool.pids()
    tickets = [pool.submit(300.0) for _ in range(10)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(int(p.name) for p in tmp_path.iterdir()) == sorted(pids)  # both workers hold a job
    pool.close()
    pool.close()  # a second close does nothing
    assert all(isinstance(pool.outcome(t), Cancelled) for t in tickets)
    assert all(gone(pid) for pid in pids), pids
    with pytest.raises(ValueError, match="closed"):
        pool.submit(1.0)


def test_a_worker_killed_while_idle_loses_nothing() -> None:
    with WorkerPool(crashers.square_or_die, 1, []) as pool:
        assert pool.outcome(pool.submit(2)) == Done(4)
        [pid] = pool.pids()
        os.kill(pid, signal.SIGKILL)
        assert gone(pid)
        assert pool.outcome(pool.submit(3)) == Done(9)  # a fresh worker took it
        assert pool.pids() != [pid]


def test_early_deaths_never_hang_the_pool_and_leave_no_process() -> None:
    """A death at once, on every worker, many times: each time every outcome comes and every process ends.

    With ``ProcessPoolExecutor`` this loop hung within a few hundred rounds under load (a worker started during
    the teardown of the broken pool was never terminated); it runs here with every round's processes checked.
    """
    started: list[int] = []
    for _ in range(25):
        with WorkerPool(crashers.square_or_die, 2, []) as pool:
            started += pool.pids()
            outcomes = [pool.outcome(t) for t in [pool.submit(-1), pool.submit(2)]]
            started += pool.pids()
        assert isinstance(outcomes[0], Died) and outcomes[1] == Done(4)
    assert all(gone(pid) for pid in set(started))


def test_an_item_that_cannot_be_sent_is_its_own_failure() -> None:
    with WorkerPool(crashers.square_or_die, 1, []) as pool:
        bad = pool.submit(lambda: 0)  # type: ignore[arg-type]
        good = pool.submit(5)
        assert isinstance(out := pool.outcome(bad), Raised) and "could not be sent to a worker" in out.message
        assert pool.outcome(good) == Done(25)


def test_a_defect_in_the_dispatcher_fails_the_items_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: WorkerPool[int, int], w: object) -> None:
        raise RuntimeError("planted defect")

    monkeypatch.setattr(WorkerPool, "_receive", broken)
    with WorkerPool(crashers.square_or_die, 1, []) as pool:
        outcome = pool.outcome(pool.submit(2))
        later = pool.outcome(pool.submit(3))
    assert outcome == Died("the worker pool failed (RuntimeError: planted defect)") == later


def test_a_pool_that_cannot_start_its_workers_says_so_in_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: WorkerPool[int, int]) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(WorkerPool, "_spawn", refused)
    with pytest.raises(OSError, match="no processes here"):
        WorkerPool(crashers.square_or_die, 2, [])


def test_how_a_worker_ended_in_words() -> None:
    class Ended:
        def __init__(self, code: int | None) -> None:
            self.exitcode = code

        def join(self, _timeout: float) -> None:
            pass

    assert ended(Ended(-9)) == "the worker process was killed by SIGKILL"  # type: ignore[arg-type]
    assert ended(Ended(3)) == "the worker process ended with exit status 3"  # type: ignore[arg-type]
    assert ended(Ended(None)) == "the worker process stopped answering"  # type: ignore[arg-type]
    assert ended(Ended(-200)) == "the worker process was killed by signal 200"  # type: ignore[arg-type]
    assert workers_module.STOP_SECONDS > 0


def test_ctrl_c_ends_a_busy_worker_quietly(tmp_path: Path) -> None:
    """SIGINT, as Ctrl-C sends it to the whole process group: the worker ends without a traceback on stderr.

    The program first takes SIGINT back from an ignoring parent (a job started in the background of a shell
    ignores it, and so would the fork server and its workers): a terminal's foreground command receives it.
    """
    root = Path(__file__).resolve().parents[2]
    code = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from sonnx.base.workers import WorkerPool\n"
        "from tests.batch.crashers import Nap\n"
        "if __name__ == '__main__':\n"
        f"    with WorkerPool(Nap({str(tmp_path)!r}), 1, []) as pool:\n"
        "        ticket = pool.submit(60.0)\n"
        f"        while not os.listdir({str(tmp_path)!r}):\n"
        "            time.sleep(0.01)\n"
        "        os.kill(pool.pids()[0], signal.SIGINT)\n"
        "        print(pool.outcome(ticket))\n"
    )
    path = os.pathsep.join([str(root), str(root / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Died(reason='the worker process ended with exit status 0')", done.stdout
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
