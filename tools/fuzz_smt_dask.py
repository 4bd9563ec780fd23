"""The SMT engine's differential campaign in chunks over a Dask cluster (``make fuzz-smt-dask``; not in CI).

Each chunk is one pytest run of the campaign files (``make fuzz-smt``'s) in a
fresh process, with Hypothesis's ``chunk`` profile (the ``fuzz`` settings
with ``--examples`` examples per test), its own seed (``--seed`` + the chunk
number, as ``--hypothesis-seed``) and its own example database, so that the
chunks explore different examples and share no state. The chunks run on an
embedded ``LocalCluster`` of ``--workers`` processes (one thread each, so one
chunk per process at a time) or on the cluster at ``--scheduler``. Usage::

    python -m tools.fuzz_smt_dask --chunks 8 --examples 1000 --seed 1 [--workers N | --scheduler tcp://H:P]

Prints one line per chunk (exit code, time, log file) and exits 0 when every
chunk passed, 1 when a chunk found a counterexample (its log holds the
falsifying example and how to reproduce it), 2 when a chunk could not run.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = ("tests/smt/test_property_differential.py", "tests/smt/test_property_functions.py")


def chunk_command(seed: int) -> list[str]:
    """The pytest command of one chunk."""
    return [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--hypothesis-seed={seed}",
        "--hypothesis-show-statistics", *CAMPAIGN,
    ]


def chunk_environment(examples: int, storage: Path) -> dict[str, str]:
    """The environment of one chunk: the chunk profile with ``examples`` examples, a database of its own."""
    return {
        **os.environ,
        "HYPOTHESIS_PROFILE": "chunk",
        "HYPOTHESIS_MAX_EXAMPLES": str(examples),
        "HYPOTHESIS_STORAGE_DIRECTORY": str(storage),
    }


def run_chunk(chunk: int, examples: int, seed: int, out: str) -> dict[str, Any]:
    """Run one chunk (on a worker); write its log; return its outcome."""
    folder = Path(out) / f"chunk-{chunk:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    done = subprocess.run(
        chunk_command(seed), cwd=ROOT, env=chunk_environment(examples, folder / "hypothesis"),
        capture_output=True, text=True,
    )
    log = folder / "pytest.log"
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    return {
        "chunk": chunk,
        "seed": seed,
        "exit_code": done.returncode,
        "seconds": time.perf_counter() - start,
        "log": str(log),
        "last_line": lines[-1] if lines else "",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--chunks", type=int, default=8, help="number of chunks (default 8)")
    ap.add_argument("--examples", type=int, default=1000, help="examples per test in each chunk (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of chunk 0; chunk k uses SEED + k (default 1)")
    ap.add_argument("--workers", type=int, help="worker processes of the embedded cluster (default: the cores)")
    ap.add_argument("--scheduler", help="tcp://HOST:PORT of an existing Dask cluster instead")
    ap.add_argument("--out", default="fuzz-smt-dask", help="folder of the chunks' logs (default fuzz-smt-dask)")
    args = ap.parse_args(argv)
    if args.chunks < 1 or args.examples < 1:
        ap.error("--chunks and --examples must be at least 1")
    if args.scheduler and args.workers:
        ap.error("--workers sizes the embedded cluster; the cluster at --scheduler has its own")
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        print("fuzz-smt-dask: needs Dask distributed (pip install 'sonnx[fleet]')", file=sys.stderr)
        return 2
    out = str(Path(args.out).resolve())
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler, timeout=10)
    else:
        workers = args.workers or os.cpu_count() or 1
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            worker_dashboard_address=None, silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    print(f"{args.chunks} chunks of {args.examples} examples per test on {client.scheduler.address}", flush=True)
    worst = 0
    try:
        futures = [
            client.submit(run_chunk, k, args.examples, args.seed + k, out, pure=False, key=f"fuzz-smt-chunk-{k}")
            for k in range(args.chunks)
        ]
        for future in as_completed(futures):
            try:
                r = future.result()
            except Exception as exc:  # a worker lost more often than Dask's allowed-failures
                print(f"a chunk could not run: {type(exc).__name__}: {exc}", flush=True)
                worst = 2
                continue
            print(
                f"chunk {r['chunk']:3d} seed {r['seed']}: exit {r['exit_code']} in {r['seconds']:.0f} s: "
                f"{r['last_line']} ({r['log']})",
                flush=True,
            )
            if r["exit_code"] == 1:
                worst = max(worst, 1)
            elif r["exit_code"] != 0:
                worst = 2
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print({0: "every chunk passed", 1: "a chunk found a counterexample", 2: "a chunk could not run"}[worst])
    return worst


if __name__ == "__main__":
    sys.exit(main())
