"""One check of one model file: load, run the rules, collect the verdicts.

This is the pipeline of ``sonnx-check`` without any printing: ONNX file ->
loader -> model -> rules -> verdicts. The command line and the tests both
call :func:`check_file`.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from .errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED, SonnxError, UsageError
from .loader import load_model
from .model.graph import Model
from .rules import CheckConfig, run_rules
from .verdict import Severity, Status, Verdict


@dataclass
class ModelReport:
    """What one model's check established: its verdicts, or the error that stopped it."""

    path: str
    model: Model | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    error: SonnxError | None = None
    smt: dict[str, Any] | None = None
    """Solver parameters and mode of the SMT engine, when it ran (for the report)."""
    disagreements: list[str] = field(default_factory=list)
    """Rules on which the two engines disagree: a tool error (exit 2)."""
    findings: list[Verdict] = field(default_factory=list)
    """SMT verdicts of rules outside the selected rule table (see :mod:`sonnx.agreement`)."""
    obligations: list[Any] = field(default_factory=list)
    """The SMT engine's proof obligations (``smt.smtlib.Obligation``, each with z3's answer), when it ran."""

    def all_verdicts(self) -> list[Verdict]:
        """The verdicts of the rule table, then the extra findings."""
        return [*self.verdicts, *self.findings]

    @property
    def exit_code(self) -> int:
        """2 if unusable; else 1 if an error-severity rule is violated; else 2 if a verdict is UNKNOWN; else 0.

        An established violation decides the model's outcome even when another
        rule is UNKNOWN (the model does not conform either way); an UNKNOWN
        alone is never a pass.
        """
        if self.error is not None or self.disagreements:
            return EXIT_UNUSABLE
        if any(v.fails for v in self.all_verdicts()):
            return EXIT_VIOLATED
        if any(v.status is Status.UNKNOWN for v in self.all_verdicts()):
            return EXIT_UNUSABLE
        return EXIT_OK

    @property
    def outcome(self) -> str:
        """One word for the whole model: PROVED, TESTED, VIOLATED, UNKNOWN, or ERROR (unreadable).

        TESTED: nothing failed, but some verdict rests on samples only (exit 0, never called PROVED).
        """
        if self.error is not None:
            return "ERROR"
        code = self.exit_code
        if code == EXIT_OK and any(v.status is Status.TESTED for v in self.all_verdicts()):
            return "TESTED"
        return {EXIT_OK: "PROVED", EXIT_VIOLATED: "VIOLATED"}.get(code, "UNKNOWN")

    def counts(self) -> dict[str, int]:
        """How many verdicts of each kind: errors violated, warnings violated, unknown, proved."""
        verdicts = self.all_verdicts()
        return {
            "errors": sum(1 for v in verdicts if v.fails),
            "warnings": sum(
                1 for v in verdicts if v.status is Status.VIOLATED and v.severity is Severity.WARNING
            ),
            "unknown": sum(1 for v in verdicts if v.status is Status.UNKNOWN),
            "proved": sum(1 for v in verdicts if v.status is Status.PROVED),
            "tested": sum(1 for v in verdicts if v.status is Status.TESTED),
        }


def check_file(
    path: str,
    config: CheckConfig | None = None,
    read_weights: bool = True,
    progress: Callable[[str], None] | None = None,
    freeze_gc: bool = False,
    export_stem: str | None = None,
) -> ModelReport:
    """Load ``path`` and run the rules of ``config.profile`` on it.

    A :class:`SonnxError` while loading is kept in the report (exit 2); it is
    never raised to the caller. ``freeze_gc`` (for the command line) moves the
    loaded model out of the garbage collector's reach: the model is immutable
    and holds no reference cycles, so scanning its million objects again while
    the rules run would only cost time. ``export_stem`` names the model's
    exported obligations (``--smt-dir``); the file's stem by default.
    """
    report = ModelReport(path)
    say = progress or (lambda _msg: None)
    say(f"loading {path}" + ("" if read_weights else " (structure only, weights not read)"))
    try:
        model = load_model(path, read_weights=read_weights)
    except SonnxError as exc:
        report.error = exc
        return report
    report.model = model
    if freeze_gc:
        gc.freeze()
    say(f"loaded {len(model.graph.operations)} operations in the main graph")
    report.verdicts = run_rules(model, config, progress)
    cfg = config or CheckConfig()
    engine = cfg.engine
    if engine == "auto" and cfg.smt_dir:
        engine = "both"  # exporting obligations asks for the SMT engine explicitly
    if engine == "auto":
        size = sum(len(g.operations) for _, g in model.graph.nested())
        if size <= SMT_AUTO_LIMIT:
            engine = "both"
        else:
            engine = "direct"
            report.smt = {
                "skipped": f"the model has {size} operations, above the automatic SMT limit of {SMT_AUTO_LIMIT}; "
                "verdicts are the direct engine's alone (use --engine both or smt to run the SMT proofs)"
            }
            say(report.smt["skipped"])
    if engine in ("smt", "both"):
        _run_smt(report, model, replace(cfg, engine=engine), say, export_stem)
    return report


SMT_AUTO_LIMIT = 50_000
"""Operations (all graphs together) up to which ``--engine auto`` (the command line's default) runs both
engines. Above it the SMT engine's time grows past the direct engine's by an order of magnitude
(benchmarks/README.md: about 5 s at 100,000 operations, 52-77 s and 2.5 GB at a million, against 4 s for the
direct engine), so it runs only when asked for explicitly."""


def _run_smt(
    report: ModelReport, model: Model, cfg: CheckConfig, say: Callable[[str], None], stem: str | None = None
) -> None:
    """Add the SMT engine's verdicts (``--engine smt|both``) and export its obligations if asked."""
    from .agreement import combine, smt_only
    from .smt import run_smt, write_obligations

    run = run_smt(model, progress=say)
    report.smt = run.parameters
    report.obligations = list(run.obligations)
    if cfg.engine == "smt":
        report.verdicts, report.findings = smt_only(report.verdicts, run.verdicts)
    else:
        report.verdicts, report.findings, report.disagreements = combine(report.verdicts, run.verdicts)
    if cfg.smt_dir:
        try:
            written = write_obligations(run.obligations, cfg.smt_dir, report.path, stem)
        except OSError as exc:
            raise UsageError(f"--smt-dir: cannot write {cfg.smt_dir}: {exc.strerror or exc}") from None
        report.smt["exported"] = [str(p) for p in written]
