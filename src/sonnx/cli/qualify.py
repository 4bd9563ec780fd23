"""``sonnx qualify OUTDIR``: run the tool qualification suite here and write the kit (docs/qualification.rst).

Exit codes: 0 every case of the suite passed; 1 a case failed (the tool does
not behave as its TORs require in this environment); 2 a case could not run
here (the conclusion is incomplete), or OUTDIR cannot be used.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from ..base.text import counted
from ..checking.qualify.cases import SUITES
from ..checking.qualify.kit import qualify
from .common import add_progress, progress_for


def add_qualify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("outdir", metavar="OUTDIR", help="the folder to write the kit into (new, or empty)")
    p.add_argument("--suite", choices=SUITES, default="small",
                   help="small: a subset for CI; full: every case (default: small)")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="run the cases in N worker processes (default 1)")
    p.add_argument("--force", action="store_true", help="replace an OUTDIR that is not empty, once the kit is written")
    add_progress(p)


def run_qualify(args: argparse.Namespace, stdout: TextIO, stderr: TextIO, prog: str) -> int:
    """Run the suite, write the kit, print the summary's counts and conclusion."""
    result = qualify(args.outdir, suite_name=args.suite, jobs=args.jobs, force=args.force,
                     progress=progress_for(args, prog, stderr))
    s = result.summary
    c, t = s["cases"], s["tors"]
    stdout.write(
        f"{result.directory}: {counted(c['total'], 'case')}: {c['PASSED']} passed, {c['FAILED']} failed, "
        f"{c['NOT RUN']} not run; "
        f"{counted(t['total'], 'TOR')}: {t['VERIFIED']} verified, {t['FAILED']} failed, {t['NOT RUN']} not run, "
        f"{t['NOT COVERED']} not covered\n"
    )
    for r in result.results:
        if r.status != "PASSED":
            detail = r.reason or "; ".join(r.differences)
            stdout.write(f"  {r.status:<8} {r.case.id}: {detail}\n")
    stdout.write(f"conclusion: {result.conclusion}\n")
    return result.exit_code
