"""``sonnx rewrite IN OUT [--pass NAME ...]``: verified rewrites, validated against the input.

Applies the passes of :mod:`sonnx.rewrite`, validates the result against the
input on the input sets (``--sets``; given values with ``--inputs`` /
``--input``; each run within ``--budget`` seconds), and writes OUT only when
the validation established that every output is bit-exact.
Exit 0 written; 1 the validation found a difference (nothing written; the
figures are printed); 2 the validation could not be made (no set, or not the
normal set, could be compared: neither model runs on it, or a run exceeded its
budget; nothing written), unusable input (a file FORMAT-ONNX does not prove, a
non-conforming model, unknown pass, unreadable file) or a pass that broke its
postcondition.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED
from ..rewrite import PASS_NAMES, rewrite_file, select
from ..rewrite.validate import DIFFERS, NOT_ESTABLISHED, domain_lines, not_compared_text, summarize
from .common import add_json, add_progress, add_seed, no_stdin, progress_for, write_json
from .validation_args import add_validation_arguments, given_from, sets_from


def add_rewrite_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.onnx", help="model to rewrite")
    p.add_argument("output", metavar="OUT.onnx", help="where to write the rewritten model (only if validated)")
    p.add_argument(
        "--pass",
        dest="passes",
        action="append",
        default=[],
        metavar="NAME",
        help=f"run only this pass (repeatable); one of {', '.join(PASS_NAMES)}",
    )
    add_seed(p, "the validation inputs")
    add_validation_arguments(p)
    add_json(p)
    add_progress(p)
    p.add_argument(
        "--infer-shapes",
        action="store_true",
        help="run ONNX shape inference on the input first (seed 002 assumes it), so that the Flatten and Shape "
        "passes see static intermediate shapes; translation validation still checks the result",
    )


def run_rewrite(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    no_stdin(args.input, "sonnx rewrite")
    passes = select(args.passes)
    result, written = rewrite_file(
        args.input,
        args.output,
        passes,
        args.seed,
        args.infer_shapes,
        progress_for(args, prog, stderr),
        sets_from(args),
        given_from(args),
        args.budget,
    )
    if args.json:
        doc = {
            "schema_version": 1,
            "tool": "sonnx rewrite",
            "input": args.input,
            "output": args.output,
            "written": written,
            **result.to_json(),
        }
        write_json(stdout, doc)
    else:
        before, after = len(result.original.graph.operations), len(result.model.graph.operations)
        stdout.write(f"{'REWRITTEN' if written else 'REFUSED'}: {args.input} ({before} -> {after} operations)\n")
        for a in result.applications:
            stdout.write(f"  applied {a.pass_name} to {a.operation}: {a.detail}\n")
        groups: dict[tuple[str, str], list[str]] = {}
        for r in result.refusals:
            groups.setdefault((r.pass_name, r.reason), []).append(r.operation)
        for (pass_name, reason), ops in groups.items():
            who = (
                ops[0]
                if len(ops) == 1
                else f"{len(ops)} operations ({', '.join(ops[:3])}{', ...' if len(ops) > 3 else ''})"
            )
            stdout.write(f"  not applied {pass_name} to {who}: {reason}\n")
        if not result.applications:
            stdout.write("  no pass applied: the rewritten model is the input model\n")
        stdout.write(f"translation validation (bit-exact required; budget {result.budget:g} s per run):\n")
        for line in domain_lines(result.domains):
            stdout.write(line + "\n")
        stdout.write(summarize(result.validation) + "\n")
        if result.runtime is not None:
            stdout.write(f"  {result.runtime.line()}\n")
        skipped = not_compared_text(result.validation)
        if written:
            stdout.write(f"wrote {args.output}" + (f" (not compared: {skipped})" if skipped else "") + "\n")
        elif result.runtime is not None and not result.runtime.ok:
            stdout.write(f"nothing written: {result.runtime.detail}\n")
        elif result.outcome == NOT_ESTABLISHED:
            stdout.write(f"nothing written: the validation could not be made (not compared: {skipped})\n")
        else:
            stdout.write(f"nothing written: the rewritten model differs from {args.input}\n")
    if written:
        return EXIT_OK
    return EXIT_VIOLATED if result.outcome == DIFFERS else EXIT_UNUSABLE
