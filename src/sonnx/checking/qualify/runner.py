"""Running the qualification cases in the user's environment, and comparing actual with expected.

Each case is run through the same functions ``sonnx-check`` and ``sonnx
evidence verify`` call (:func:`sonnx.checking.pipeline.check_models`,
:func:`sonnx.checking.replay.verify_bundle`), so what the kit records is what the
command line gives. A case PASSED when every verdict, the exit code, and (for an
evidence case) the verification match; FAILED with each difference listed
otherwise; NOT RUN, with the reason, when it needs something this environment
lacks. A NOT RUN case is never counted as passed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ...base.errors import SonnxError
from ...base.progress import Say, quiet
from ...base.verdict import Severity, Status
from ...rules.registry import rules_for
from ..options import CheckOptions
from ..pipeline import check_models
from ..replay import verify_bundle
from ..report import ModelReport, json_document
from . import cases as table
from .models import model_bytes

PASSED, FAILED, NOT_RUN = "PASSED", "FAILED", "NOT RUN"


@dataclass(frozen=True)
class CaseResult:
    """What running one case gave: its status, the differences from the expected, and the run's record."""

    case: table.Case
    status: str
    differences: tuple[str, ...] = ()
    reason: str | None = None
    """Why the case was not run."""
    actual: dict[str, Any] = field(default_factory=dict)
    """The exit code, every verdict's status (and witness or reason), and what else the case looked at."""
    report: dict[str, Any] | None = None
    """The check's JSON report (schema of :func:`sonnx.checking.report.json_document`), paths made relative."""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out = {**self.case.to_json(), "status": self.status, "differences": list(self.differences),
               "actual": self.actual, "seconds": round(self.seconds, 3)}
        if self.reason is not None:
            out["not_run_reason"] = self.reason
        return out


def available(distribution: str) -> bool:
    """Whether the module of an optional distribution can be imported here (found, not imported)."""
    return importlib.util.find_spec(distribution) is not None


def write_model(case: table.Case, folder: Path) -> Path:
    """Write the case's model file under ``folder`` (planted bytes, or the packaged example) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / case.file_name
    if not path.exists():
        if case.model.startswith("example:"):
            data = resources.files(table.EXAMPLES_PACKAGE).joinpath(table.EXAMPLES_FOLDER, case.file_name).read_bytes()
        else:
            data = model_bytes(case.model.removeprefix("planted:"))
        path.write_bytes(data)
    return path


def write_files(case: table.Case, model: Path) -> dict[str, str]:
    """Write the case's other files beside its model (``<case id>.<name>``); their paths by name."""
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    paths = {}
    for name, template in case.files.items():
        path = model.parent / f"{case.id}.{name}"
        path.write_text(template.replace("{model_sha256}", digest), encoding="utf-8")
        paths[name] = str(path)
    return paths


def _relative(value: Any, prefix: str) -> Any:
    """``value`` with the run's own folder removed from every string (so that the record names ``models/x``)."""
    if isinstance(value, str):
        return value.replace(prefix, "")
    if isinstance(value, list):
        return [_relative(v, prefix) for v in value]
    if isinstance(value, dict):
        return {k: _relative(v, prefix) for k, v in value.items()}
    return value


def _expected_statuses(case: table.Case) -> dict[str, tuple[str, str]]:
    """Each verdict the case expects, by rule: (status, severity) — every rule of the profile, plus the tested."""
    e = case.expect
    out: dict[str, tuple[str, str]] = {}
    for rule in rules_for(case.profile):
        severity = rule.severity_in(case.profile).value
        status = Status.PROVED.value
        if rule.id in e.violated:
            status, severity = Status.VIOLATED.value, Severity.ERROR.value
        elif rule.id in e.warnings:
            status, severity = Status.VIOLATED.value, Severity.WARNING.value
        elif rule.id in e.unknown:
            status = Status.UNKNOWN.value
        out[rule.id] = (status, severity)
    for rule_id in e.tested:
        out[rule_id] = (Status.TESTED.value, Severity.ERROR.value)
    for status, rule_ids in e.others.items():
        for rule_id in rule_ids:
            out[rule_id] = (status, out.get(rule_id, ("", Severity.ERROR.value))[1])
    return out


