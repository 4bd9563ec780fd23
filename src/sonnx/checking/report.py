"""What one check established, and how it is rendered: text and schema-versioned JSON.

:class:`ModelReport` is the pipeline's result for one model (:mod:`sonnx.checking.pipeline`
builds it whole; nothing else adds to it). The JSON layout is versioned by
``schema_version``; every list keeps a fixed order (models in command-line
order, verdicts in rule-table order), so two runs on the same input give the
same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..base.errors import EXIT_OK, EXIT_UNUSABLE, EXIT_VIOLATED, SonnxError
from ..base.text import counted, printable
from ..base.verdict import Outcome, Severity, Status, Verdict
from ..base.version import __version__
from ..model.graph import Model
from ..smt import Obligation
from .report_html import report_table
from .verdict_text import is_finding, rule_column, titles, verdict_lines

if TYPE_CHECKING:  # the cross-check and the executor are imported only by a check that runs them
    from ..differential.run import CrossCheckReport


@dataclass(frozen=True)
class SmtSummary:
    """What the report says of the SMT engine: its solver parameters, or why it did not run.

    ``parameters`` are the engine's own (seed, resource limit, mode...);
    ``skipped`` says why the automatic engine choice left it out;
    ``exported`` lists the ``.smt2`` files written for ``--smt-dir``.
    """

    parameters: dict[str, Any] = field(default_factory=dict)
    skipped: str | None = None
    exported: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = dict(self.parameters)
        if self.skipped is not None:
            out["skipped"] = self.skipped
        if self.exported:
            out["exported"] = list(self.exported)
        return out


@dataclass(frozen=True)
class ModelReport:
    """What one model's check established: its verdicts, or the error that stopped it.

    In Python the report shows itself briefly: ``repr`` is one line (path, outcome, counts), ``str`` is
    :meth:`to_text`, and a notebook displays ``_repr_html_()``, the table of verdicts.
    """

    path: str
    model: Model | None = None
    verdicts: tuple[Verdict, ...] = ()
    """The rule table's verdicts, then EXEC-ORDERS and the cross-check verdicts when asked for."""
    error: SonnxError | None = None
    smt: SmtSummary | None = None
    disagreements: tuple[str, ...] = ()
    """Rules on which the two engines disagree: a tool error (exit 2)."""
    findings: tuple[Verdict, ...] = ()
    """SMT verdicts of rules outside the selected rule table (see :mod:`sonnx.checking.agreement`)."""
    obligations: tuple[Obligation, ...] = ()
    """The SMT engine's proof obligations, each with z3's answer, when it ran."""
    crosscheck: CrossCheckReport | None = None
    """The cross-check's figures, when ``--cross-check`` ran."""
    summary: Mapping[str, Any] | None = None
    """Facts about the loaded model for the report header (:func:`model_summary`), kept when the model is
    dropped by :meth:`detached`; filled in from ``model`` when not given."""
    waivers: Mapping[str, Any] | None = None
    """The waivers file applied (name, SHA-256, the check's date) and each of its entries for this model with
    what it did (:func:`sonnx.checking.waivers.apply_waivers`); None without ``--waivers``."""
    selection: Mapping[str, Any] | None = None
    """The rule selection (``select``, ``ignore``) and the rules it left out (``not_checked``); None without
    ``--select``/``--ignore``."""
    notes: tuple[str, ...] = ()
    """Warning lines about the check's inputs that decide no verdict (a declared operator the model never uses)."""
    profile: str = "sonnx"
    """The rule set the model was checked against (``sonnx`` or ``sonnx-strict``): the reports name it."""

    def __post_init__(self) -> None:
        if self.summary is None and self.model is not None:
            object.__setattr__(self, "summary", model_summary(self.model))

    def detached(self) -> ModelReport:
        """The report without the loaded model and the proof obligations: what a batch sends between processes.

        Everything the text, JSON, SARIF and JUnit reports print stays (verdicts, findings, the model's summary,
        the SMT summary, the cross-check figures); the evidence bundle, which needs the model and the
        obligations, is written before the report is detached.
        """
        return replace(self, model=None, obligations=())

    def all_verdicts(self) -> list[Verdict]:
        """The verdicts of the rule table, then the extra findings."""
        return [*self.verdicts, *self.findings]

    def verdict(self, rule_id: str) -> Verdict | None:
        """The verdict of ``rule_id``, if the check gave one."""
        return next((v for v in self.verdicts if v.rule_id == rule_id), None)

    @property
    def exit_code(self) -> int:
        """2 if unusable; else 1 if an error-severity rule is violated; else 2 if a verdict is UNKNOWN or NOT
        CHECKED; else 0.

        An established violation decides the model's outcome even when another
        rule is UNKNOWN or not checked (the model does not conform either way);
        an UNKNOWN alone is never a pass, nor is a rule the selection left out.
        A WAIVED verdict does not fail the check (spec/graph.rst, section 9.1).
        """
        if self.error is not None or self.disagreements:
            return EXIT_UNUSABLE
        if any(v.fails for v in self.all_verdicts()):
            return EXIT_VIOLATED
        if any(v.status in (Status.UNKNOWN, Status.NOT_CHECKED) for v in self.all_verdicts()):
            return EXIT_UNUSABLE
        return EXIT_OK

    @property
    def outcome(self) -> Outcome:
        """One word for the whole model: PROVED, WAIVED, TESTED, VIOLATED, UNKNOWN, PARTIAL, or ERROR (unreadable).

        TESTED: nothing failed, but some verdict rests on samples only (exit 0, never called PROVED).
        WAIVED: nothing failed, but some finding is accepted by a waiver (exit 0, never called PROVED).
        PARTIAL: nothing checked failed or is UNKNOWN, but the selection left rules out (exit 2): the
        model is not shown to conform to the profile.
        """
        if self.error is not None:
            return Outcome.ERROR
        code = self.exit_code
        statuses = {v.status for v in self.all_verdicts()}
        if code == EXIT_OK and Status.WAIVED in statuses:
            return Outcome.WAIVED
        if code == EXIT_OK and Status.TESTED in statuses:
            return Outcome.TESTED
        if code == EXIT_UNUSABLE and not self.disagreements and Status.UNKNOWN not in statuses and (
                Status.NOT_CHECKED in statuses):
            return Outcome.PARTIAL
        return {EXIT_OK: Outcome.PROVED, EXIT_VIOLATED: Outcome.VIOLATED}.get(code, Outcome.UNKNOWN)

    def assumptions(self) -> list[str]:
        """Every fact some verdict assumes, in first-use order (the result line and the outputs name them)."""
        return list(dict.fromkeys(a for v in self.all_verdicts() for a in v.assumes))

    @property
    def counts(self) -> dict[str, int]:
        """How many verdicts of each kind, named as the text report's result line names them: ``violated``
        (error-severity rules violated: what fails the check), ``warnings`` (warning-severity rules violated),
        ``unknown``, ``proved``, ``tested``; then ``waived`` (with ``--waivers``) and ``not_checked`` (with a
        selection). The JSON report names ``violated`` ``errors`` (``json_counts``)."""
        verdicts = self.all_verdicts()
        extra: dict[str, int] = {}
        if self.waivers is not None:
            extra["waived"] = sum(1 for v in verdicts if v.status is Status.WAIVED)
        if self.selection is not None:
            extra["not_checked"] = sum(1 for v in verdicts if v.status is Status.NOT_CHECKED)
        return {
            "violated": sum(1 for v in verdicts if v.fails),
            "warnings": sum(
                1 for v in verdicts if v.status is Status.VIOLATED and v.severity is Severity.WARNING
            ),
            "unknown": sum(1 for v in verdicts if v.status is Status.UNKNOWN),
            "proved": sum(1 for v in verdicts if v.status is Status.PROVED),
            "tested": sum(1 for v in verdicts if v.status is Status.TESTED),
        } | extra

    def to_text(self) -> str:
        """The text report of this model, as ``sonnx-check`` prints it (``text_report``); for a model that could
        not be read, the lines that name the error (``sonnx-check`` writes that error on stderr)."""
        return text_report([self], self.profile)

    def to_json(self, tool_version: str = __version__) -> dict[str, Any]:
        """The JSON document ``sonnx-check --json`` writes for this model alone (``json_document``), as a dict."""
        return json_document([self], self.profile, self.exit_code, tool_version)

    def __str__(self) -> str:
        """The text report (:meth:`to_text`)."""
        return self.to_text()

    def __repr__(self) -> str:
        """One line: the model, its outcome and exit code, and the counts (or the error)."""
        counts = ", ".join(f"{k}={n}" for k, n in self.counts.items())
        tail = counts if self.error is None else printable(self.error.one_line())
        return f"<ModelReport {printable(self.path)}: {self.outcome.value} (exit {self.exit_code}; {tail})>"

    def _repr_html_(self) -> str:
        """The verdict table a notebook (Jupyter, IPython) displays for the report."""
        error = None if self.error is None else self.error.one_line()
        return report_table(self.path, self.outcome.value, self.exit_code, self.counts, self.all_verdicts(),
                            titles(), error, self.notes)


