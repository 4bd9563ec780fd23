"""``sonnx partition``: produce a partition across execution providers, or verify anyone's.

Produce (seed 004's scheme; see :mod:`sonnx.partition.algorithm`)::

    sonnx partition MODEL --provider NPU=Conv,Relu --provider DSP=Add [-o part.json]

Verify a partition file (this tool's, or another tool's converted to the
schema of :mod:`sonnx.partition.schema`)::

    sonnx partition --check MODEL part.json

Both modes run the checks of :mod:`sonnx.partition.verify` on the partition;
``--execute`` adds the execution-equivalence test and ``--fused OUT.onnx``
writes the fused model and tests it (onnx.checker, SONNX rules, execution
with ``--execute``). Exit codes are ``sonnx-check``'s: 0 valid, 1 invalid (a
witness is printed), 2 unusable input or a verdict that could not be
established.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..base.errors import UsageError
from ..base.files import refuse_overwrite
from ..partition import DEFAULT_DEVICE, PartitionReport, Provider, save_partition
from ..partition.job import TITLES, partition_job
from .common import add_json, add_progress, add_seed, no_stdin, operator_list, progress_for, write_json


def parse_provider(text: str) -> Provider:
    """``NAME=Op1,dom:Op2`` or ``NAME=@file`` (one ``[domain:]Operator`` a line, ``#`` comments)."""
    name, sep, ops = text.partition("=")
    if not sep or not name.strip() or not ops.strip():
        raise UsageError(f"--provider {text!r}: expected NAME=OPS (OPS: comma-separated [domain:]Operator or @file)")
    return Provider(name.strip(), operator_list(ops, f"--provider {name}"))


def add_partition_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="MODEL (produce) or MODEL PARTITION.json (with --check)")
    p.add_argument("--check", action="store_true", help="verify the partition file given after the model")
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME=OPS",
        help="a provider and the operators it runs ([domain:]Op,... or @file), highest priority first",
    )
    p.add_argument("--default", default=DEFAULT_DEVICE, metavar="NAME", help="the default provider (default CPU)")
    p.add_argument("-o", "--output", metavar="FILE.json", help="write the produced partition here (else stdout)")
    p.add_argument("--fused", metavar="OUT.onnx", help="write the fused model (one node per subgraph) and test it")
    p.add_argument("--execute", action="store_true", help="also compare partitioned and whole execution bit for bit")
    add_seed(p, "the random inputs for --execute")
    p.add_argument(
        "--inputs", metavar="FILE.npz|FILE.json",
        help="input values for --execute, keyed by graph-input name (.npz tensors, or JSON for every "
        "input kind: maps, sequences, optionals)",
    )
    add_json(p, "the verdicts")
    add_progress(p)


def _print(report: PartitionReport, args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        write_json(out, report.to_json())
    else:
        out.write(report.text(TITLES))


def run_partition(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Produce or verify a partition; print the verdicts; return the exit code."""
    no_stdin(args.files[0], "sonnx partition")
    if args.check:
        if len(args.files) != 2:
            raise UsageError("--check takes MODEL PARTITION.json")
        if args.provider or args.output:
            raise UsageError("--provider and -o produce a partition; they do not apply with --check")
    elif len(args.files) != 1:
        raise UsageError("give one MODEL to partition (or --check MODEL PARTITION.json)")
    elif not args.provider:
        raise UsageError("give at least one --provider NAME=OPS (the default provider takes the rest)")
    elif args.json and not args.output:
        raise UsageError("--json prints the verdicts on stdout; write the partition with -o")
    if args.inputs and not args.execute:
        raise UsageError("--inputs gives values for --execute; add --execute")
    readers = [*args.files, *([args.inputs] if args.inputs else [])]
    if args.output:
        refuse_overwrite(args.output, readers, "-o")
    if args.fused:
        refuse_overwrite(args.fused, readers, "--fused")
    providers = [parse_provider(t) for t in args.provider]
    partition, report = partition_job(
        args.files[0],
        partition_file=args.files[1] if args.check else None,
        providers=providers,
        default=args.default,
        partition_name=args.output or "<stdout>",
        execute=args.execute,
        fused=args.fused,
        seed=args.seed,
        inputs=args.inputs,
        progress=progress_for(args, prog, stderr),
    )
    if args.check or args.output:
        if args.output:
            save_partition(partition, args.output)
        _print(report, args, stdout)
    else:
        stdout.write(partition.dumps())
        _print(report, args, stderr)
    return report.exit_code