def compare(case: table.Case, report: ModelReport) -> tuple[list[str], dict[str, Any]]:
    """The differences between a report and the case's expectations, and the actual results recorded."""
    e = case.expect
    diffs: list[str] = []
    actual: dict[str, Any] = {"exit_code": report.exit_code, "outcome": report.outcome}
    if report.exit_code != e.exit_code:
        diffs.append(f"exit code {report.exit_code}, expected {e.exit_code}")
    if report.error is not None:
        line = report.error.one_line()
        actual["error"] = line
        if not e.error:
            diffs.append(f"the input was refused: {line}")
        elif not line or "\n" in line:
            diffs.append("the refusal is not one line")
        return diffs, actual
    if e.error:
        diffs.append("the input was not refused as unusable")
    verdicts = {v.rule_id: v for v in report.verdicts}
    actual["verdicts"] = {rid: v.to_json() for rid, v in verdicts.items()}
    for rid, (status, severity) in _expected_statuses(case).items():
        v = verdicts.get(rid)
        if v is None:
            diffs.append(f"{rid}: no verdict, expected {status}")
            continue
        if (v.status.value, v.severity.value) != (status, severity):
            diffs.append(f"{rid}: {v.status.value} ({v.severity.value}), expected {status} ({severity})")
        if v.status is Status.VIOLATED and (v.witness is None or not v.witness.summary.strip()):
            diffs.append(f"{rid}: VIOLATED without a witness")
    extra = sorted(set(verdicts) - set(_expected_statuses(case)))
    diffs.extend(f"{rid}: a verdict the case does not expect ({verdicts[rid].status.value})" for rid in extra)
    if report.disagreements:
        diffs.append(f"the engines disagree on {', '.join(report.disagreements)}")
    if case.engine == "both":
        ran = report.smt is not None and report.smt.skipped is None
        actual["smt_engine_ran"] = ran
        if not ran:
            diffs.append("the SMT engine did not run beside the direct checks")
    return diffs, actual


def run_case(case: table.Case, models: Path) -> CaseResult:
    """Run one case with its model under ``models``; never raises for what the check reports."""
    start = time.perf_counter()
    missing = [d for d in case.needs if not available(d)]
    if missing:
        extra = "crosscheck" if "onnxruntime" in missing else None
        hint = f" (pip install 'sonnx[{extra}]')" if extra else ""
        return CaseResult(case, NOT_RUN, reason=f"not installed here: {', '.join(missing)}{hint}")
    path = write_model(case, models)
    prefix = f"{models.parent}{os.sep}"
    scratch = Path(tempfile.mkdtemp(prefix="sonnx-qualify-"))
    try:
        bundle = str(scratch / "bundle") if case.kind == "evidence" else None
        files = write_files(case, path)
        given: dict[str, Any] = {k: files[v] if isinstance(v, str) and v in files else v
                                 for k, v in case.options.items()}
        options = CheckOptions(profile=case.profile, engine=case.engine, evidence=bundle, **given)
        report = check_models([str(path)], options).reports[0]
        diffs, actual = compare(case, report)
        if case.kind == "evidence":
            if bundle is None or not Path(bundle).is_dir():
                diffs.append("no evidence bundle was written")
            else:
                verification = verify_bundle(bundle)
                actual["evidence_verify_exit_code"] = verification.exit_code
                if verification.exit_code != case.expect.verified:
                    diffs.append(f"evidence verify exit {verification.exit_code}, expected {case.expect.verified}: "
                                 + "; ".join(verification.differences + verification.refused))
        document = json_document([report.detached()], case.profile, report.exit_code)
    except SonnxError as exc:
        return CaseResult(case, FAILED, (f"the check raised: {exc.one_line()}",), seconds=time.perf_counter() - start)
    except Exception as exc:  # a crash of the tool is a failed case, recorded, never a stop of the kit
        why = f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())}"
        return CaseResult(case, FAILED, (_relative(why, prefix),), seconds=time.perf_counter() - start)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    actual = _relative(actual, prefix)
    status = FAILED if diffs else PASSED
    return CaseResult(case, status, tuple(_relative(diffs, prefix)), None, actual, _relative(document, prefix),
                      time.perf_counter() - start)


def run_cases(
    cases: Sequence[table.Case], models: Path, jobs: int = 1, progress: Say | None = None
) -> list[CaseResult]:
    """Run ``cases`` (in ``jobs`` worker processes when more than one), results in table order."""
    say = progress or quiet
    models.mkdir(parents=True, exist_ok=True)
    for case in cases:  # written up front, once each, so that workers never race on a file
        if not [d for d in case.needs if not available(d)]:
            write_model(case, models)
    results: list[CaseResult] = []
    if jobs <= 1:
        for i, case in enumerate(cases, 1):
            result = run_case(case, models)
            say(f"case {i}/{len(cases)} {case.id}: {result.status}")
            results.append(result)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_case, case, models) for case in cases]
        for i, (case, future) in enumerate(zip(cases, futures, strict=True), 1):
            result = future.result()
            say(f"case {i}/{len(cases)} {case.id}: {result.status}")
            results.append(result)
    return results
