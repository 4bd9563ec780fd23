"""``sonnx rewrite`` and ``sonnx equiv``.

``sonnx rewrite IN OUT [--pass NAME ...]`` applies the passes of
:mod:`sonnx.rewrite`, validates the result against the input on seeded
inputs, and writes OUT only when every output is bit-exact. Exit 0 written;
1 the validation found a difference (nothing written; the figures are
printed); 2 unusable input (non-conforming model, unknown pass, unreadable
file) or a pass that broke its postcondition.

``sonnx equiv A B`` compares two models (see :mod:`sonnx.equiv`). Exit 0
equivalent, 1 not equivalent (with the figures), 2 unusable.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from .cli_args import seed
from .crosscheck.metrics import Tolerance
from .equiv import INTERMEDIATES, equivalence
from .equiv import text as equiv_text
from .errors import EXIT_OK, EXIT_VIOLATED, InputError
from .files import refuse_overwrite
from .loader import load_model
from .model.graph import Model
from .progress import Progress
from .rewrite import PASS_NAMES, rewrite_model, select
from .rewrite.validate import SETS, summarize


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
    p.add_argument("--seed", type=seed, default=0, help="seed of the validation inputs (default 0)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _progress_options(p)
    p.add_argument(
        "--infer-shapes",
        action="store_true",
        help="run ONNX shape inference on the input first (seed 002 assumes it), so that the Flatten and Shape "
        "passes see static intermediate shapes; translation validation still checks the result",
    )


def _load_with_inferred_shapes(path: str) -> Model:
    """Load ``path`` after onnx's shape inference has added value_info for the intermediate tensors."""
    import os
    import tempfile

    import onnx

    try:
        proto = onnx.load(path)
        inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True, data_prop=True)
    except Exception as exc:  # onnx raises several unrelated types here
        raise InputError(f"{path}: ONNX shape inference failed: {' '.join(str(exc).split())[:300]}") from None
    fd, tmp = tempfile.mkstemp(suffix=".onnx")
    os.close(fd)
    try:
        onnx.save(inferred, tmp)
        return load_model(tmp)
    finally:
        os.unlink(tmp)


def _progress_options(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    g.add_argument("-q", "--quiet", dest="progress", action="store_false", help="never show progress")


def _progress(args: argparse.Namespace, prog: str, stderr: TextIO) -> Progress:
    return Progress(prog, args.progress if args.progress is not None else stderr.isatty(), stderr)


def run_rewrite(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    from .writer import save_model

    refuse_overwrite(args.output, [args.input], "the output")
    passes = select(args.passes)
    model = _load_with_inferred_shapes(args.input) if args.infer_shapes else load_model(args.input)
    result = rewrite_model(model, passes, seed=args.seed, progress=_progress(args, prog, stderr))
    written = False
    if result.ok:
        save_model(result.model, args.output)
        written = True
    if args.json:
        doc = {
            "schema_version": 1,
            "tool": "sonnx rewrite",
            "input": args.input,
            "output": args.output,
            "written": written,
            **result.to_json(),
        }
        stdout.write(json.dumps(doc, indent=2, sort_keys=False, default=str) + "\n")
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
        stdout.write("translation validation (bit-exact required):\n")
        stdout.write(summarize(result.validation) + "\n")
        if result.runtime is not None:
            stdout.write(f"  {result.runtime.line()}\n")
        if written:
            stdout.write(f"wrote {args.output}\n")
        elif result.runtime is not None and not result.runtime.ok:
            stdout.write(f"nothing written: {result.runtime.detail}\n")
        else:
            stdout.write(f"nothing written: the rewritten model differs from {args.input}\n")
    return EXIT_OK if written else EXIT_VIOLATED


def add_equiv_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="A.onnx", help="the reference model")
    p.add_argument("b", metavar="B.onnx", help="the model to compare with it (an optimizer's output, say)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    _progress_options(p)
    p.add_argument("--seed", type=seed, default=0, help="seed of the input sets (default 0)")
    p.add_argument("--atol", type=float, default=None, help="absolute tolerance (default: per dtype)")
    p.add_argument("--rtol", type=float, default=None, help="relative tolerance (default: per dtype)")
    p.add_argument("--ulp", type=int, default=None, help="tolerance in ULPs (default: per dtype)")
    p.add_argument(
        "--sets", default=",".join(SETS), help=f"comma-separated input sets to compare (default {','.join(SETS)})"
    )
    p.add_argument(
        "--intermediates",
        choices=INTERMEDIATES,
        default="last",
        help="also compare same-named intermediate tensors, as evidence: last (default: the inputs of the "
        "operations writing the outputs), all, none",
    )


def run_equiv(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    tol = Tolerance(atol=args.atol, rtol=args.rtol, ulp=args.ulp)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    report = equivalence(
        args.a,
        args.b,
        seed=args.seed,
        tolerance=tol,
        sets=sets,
        intermediates=args.intermediates,
        progress=_progress(args, prog, stderr),
    )
    if args.json:
        stdout.write(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    else:
        stdout.write(equiv_text(report))
    return report.exit_code
