"""File mutation fuzz: every subcommand on mutated models, under memory and time limits.

Mutants are made from the shipped examples, onnx's light models and the real
exports of ``tests/data/real``, two ways: raw bytes (flips, cuts, inserted
and duplicated spans) and protobuf-aware edits of the parsed model (types,
dimensions, names, opset and IR versions, attributes, external-data
entries, node order, duplicated and dropped nodes). Each mutant is given to
``sonnx-check`` (default engine), ``sonnx-check --engine direct
--structure-only``, ``sonnx run``, ``sonnx rewrite`` and ``sonnx partition``.

Every run happens in a forked child of a process that imported sonnx once,
with an address-space limit (``RLIMIT_AS``), a CPU-time limit
(``RLIMIT_CPU``) and a wall-clock limit ten times longer for a run that is
blocked without computing. A run
FAILS when it ends by a signal, passes a time limit, exits with a code
other than 0, 1 or 2, or prints a traceback or "internal error". The mutant
of every failure is saved (``--save DIR``) with the command that failed.

    python -m tests.fuzz.files --mutants 5000 --seed 1 [--start K] [--jobs N] --save fuzz-failures   # make fuzz-files

Mutant number k depends only on the seed and k, so a campaign split into
ranges (``--start``) or spread over processes (``--jobs``) covers the same
mutants as one serial run.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import resource
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import onnx

from sonnx.base.progress import Say, quiet

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 3 << 30
"""Address-space limit of one run (3 GiB): a run that needs more must say so in one line."""
TIME_LIMIT = 60.0
"""CPU-time limit of one run, seconds (``RLIMIT_CPU``): a run that computes longer is a hang.

CPU time, not wall time, so that a loaded machine (a campaign beside other
work, ``nice``) does not turn slow runs into hangs."""
WALL_FACTOR = 10
"""A run is also a hang when its wall time passes ``WALL_FACTOR`` times the CPU limit: it is blocked (a FIFO...)."""


def corpus() -> list[Path]:
    """The seed models: the examples, onnx's light models, the small real exports."""
    light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    real = sorted((ROOT / "tests" / "data" / "real").glob("*.onnx"))
    small_real = [p for p in real if p.stat().st_size < 300_000]
    return sorted((ROOT / "examples").glob("*.onnx")) + sorted(light.glob("*.onnx")) + small_real


# -- mutations ---------------------------------------------------------------------------------


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(("flip", "cut", "insert", "duplicate", "zero"))
        if not b:
            break
        i = rng.randrange(len(b))
        if kind == "flip":
            b[i] ^= 1 << rng.randrange(8)
        elif kind == "cut":
            del b[i : i + rng.randint(1, 64)]
        elif kind == "insert":
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind == "duplicate":
            j = min(len(b), i + rng.randint(1, 256))
            b[i:i] = b[i:j]
        else:
            b[i : i + rng.randint(1, 32)] = bytes(rng.randint(1, 32))
    return bytes(b)


def _pick_node(m: onnx.ModelProto, rng: random.Random) -> onnx.NodeProto | None:
    return rng.choice(m.graph.node) if len(m.graph.node) else None