def json_counts(report: ModelReport) -> dict[str, int]:
    """The counts as the JSON report (schema version 1) and the evidence manifest record them: ``violated`` is
    named ``errors`` there, as it always was, so that documents stay comparable across releases."""
    return {("errors" if k == "violated" else k): n for k, n in report.counts.items()}


JSON_SCHEMA_VERSION = 1


def outcome_reason(r: ModelReport) -> str | None:
    """Why the outcome is TESTED, WAIVED or PARTIAL rather than what the rules' verdicts alone would suggest.

    A TESTED outcome names the verdicts that rest on samples (what each tried): nothing failed, but a sampled
    check is never a proof, so the model as a whole is not PROVED. WAIVED names the accepted findings, PARTIAL
    the rules the selection left out (spec/graph.rst, section 9.1). None for the other outcomes, which the
    verdicts above the result line explain by themselves.
    """
    outcome = getattr(r.outcome, "value", r.outcome)  # the outcome's word, whether a string or an enum
    verdicts = r.all_verdicts()
    if outcome == "TESTED":
        tested = [v for v in verdicts if v.status is Status.TESTED]
        others = [v for v in verdicts if v.status is not Status.TESTED]
        rest = ("every other verdict is PROVED" if all(v.status is Status.PROVED for v in others)
                else "no other verdict fails the check or is UNKNOWN")
        what = "; ".join(f"{v.rule_id} is TESTED on {v.details['tested']}" for v in tested)
        return (f"{rest}, but {what}: a test on samples is not a proof, so the model as a whole is TESTED, "
                "not PROVED")
    if outcome == "WAIVED":
        waived = [v.rule_id for v in verdicts if v.status is Status.WAIVED]
        return (f"nothing else fails, but the waivers file accepts {counted(len(waived), 'finding')} "
                f"({', '.join(waived)}): the model as a whole is WAIVED, not PROVED")
    if outcome == "PARTIAL":
        left = [v.rule_id for v in verdicts if v.status is Status.NOT_CHECKED]
        return (f"every rule checked holds, but the selection left {counted(len(left), 'rule')} out: "
                "conformance to the profile is not shown")
    return None


