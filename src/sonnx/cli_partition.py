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
import json
import os
from typing import TextIO

from .cli_args import seed
from .errors import UsageError
from .files import refuse_overwrite
from .inputs import load_inputs
from .loader import load_model
from .model.graph import Model
from .partition import DEFAULT_DEVICE, Partition, Provider, load_partition, make_partition, save_partition
from .partition.fused import EXEC, FUSED, exec_verdict, fused_verdict
from .partition.verify import ACYCLIC, COVER, INPUTS, OUTPUTS, TITLES, PartitionReport, check_partition
from .progress import Progress
from .verdict import Status, Verdict

TITLES_ALL = {
    **TITLES,
    EXEC: "the partitioned run gives the whole model's outputs bit for bit",
    FUSED: "the fused ONNX model is valid and behaves as the whole model",
}


def parse_provider(text: str) -> Provider:
    """``NAME=Op1,dom:Op2`` or ``NAME=@file`` (one ``[domain:]Operator`` a line, ``#`` comments)."""
    name, sep, ops = text.partition("=")
    if not sep or not name.strip() or not ops.strip():
        raise UsageError(f"--provider {text!r}: expected NAME=OPS (OPS: comma-separated [domain:]Operator or @file)")
    if ops.startswith("@"):
        try:
            with open(ops[1:], encoding="utf-8") as fh:
                items = [line.strip() for line in fh if line.strip() and not line.lstrip().startswith("#")]
        except OSError as exc:
            raise UsageError(f"--provider {name}: cannot read {ops[1:]}: {exc.strerror or exc}") from None
    else:
        items = [t.strip() for t in ops.split(",") if t.strip()]
    if not items:
        raise UsageError(f"--provider {name}: the operator list is empty")
    pairs = set()
    for item in items:
        domain, _, op = item.rpartition(":")
        if not op:
            raise UsageError(f"--provider {name}: {item!r} names no operator")
        pairs.add(("" if domain in ("", "ai.onnx") else domain, op))
    return Provider(name.strip(), frozenset(pairs))


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
    p.add_argument("--seed", type=seed, default=0, help="seed of the random inputs for --execute (default 0)")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values for --execute, keyed by graph-input name")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    g.add_argument("-q", "--quiet", dest="progress", action="store_false", help="never show progress")


def _extra_verdicts(args: argparse.Namespace, model: Model, partition: Partition, report: PartitionReport) -> None:
    """--execute and --fused, only on a partition whose cover, boundaries and fused acyclicity are proved."""
    if not (args.execute or args.fused):
        return
    status = {v.rule_id: v.status for v in report.verdicts}
    if any(status.get(r) is not Status.PROVED for r in (COVER, INPUTS, OUTPUTS, ACYCLIC)):
        why = "not run: the subgraphs are not an acyclic partition with exact boundaries"
        if args.execute:
            report.verdicts.append(Verdict.unknown(EXEC, why, engine="executor"))
        if args.fused:
            report.verdicts.append(Verdict.unknown(FUSED, why, engine="executor"))
        return
    feeds = load_inputs(model, args.inputs, [], args.seed) if args.execute else None
    what = f"--inputs {args.inputs} (others seed {args.seed})" if args.inputs else f"random, seed {args.seed}"
    if feeds is not None:
        report.verdicts.append(exec_verdict(model, partition, feeds, what))
    if args.fused:
        report.verdicts.append(fused_verdict(model, partition, args.fused, feeds, what))


def _print(report: PartitionReport, args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        out.write(json.dumps(report.to_json(), indent=2) + "\n")
        return
    out.write(report.text(TITLES_ALL))


def run_partition(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Produce or verify a partition; print the verdicts; return the exit code."""
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
    say = Progress(prog, args.progress if args.progress is not None else stderr.isatty(), stderr)
    say(f"loading {args.files[0]}")
    model = load_model(args.files[0])
    if args.check:
        partition = load_partition(args.files[1])
        name = args.files[1]
    else:
        say(f"partitioning {len(model.graph.operations)} operations for {len(providers)} provider(s)")
        partition = make_partition(model, providers, args.default)
        partition = Partition(partition.subgraphs, os.path.basename(args.files[0]))
        name = args.output or "<stdout>"
    report = check_partition(model, partition, model_name=args.files[0], partition_name=name, progress=say)
    if args.execute or args.fused:
        say("executing the partitioned model" + (" and writing the fused model" if args.fused else ""))
    _extra_verdicts(args, model, partition, report)
    say("done")
    if args.check or args.output:
        if args.output:
            save_partition(partition, args.output)
        _print(report, args, stdout)
    else:
        stdout.write(partition.dumps())
        _print(report, args, stderr)
    return report.exit_code
