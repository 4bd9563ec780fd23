"""The verdicts a cross-check adds to a model's check: one per oracle.

``sonnx-check --cross-check reference,onnxruntime`` turns each oracle's
outcome (:mod:`.run`) into a verdict ``EXEC-CROSSCHECK-<ORACLE>``: TESTED
when the oracle agrees on the one input set (a sampled result, never
PROVED), VIOLATED with the figures when it differs, UNKNOWN when it could
not be established. The evidence verifier reads the same names back.

An output that contradicts its declared type, in the executor's run or the
oracle's, is listed in the verdict's details (``declared_output_misfits``)
and changes no status: no runtime enforces a declared output shape
(onnxruntime warns and returns the value), so the agreement does not rest on
it, and the engineer still sees it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base.verdict import Severity, Verdict, Witness
from .names import ORACLES

if TYPE_CHECKING:  # types only: the verdicts' titles are read by every report, the cross-check by few
    from .run import CrossCheckReport, OracleResult

VERDICT_PREFIX = "EXEC-CROSSCHECK"
TITLES = {f"{VERDICT_PREFIX}-{name.upper()}": f"Executor agrees with {name} within tolerance" for name in ORACLES}
TITLES[VERDICT_PREFIX] = "Executor agrees with the oracles within tolerance"

STATUS_OF_OUTCOME = {"AGREE": "TESTED", "DIFFER": "VIOLATED", "KNOWN-DEVIATION": "VIOLATED", "UNKNOWN": "UNKNOWN"}
"""The verdict status each cross-check outcome gives (what a bundle's verdicts must show)."""


def _source(cc: CrossCheckReport) -> dict[str, Any]:
    """Where the compared inputs came from: ``seed`` when all were drawn with it, else the file and its digest."""
    if cc.source is None or cc.source.all_drawn:
        return {"seed": cc.seed}
    return {"inputs": cc.source.to_json()}


def _described(cc: CrossCheckReport) -> str:
    return cc.source.describe() if cc.source is not None else f"seed {cc.seed}"


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
        details: dict[str, Any] = {**_source(cc), "oracle": r.run.version or r.run.name, "outputs": figures}
        if r.run.notes:
            details["notes"] = list(r.run.notes)
        misfits = _misfit_lines(cc, r)
        if misfits:
            details["declared_output_misfits"] = misfits
        engine = f"executor/{r.run.name}"
        if r.outcome == "AGREE":
            out.append(Verdict.tested(rid, f"1 input set ({_described(cc)})", details, engine=engine))
        elif r.outcome == "UNKNOWN":
            out.append(Verdict.unknown(rid, f"{r.run.status}: {r.run.message}", engine=engine))
        else:
            bad = {n: c.to_json() for n, c in r.comparisons.items() if not c.ok}
            summary = "; ".join(
                [f"{n}: {r.comparisons[n].summary()}" for n in bad] + [f"{n}: not produced" for n in r.missing_outputs]
            )
            data: dict[str, Any] = {**_source(cc), "oracle": r.run.version or r.run.name, "outputs": bad}
            if r.known_defects:
                data["known_defects"] = [d.why for d in r.known_defects]
            if misfits:
                data["declared_output_misfits"] = misfits
            if r.outcome == "KNOWN-DEVIATION":
                summary = f"known {r.run.name} defect, contradicted by another oracle: {summary}"
                out.append(Verdict.violated(rid, Witness(summary, data), Severity.WARNING, engine=engine))
            else:
                out.append(Verdict.violated(rid, Witness(summary, data), Severity.ERROR, engine=engine))
    return out


def _misfit_lines(cc: CrossCheckReport, r: OracleResult) -> list[str]:
    """The declared-type contradictions of the executor's run and of this oracle's, one line each."""
    return [f"numpy executor: {m.line()}" for m in cc.declared_misfits] + [
        f"{r.run.name}: {m.line()}" for m in r.declared_misfits
    ]