def mutate_proto(data: bytes, rng: random.Random) -> bytes:
    """A parsed-and-edited mutant (raw bytes when the seed does not parse)."""
    m = onnx.ModelProto()
    try:
        m.ParseFromString(data)
    except Exception:
        return mutate_bytes(data, rng)
    g = m.graph
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(
            ("ir", "opset", "rename_input", "rename_output", "drop_node", "dup_node", "swap_nodes", "dims",
             "elem_type", "attr_int", "attr_drop", "external", "output_undefined", "empty_input", "big_dims")
        )
        node = _pick_node(m, rng)
        if kind == "ir":
            m.ir_version = rng.choice([0, 1, 3, 4, 7, 9, 10, 11, 12, 14, 99, -1 & 0xFFFFFFFF])
        elif kind == "opset" and len(m.opset_import):
            m.opset_import[0].version = rng.choice([0, 1, 5, 6, 7, 11, 13, 17, 22, 99, 10**9])
        elif kind == "rename_input" and node is not None and len(node.input):
            names = ["", "x", "undefined", node.output[0] if len(node.output) else "y", "\x1b[2J\n"]
            node.input[rng.randrange(len(node.input))] = rng.choice(names)
        elif kind == "rename_output" and node is not None and len(node.output):
            names = ["", "x", "dup", g.output[0].name if len(g.output) else "y"]
            node.output[rng.randrange(len(node.output))] = rng.choice(names)
        elif kind == "drop_node" and node is not None:
            g.node.remove(node)
        elif kind == "dup_node" and node is not None:
            g.node.append(node)
        elif kind == "swap_nodes" and len(g.node) > 1:
            nodes = list(g.node)
            rng.shuffle(nodes)
            del g.node[:]
            g.node.extend(nodes)
        elif kind in ("dims", "big_dims") and len(g.input):
            t = g.input[rng.randrange(len(g.input))].type.tensor_type
            if len(t.shape.dim):
                d = t.shape.dim[rng.randrange(len(t.shape.dim))]
                d.dim_value = rng.choice([0, 1, 7, 10**5, 10**12]) if kind == "big_dims" else rng.choice([0, 1, 3, 64])
        elif kind == "elem_type" and len(g.input):
            g.input[rng.randrange(len(g.input))].type.tensor_type.elem_type = rng.randint(0, 26)
        elif kind == "attr_int" and node is not None and len(node.attribute):
            a = node.attribute[rng.randrange(len(node.attribute))]
            if a.type == onnx.AttributeProto.INT:
                a.i = rng.choice([-(2**40), -1, 0, 1, 7, 2**40])
            elif a.type == onnx.AttributeProto.INTS and len(a.ints):
                a.ints[rng.randrange(len(a.ints))] = rng.choice([-5, 0, 1, 99, 10**9])
        elif kind == "attr_drop" and node is not None and len(node.attribute):
            del node.attribute[rng.randrange(len(node.attribute))]
        elif kind == "external" and len(g.initializer):
            t = g.initializer[rng.randrange(len(g.initializer))]
            t.data_location = onnx.TensorProto.EXTERNAL
            del t.external_data[:]
            places = ["../x.bin", "/etc/hostname", "w.bin", "/dev/zero", ""]
            t.external_data.add(key="location", value=rng.choice(places))
            if rng.random() < 0.5:
                t.external_data.add(key="length", value=rng.choice(["4", "-1", "\uff11", "99999999999999"]))
        elif kind == "output_undefined" and len(g.output):
            g.output[rng.randrange(len(g.output))].name = "never_defined"
        elif kind == "empty_input" and node is not None and len(node.input):
            node.input[0] = ""
    return m.SerializeToString()


# -- running -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    command: list[str]
    status: str
    """``ok`` or why it failed: ``signal N``, ``hang``, ``exit N``, ``traceback``, ``internal error``."""
    detail: str = ""


def commands(path: str, workdir: str) -> list[list[str]]:
    out = os.path.join(workdir, "out")
    return [
        ["sonnx-check", "-q", path],
        ["sonnx-check", "-q", "--engine", "direct", "--structure-only", path],
        ["run", path],
        ["rewrite", "-q", path, out + ".onnx"],
        ["partition", "-q", path, "--provider", "NPU=Conv,Relu,Add", "-o", out + ".json"],
    ]


def cli_entry(argv: list[str]) -> Callable[[], tuple[int, str]]:
    """Run one command of sonnx's command line in this process: (exit code, stderr)."""

    def run() -> tuple[int, str]:
        from sonnx.cli import check_main, main

        out, err = io.StringIO(), io.StringIO()
        if argv[0] == "sonnx-check":
            code = check_main(argv[1:], stdout=out, stderr=err)
        else:
            code = main(argv, stdout=out, stderr=err)
        return code, err.getvalue()

    return run


def run_forked(
    argv: list[str],
    time_limit: float = TIME_LIMIT,
    memory: int = MEMORY_LIMIT,
    entry: Callable[[], tuple[int, str]] | None = None,
    wall_limit: float | None = None,
) -> Outcome:
    """Run ``entry`` (by default the command ``argv``) in a forked child under the limits; classify how it ended."""
    run = entry if entry is not None else cli_entry(argv)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: limits, run, report the output through the pipe
        os.close(read_fd)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            cpu = max(1, math.ceil(time_limit))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            code, err_text = run()
            payload = json.dumps({"code": code, "err": err_text[-2000:]}).encode()
        except BaseException as exc:
            payload = json.dumps({"code": -1, "err": f"Traceback: {type(exc).__name__}: {exc}"}).encode()
        os.write(write_fd, payload)
        os._exit(0)
    os.close(write_fd)
    wall = wall_limit if wall_limit is not None else WALL_FACTOR * time_limit
    deadline = time.monotonic() + wall
    status = None
    cpu_used = 0.0
    while time.monotonic() < deadline:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        cpu_used = usage.ru_utime + usage.ru_stime
        if done:
            break
        time.sleep(0.01)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_fd)
        return Outcome(argv, "hang", f"blocked: more than {wall:.0f} s of wall time")
    chunks = []
    while True:
        block = os.read(read_fd, 1 << 16)
        if not block:
            break
        chunks.append(block)
    os.close(read_fd)
    assert status is not None
    cpu_limit_hit = os.WTERMSIG(status) == signal.SIGXCPU or cpu_used >= time_limit
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL) and cpu_limit_hit:
        return Outcome(argv, "hang", f"more than {time_limit:.0f} s of CPU time")
    if os.WIFSIGNALED(status):
        return Outcome(argv, f"signal {os.WTERMSIG(status)}")
    try:
        report = json.loads(b"".join(chunks).decode())
    except ValueError:
        return Outcome(argv, "no report", "the child ended without reporting")
    err = str(report["err"])
    if "Traceback" in err:
        return Outcome(argv, "traceback", err)
    if "internal error" in err:
        return Outcome(argv, "internal error", err)
    if report["code"] not in (0, 1, 2):
        return Outcome(argv, f"exit {report['code']}", err)
    return Outcome(argv, "ok")


