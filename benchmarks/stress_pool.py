"""Early worker deaths, round after round: does a pool ever hang? ``sonnx.base.workers`` against ProcessPoolExecutor.

Each round makes a pool of two workers from the fork server (the batch's and
the SMT engine's start method), submits an item that ends its worker at once
and an item that returns, waits for both outcomes and closes the pool. A
round that takes longer than ``--watchdog`` seconds counts as a hang: the
script says at which round, ends every process it started and exits with
status 3. Usage::

    python benchmarks/stress_pool.py --pool workers --rounds 1500
    python benchmarks/stress_pool.py --pool executor --rounds 1500   # the peer

Figures go to ``benchmarks/README.md`` with the load average: the hang needs
the parent to be descheduled between two submissions, so it shows under load.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.proctree import tree
from sonnx.base.threads import process_context
from sonnx.base.workers import Died, Done, WorkerPool

PRELOAD = ["benchmarks.stress_pool"]


def die_or_double(x: int) -> int:
    """End this worker process for a negative ``x``; double it otherwise."""
    if x < 0:
        os._exit(9)
    return 2 * x


def executor_round() -> None:
    with ProcessPoolExecutor(max_workers=2, mp_context=process_context(PRELOAD)) as pool:
        futures = [pool.submit(die_or_double, -1)]
        try:
            futures.append(pool.submit(die_or_double, 2))
        except BrokenProcessPool:  # the first worker died before this submission: the executor refuses it
            pass
        wait(futures)
    if futures[0].exception() is None:
        raise AssertionError("the dying item was answered")


def workers_round() -> None:
    with WorkerPool(die_or_double, 2, PRELOAD) as pool:
        dying, fine = pool.submit(-1), pool.submit(2)
        if not isinstance(pool.outcome(dying), Died) or pool.outcome(fine) != Done(4):
            raise AssertionError("wrong outcomes")


def watchdog(limit: float, started: list[float], rounds: list[int]) -> None:
    while True:
        time.sleep(1.0)
        if time.monotonic() - started[0] > limit:
            print(f"HUNG at round {rounds[0] + 1}: no end after {limit:.0f} s", flush=True)
            for pid in tree(os.getpid()):  # every worker and fork server this script started
                if pid != os.getpid():
                    os.kill(pid, signal.SIGKILL)
            os._exit(3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pool", choices=["workers", "executor"], default="workers")
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--watchdog", type=float, default=60.0, help="seconds after which a round is a hang")
    args = parser.parse_args()
    one = workers_round if args.pool == "workers" else executor_round
    started, done = [time.monotonic()], [0]
    threading.Thread(target=watchdog, args=(args.watchdog, started, done), daemon=True).start()
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    times: list[float] = []
    for k in range(args.rounds):
        started[0] = time.monotonic()
        one()
        times.append(time.monotonic() - started[0])
        done[0] = k + 1
    load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"{args.pool}: {args.rounds} rounds, no hang; median round {statistics.median(times):.3f} s, "
          f"longest {max(times):.3f} s; load {load} -> {load_after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
