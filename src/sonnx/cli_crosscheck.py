"""Command-line glue of the cross-checks and of the evidence bundle.

``sonnx crosscheck MODEL`` prints a cross-check report (text or ``--json``).
``sonnx-check --cross-check reference,onnxruntime`` adds one verdict per
oracle to the check (``EXEC-CROSSCHECK-REFERENCE``, ...), and ``--evidence
DIR`` keeps everything the check established as a bundle
(:mod:`sonnx.evidence`). :class:`CheckExtras` holds what ``run_check`` needs,
so that ``cli.py`` only calls it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

from .check import ModelReport
from .cli_args import seed
from .crosscheck.metrics import Tolerance
from .crosscheck.oracles import ORACLES
from .crosscheck.run import CrossCheckReport, cross_check, parse_oracles, text_lines
from .errors import UsageError
from .verdict import Severity, Verdict, Witness

VERDICT_PREFIX = "EXEC-CROSSCHECK"
TITLES = {f"{VERDICT_PREFIX}-{name.upper()}": f"Executor agrees with {name} within tolerance" for name in ORACLES}
TITLES[VERDICT_PREFIX] = "Executor agrees with the oracles within tolerance"


def _add_tolerance_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--atol", type=float, metavar="X", help="absolute tolerance for floats (default: per dtype)")
    p.add_argument("--rtol", type=float, metavar="X", help="relative tolerance for floats (default: per dtype)")
    p.add_argument("--ulp", type=int, metavar="N", help="tolerance in ULPs for floats (default: per dtype)")


def tolerance_from(args: argparse.Namespace) -> Tolerance:
    return Tolerance(atol=args.atol, rtol=args.rtol, ulp=args.ulp)


def add_check_options(p: argparse.ArgumentParser) -> None:
    """The options ``sonnx-check`` gains: cross-checks, tolerances, evidence bundle."""
    p.add_argument(
        "--cross-check",
        metavar="ORACLES",
        help="also run the model with these runtimes (comma-separated: reference, onnxruntime) on the "
        "--seed / --inputs values and compare every output with the NumPy executor",
    )
    _add_tolerance_arguments(p)
    p.add_argument(
        "--evidence",
        metavar="DIR",
        help="write an evidence bundle of the check to DIR (one model only; DIR must not exist or be empty)",
    )
    p.add_argument(
        "--evidence-timestamp", action="store_true", help="record the creation time in the bundle's manifest"
    )


def crosscheck_verdicts(cc: CrossCheckReport) -> list[Verdict]:
    """One verdict per oracle: TESTED (agrees on the input set), VIOLATED (differs, with figures), UNKNOWN.

    A difference explained by a known oracle defect and contradicted by
    another oracle is a warning: shown with its figures, not failing.
    """
    if cc.subject_error is not None:
        return [Verdict.unknown(VERDICT_PREFIX, f"the NumPy executor failed: {cc.subject_error}", engine="executor")]
    out = []
    for r in cc.results:
        rid = f"{VERDICT_PREFIX}-{r.run.name.upper()}"
        figures = {name: c.summary() for name, c in r.comparisons.items()}
        details: dict[str, Any] = {"seed": cc.seed, "oracle": r.run.version or r.run.name, "outputs": figures}
        if r.run.notes:
            details["notes"] = list(r.run.notes)
        engine = f"executor/{r.run.name}"
        if r.outcome == "AGREE":
            out.append(Verdict.tested(rid, f"1 input set (seed {cc.seed})", details, engine=engine))
        elif r.outcome == "UNKNOWN":
            out.append(Verdict.unknown(rid, f"{r.run.status}: {r.run.message}", engine=engine))
        else:
            bad = {n: c.to_json() for n, c in r.comparisons.items() if not c.ok}
            summary = "; ".join(
                [f"{n}: {r.comparisons[n].summary()}" for n in bad] + [f"{n}: not produced" for n in r.missing_outputs]
            )
            data: dict[str, Any] = {"seed": cc.seed, "oracle": r.run.version or r.run.name, "outputs": bad}
            if r.known_defects:
                data["known_defects"] = [d.why for d in r.known_defects]
            if r.outcome == "KNOWN-DEVIATION":
                summary = f"known {r.run.name} defect, contradicted by another oracle: {summary}"
                out.append(Verdict.violated(rid, Witness(summary, data), Severity.WARNING, engine=engine))
            else:
                out.append(Verdict.violated(rid, Witness(summary, data), Severity.ERROR, engine=engine))
    return out


@dataclass
class CheckExtras:
    """The cross-check and evidence part of one ``sonnx-check`` run."""

    args: argparse.Namespace
    oracles: tuple[str, ...] = ()
    tolerance: Tolerance = field(default_factory=Tolerance)
    crosschecks: dict[int, CrossCheckReport] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckExtras:
        """Validate the options before any model is checked (a wrong option is a usage error, exit 2)."""
        extras = cls(args, tolerance=tolerance_from(args))
        if args.cross_check is not None:
            extras.oracles = parse_oracles(args.cross_check)
        elif any(v is not None for v in (args.atol, args.rtol, args.ulp)):
            raise UsageError("--atol, --rtol and --ulp apply to --cross-check")
        if args.evidence is not None and len(args.models) != 1:
            raise UsageError("--evidence writes the bundle of one model; give exactly one MODEL")
        if args.evidence_timestamp and args.evidence is None:
            raise UsageError("--evidence-timestamp applies to --evidence")
        if args.evidence is not None:
            from .evidence.bundle import check_destination

            check_destination(args.evidence)
        return extras

    def after_model(self, report: ModelReport, progress: Callable[[str], None]) -> None:
        """Run the cross-check on a loaded model and add its verdicts."""
        if not self.oracles or report.model is None:
            return
        progress(f"cross-checking with {', '.join(self.oracles)}")
        cc = cross_check(
            report.path, self.oracles, self.args.seed, self.args.inputs, self.tolerance, model=report.model
        )
        self.crosschecks[id(report)] = cc
        report.verdicts.extend(crosscheck_verdicts(cc))

    def finish(self, reports: list[ModelReport], code: int, progress: Callable[[str], None]) -> None:
        """Write the evidence bundle, if asked (before the report is printed: a failure is exit 2)."""
        if self.args.evidence is None:
            return
        from .evidence.bundle import BundleOptions, write_bundle

        progress(f"writing the evidence bundle to {self.args.evidence}")
        report = reports[0]
        write_bundle(
            self.args.evidence,
            report,
            BundleOptions.from_args(self.args, self.oracles, self.tolerance),
            self.crosschecks.get(id(report)),
        )


def add_crosscheck_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``sonnx crosscheck``."""
    p.add_argument("model", metavar="MODEL", help="ONNX model to cross-check")
    p.add_argument(
        "--oracles",
        default=",".join(ORACLES),
        metavar="LIST",
        help="comma-separated runtimes to compare with (default: reference,onnxruntime)",
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--inputs", metavar="FILE.npz", help="input values keyed by graph-input name")
    _add_tolerance_arguments(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def run_crosscheck(args: argparse.Namespace, stdout: TextIO, _stderr: TextIO, _prog: str) -> int:
    """``sonnx crosscheck``: 0 agree, 1 an oracle differs, 2 not established (missing oracle, unusable input)."""
    oracles = parse_oracles(args.oracles, "--oracles")
    report = cross_check(args.model, oracles, args.seed, args.inputs, tolerance_from(args))
    if args.json:
        stdout.write(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        stdout.write("\n".join(text_lines(report)) + "\n")
    return report.exit_code