@dataclass
class Campaign:
    runs: int = 0
    mutants: int = 0
    failures: list[Outcome] = field(default_factory=list)


def make_mutant(k: int, seed: int, files: Sequence[Path]) -> tuple[Path, bytes]:
    """Mutant number ``k`` of the campaign ``seed``: the same bytes whatever ran before it or beside it."""
    rng = random.Random(f"sonnx-fuzz:{seed}:{k}")
    src = rng.choice(list(files))
    data = src.read_bytes()
    mutant = mutate_proto(data, rng) if rng.random() < 0.6 else mutate_bytes(data, rng)
    return src, mutant


def try_mutant(k: int, seed: int, files: Sequence[Path]) -> tuple[int, str, bytes, list[Outcome]]:
    """Make mutant ``k`` and give it to every command; (k, seed model stem, mutant, outcomes that failed)."""
    src, mutant = make_mutant(k, seed, files)
    failed: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="sonnx-fuzz-") as work:
        path = os.path.join(work, "mutant.onnx")
        Path(path).write_bytes(mutant)
        for argv in commands(path, work):
            outcome = run_forked(argv)
            if outcome.status != "ok":
                failed.append(outcome)
    return k, src.stem, mutant, failed


def _pool_try(job: tuple[int, int, list[Path]]) -> tuple[int, str, bytes, list[Outcome]]:
    return try_mutant(*job)


def campaign(
    mutants: int,
    seed: int,
    save: Path | None = None,
    say: Say = quiet,
    seeds: Sequence[Path] | None = None,
    start: int = 0,
    jobs: int = 1,
) -> Campaign:
    """Mutants ``start`` .. ``start + mutants - 1`` of campaign ``seed``, over ``jobs`` worker processes.

    Each mutant depends only on (seed, its number), so a campaign can be split
    into ranges run at different times or in parallel and still cover the same
    mutants as one serial run.
    """
    files = list(seeds) if seeds is not None else corpus()
    result = Campaign()
    numbers = range(start, start + mutants)
    per_mutant = len(commands("m.onnx", "w"))

    def record(k: int, stem: str, mutant: bytes, failed: list[Outcome]) -> None:
        result.mutants += 1
        result.runs += per_mutant
        for outcome in failed:
            result.failures.append(outcome)
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                name = f"{k:05d}-{len(result.failures):04d}-{stem}"
                (save / f"{name}.onnx").write_bytes(mutant)
                (save / f"{name}.txt").write_text(f"{outcome.status}: {' '.join(outcome.command)}\n{outcome.detail}\n")
        if result.mutants % 100 == 0:
            say(f"{result.mutants} mutants, {result.runs} runs, {len(result.failures)} failures")

    if jobs <= 1:
        for k in numbers:
            record(*try_mutant(k, seed, files))
        return result
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=50) as pool:
        for done in pool.imap_unordered(_pool_try, [(k, seed, files) for k in numbers], chunksize=1):
            record(*done)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--mutants", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="number of the first mutant (default 0)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--save", default="fuzz-failures", help="folder for the failing mutants")
    args = ap.parse_args(argv)
    if args.mutants < 1 or args.start < 0 or args.jobs < 1:
        ap.error("--mutants and --jobs must be at least 1, --start at least 0")
    began = time.time()
    c = campaign(
        args.mutants, args.seed, Path(args.save), lambda m: print(m, flush=True), start=args.start, jobs=args.jobs
    )
    kinds: dict[str, int] = {}
    for f in c.failures:
        kinds[f.status] = kinds.get(f.status, 0) + 1
    last = args.start + args.mutants - 1
    print(
        f"mutants {args.start}..{last} of seed {args.seed}: {c.mutants} mutants, {c.runs} runs "
        f"in {time.time() - began:.0f} s with {args.jobs} job(s): {len(c.failures)} failures {kinds}"
    )
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
