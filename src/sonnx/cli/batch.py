"""``sonnx batch PATH...``: the full check of every model under directories, globs and files, in parallel.

Every model gets the check ``sonnx-check`` gives it with the same options
(:mod:`sonnx.checking.batch` runs them); the batch prints one line per model (result,
violated rules, time) and exits with the largest of the models' exit codes:
0 every model conforms, 1 some model violates an error rule, 2 some model is
unusable, UNKNOWN or failed in the tool (never a pass). ``--json``,
``--format sarif``, ``--junit FILE`` and ``--sarif FILE`` report the whole
batch.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from ..base.text import counted, printable
from ..base.verdict import Severity, Status
from ..checking.batch import EXECUTORS, Batch, find_models, run_batch
from ..checking.formats.sarif import sarif_report
from ..checking.report import json_document
from ..rules.declarations import assumption
from .check import add_check_options, options_from, write_outputs
from .colour import batch_column, wanted, write_report
from .common import add_progress, add_report_outputs, check_report_outputs, no_stdin, output_format, progress_for
from .verbose import write_verbose


def positive(text: str) -> int:
    """A number of workers: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number {text!r}: expected an integer of at least 1") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"invalid number {text!r}: expected an integer of at least 1")
    return value


def add_batch_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx batch``: sonnx-check's, and where the models run."""
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="model files, directories (every *.onnx below them) and glob patterns (quoted; ** recurses)",
    )
    add_report_outputs(p, "the batch's report")
    add_check_options(
        p,
        "write one evidence bundle per model under DIR, at DIR/<model path relative to the current directory>/ "
        "(each must not exist or be empty)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        "--workers",
        dest="workers",
        type=positive,
        metavar="N",
        help="worker processes (default: the machine's cores); 1 checks the models one after the other in this "
        "process",
    )
    p.add_argument(
        "--executor",
        choices=EXECUTORS,
        help="dask: Dask distributed (default when the fleet extra is installed); pool: a local process pool "
        "(the fallback without Dask)",
    )
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="send the work to the Dask cluster whose scheduler listens there (its workers must have sonnx)",
    )
    add_progress(p)


def _findings(batch: Batch) -> list[tuple[str, str, str, str]]:
    rows = []
    for item in batch.items:
        r = item.report
        if r.error is not None:
            what = printable(r.error.one_line())
        else:
            parts = [v.rule_id for v in r.all_verdicts() if v.fails]
            parts += [
                f"{v.rule_id} (warning)"
                for v in r.all_verdicts()
                if v.status is Status.VIOLATED and v.severity is Severity.WARNING
            ]
            parts += [f"{v.rule_id} (unknown)" for v in r.all_verdicts() if v.status is Status.UNKNOWN]
            parts += [f"{v.rule_id} (waived)" for v in r.all_verdicts() if v.status is Status.WAIVED]
            if r.selection is not None and r.selection["not_checked"]:
                parts.append(f"{counted(len(r.selection['not_checked']), 'rule')} not checked")
            parts += [f"tool error: {d}" for d in r.disagreements]
            what = ", ".join(parts) or "-"
        rows.append((printable(item.path), r.outcome.value, what, f"{item.seconds:.1f} s"))
    return rows


def summary_table(batch: Batch) -> str:
    """The batch as text: one line per model (result, violated rules, time), then the totals."""
    rows = _findings(batch)
    width = max([5, *(len(r[0]) for r in rows)])
    lines = [f"{'model':<{width}}  {'result':<8}  {'time':>8}  violated rules"]
    for path, outcome, what, seconds in rows:
        lines.append(f"{path:<{width}}  {outcome:<8}  {seconds:>8}  {what}")
    counts: dict[str, int] = {}
    for item in batch.items:
        counts[item.report.outcome] = counts.get(item.report.outcome, 0) + 1
    tally = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    lines.append(
        f"batch: {counted(len(batch.items), 'model')} ({tally}); profile {batch.options.profile}; {batch.where}; "
        f"exit {batch.exit_code}"
    )
    for note in batch.notes:
        lines.append(f"note: {note}")
    assumed = [item.report.path for item in batch.items if item.report.assumptions()]
    if assumed and batch.options.declarations is not None:  # results that rest on the user's declarations say so
        checked = counted(len(assumed), "model")
        lines.append(f"note: {checked} checked assuming {assumption(batch.options.declarations)}")
    return "\n".join(lines) + "\n"


def run_batch_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Find the models, check them all, print the summary (or JSON / SARIF), write the report files."""
    options = options_from(args)
    for path in args.paths:
        no_stdin(path, "sonnx batch")
    models = find_models(args.paths)
    check_report_outputs(args, models)
    batch = run_batch(
        models,
        options,
        workers=args.workers,
        executor=args.executor,
        scheduler=args.scheduler,
        progress=progress_for(args, prog, stderr),
    )
    fmt = output_format(args)
    if fmt != "text":  # the text summary ends with the notes; beside JSON or SARIF they are also said on stderr
        for note in batch.notes:  # even when progress is off: the run is not the one asked for
            stderr.write(f"{prog}: note: {note}\n")
    reports = batch.reports
    if fmt == "json":
        doc = {**json_document(reports, options.profile, batch.exit_code), "batch": batch.to_json()}
        stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    elif fmt == "sarif":
        stdout.write(sarif_report(reports, options.profile, batch.exit_code, args.docs_url))
    else:
        width = max([5, *(len(r[0]) for r in _findings(batch))])
        write_report(stdout, summary_table(batch), wanted(args.color, stdout), batch_column(width))
    write_outputs(args, reports, options.profile, batch.exit_code, batch.seconds())
    if args.verbose:
        write_verbose(stderr, prog, reports)
    return batch.exit_code