def model_summary(model: Model) -> dict[str, Any]:
    """Facts about a loaded model for the report header."""
    nested = sum(1 for _ in model.graph.nested()) - 1
    return {
        "ir_version": model.ir_version,
        "opset_imports": {(k or "ai.onnx"): v for k, v in sorted(model.opset_imports.items())},
        "operations": len(model.graph.operations),
        "nested_graphs": nested,
        "functions": [f"{f.domain}.{f.name}" for f in model.functions],
        "weights_loaded": model.weights_loaded,
    }


def run_notes(r: ModelReport) -> list[str]:
    """The text report's lines about the selection and the waivers file of one model's check."""
    out = []
    if r.selection is not None and r.selection["not_checked"]:
        left = r.selection["not_checked"]
        out.append(f"  note: {counted(len(left), 'rule')} not checked (selection): {', '.join(left)}")
    if r.waivers is not None:
        w = r.waivers
        out.append(f"  waivers: {printable(w['file'])} (SHA-256 {w['sha256']}), judged on {w['date']}")
        for e in w["used"]:
            out.append(f"    {printable(e['id'])} {e['rule']} ({printable(e['covers'])}): {e['result']}")
    return out


def text_report(reports: Sequence[ModelReport], profile: str, findings_only: bool = False) -> str:
    """The human-readable report of one or more model checks.

    With ``findings_only`` (``sonnx-check --findings-only``, the pre-commit hook) only the verdicts
    :func:`is_finding` keeps are printed, without the model's summary line; the notes stay. A model left
    with neither is one line: ``model: PATH; result: ...``.
    """
    names = titles()
    out: list[str] = []
    for r in reports:
        start = len(out)
        out.append(f"model: {printable(r.path)}")
        if r.error is not None:
            out.append(f"  ERROR     {printable(r.error.one_line())}")
            out.append("result: ERROR (the model could not be checked; exit 2)")
            out.append("")
            continue
        s = r.summary
        if s is None:
            out.append("  ERROR     the report holds neither a model nor an error (a tool defect)")
            out.append("result: ERROR (exit 2)")
            out.append("")
            continue
        opsets = ", ".join(f"{k} {v}" for k, v in s["opset_imports"].items())
        out.append(
            f"  IR {s['ir_version']}, opsets: {opsets or 'none'}; {counted(s['operations'], 'operation')}, "
            f"{counted(s['nested_graphs'], 'nested graph')}; profile {profile}"
            + ("" if s["weights_loaded"] else "; weights not read")
        )
        width = max([rule_column(), *(len(v.rule_id) + 1 for v in r.all_verdicts())])
        if findings_only:
            del out[start + 1:]  # the summary line is no finding
        shown = [v for v in r.all_verdicts() if not findings_only or is_finding(v)]
        for v in shown:
            out.extend(verdict_lines(v, names.get(v.rule_id, ""), width))
        if r.smt is not None and r.smt.skipped is not None:
            out.append(f"  note: SMT engine not run: {r.smt.skipped}")
        out.extend(run_notes(r))
        out.extend(f"  warning: {printable(n)}" for n in r.notes)
        c = r.counts
        out.append(
            f"result: {r.outcome} ({c['violated']} violated, {counted(c['warnings'], 'warning')}, "
            f"{c['unknown']} unknown, {c['proved']} proved"
            + (f", {c['tested']} tested" if c["tested"] else "")
            + (f", {c['waived']} waived" if c.get("waived") else "")
            + (f", {c['not_checked']} not checked" if c.get("not_checked") else "")
            + ")"
            + (f", assuming {'; '.join(printable(a) for a in r.assumptions())}" if r.assumptions() else "")
        )
        if findings_only and len(out) - start == 2:  # nothing between the model and its result: one line
            out[start:] = [f"{out[start]}; {out[-1]}"]
        why = outcome_reason(r)
        if why is not None:
            out.append(f"  why: {printable(why)}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def json_document(
    reports: Iterable[ModelReport], profile: str, exit_code: int, tool_version: str = __version__
) -> dict[str, Any]:
    """The JSON report (schema version :data:`JSON_SCHEMA_VERSION`) as a JSON-ready dict.

    ``tool_version`` names the build that made the report: this one, or the
    recording build an evidence bundle states when its report is rendered again.
    """
    models: list[dict[str, Any]] = []
    for r in reports:
        entry: dict[str, Any] = {"path": r.path, "outcome": r.outcome.value, "exit_code": r.exit_code}
        if r.error is not None:
            entry["error"] = {"type": type(r.error).__name__, "message": r.error.one_line()}
        if r.summary is not None:
            entry["model"] = dict(r.summary)
            entry["verdicts"] = [v.to_json() for v in r.verdicts]
            entry["counts"] = json_counts(r)
        if r.selection is not None:
            entry["selection"] = dict(r.selection)
        if r.waivers is not None:
            entry["waivers"] = dict(r.waivers)
        if r.smt is not None:
            entry["smt"] = {**r.smt.to_json(), "findings": [v.to_json() for v in r.findings]}
        if r.notes:
            entry["warnings"] = list(r.notes)
        if r.assumptions():
            entry["assumes"] = r.assumptions()
        why = outcome_reason(r) if r.error is None else None
        if why is not None:
            entry["outcome_reason"] = why
        models.append(entry)
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "sonnx", "version": tool_version},
        "profile": profile,
        "exit_code": exit_code,
        "models": models,
    }


def json_report(
    reports: Iterable[ModelReport], profile: str, exit_code: int, tool_version: str = __version__
) -> str:
    """The JSON report (schema version :data:`JSON_SCHEMA_VERSION`) as text: two-space indent, final newline."""
    document = json_document(reports, profile, exit_code, tool_version)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
