"""A cross-check's report as readable lines, as ``sonnx crosscheck`` prints it.

The words only: every figure and outcome is already in the
:class:`~sonnx.differential.run.CrossCheckReport`, and these lines add none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.text import counted
from .wg_tolerance import NOT_APPLIED, SOURCE

if TYPE_CHECKING:
    from .run import CrossCheckReport


def text_lines(report: CrossCheckReport) -> list[str]:
    """The cross-check as readable lines (used by ``sonnx crosscheck`` and the HTML report)."""
    if report.source is not None:
        said = report.source.describe()
        lines = [f"cross-check: {report.path} ({'random inputs, ' if report.source.all_drawn else ''}{said})"]
    else:
        lines = [
            f"cross-check: {report.path} (seed {report.seed}"
            + (f", inputs from {report.inputs_file}" if report.inputs_file else ", random inputs")
            + ")"
        ]
    if report.subject_error is not None:
        lines.append(f"  numpy executor FAILED: {report.subject_error}")
    for name, st in report.steps.items():
        lines.append(f"  step tolerance of output {name}: {st.describe()}")
    if report.tolerance.quant_steps is not None and not report.steps:
        lines.append("  step tolerance: no output is written by a quantizing operation with a stated step")
    if report.tolerance.policy != "default":
        lines.append(f"  tolerance policy {report.tolerance.policy} ({SOURCE})")
        for name, oc in report.classes.items():
            lines.append(f"  output {name}: class {oc.cls}" + (f" (from {oc.because})" if oc.because else ""))
        lines.extend(f"  not applied: {why}" for why in NOT_APPLIED)
    for m in report.declared_misfits:
        lines.append(f"  warning: numpy executor: {m.line()}")
    for r in report.results:
        head = f"  {r.outcome:<15} {r.run.name}"
        if r.run.version:
            head += f" ({r.run.version})"
        lines.append(head)
        if r.run.message:
            lines.append(f"      {r.run.status}: {r.run.message}")
        for note in r.run.notes:
            lines.append(f"      note: {note}")
        for d in r.known_defects:
            lines.append(
                f"      known defect of {r.run.name} ({'/'.join(d.operators)} opset {d.first}-{d.last}): {d.why}"
            )
        for name in r.missing_outputs:
            lines.append(f"      output {name}: not produced by {r.run.name}")
        for m in r.declared_misfits:
            lines.append(f"      warning: {m.line()}")
        for name, c in r.comparisons.items():
            mark = "ok " if c.ok else "OUT"
            lines.append(f"      {mark} {name}: {c.summary()}")
            if not c.ok:
                for w in c.worst:
                    lines.append(
                        f"          at {list(w.index)}: {r.run.name} {w.expected!r}, numpy executor {w.actual!r}"
                        f" (abs {w.abs_error:.3g}, ulp {w.ulp})"
                    )
    known = sum(1 for r in report.results if r.outcome == "KNOWN-DEVIATION")
    verb = "differs" if known == 1 else "differ"
    extra = f"; {counted(known, 'oracle')} {verb} where they are known to be wrong, figures above" if known else ""
    lines.append(f"result: {report.outcome} (exit {report.exit_code}{extra})")
    return lines
