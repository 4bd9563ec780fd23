"""The check as JUnit XML, for the test-report views of CI servers.

One ``testsuite`` per model, one ``testcase`` per verdict (``classname`` the
model path, ``name`` the rule ID), in report order:

* PROVED: a passing testcase;
* TESTED: a passing testcase whose ``system-out`` says what was tried (a
  sampled result, not a proof);
* VIOLATED, error severity: ``failure`` (``type="VIOLATED"``, ``message`` the
  witness summary, the witness lines as its text);
* VIOLATED, warning severity: a passing testcase with the witness in
  ``system-out`` starting ``WARNING``: a warning does not fail the check
  (exit 0), so it does not fail the testcase either, but it is shown;
* UNKNOWN: ``error`` (``type="UNKNOWN"``, the reason as ``message``). JUnit's
  ``skipped`` would let CI servers count the case as not failing, and an
  UNKNOWN is never a pass;
* WAIVED: a passing testcase whose ``system-out`` starts ``WAIVED`` and says
  by which waiver, whose, when and why, then the finding waived;
* NOT CHECKED: ``skipped`` (the message says the selection left the rule
  out). The run itself is not a pass: the suite's outcome property is
  PARTIAL and the check exits 2.

A model that could not be checked has one testcase per rule of the profile,
each an ``error`` of type ``ERROR`` with the reason; a disagreement between
the engines is already an UNKNOWN verdict of its rule. Text the model
controls is escaped as in the text report (characters XML 1.0 cannot hold
are written as ``\\xNN``). Times, when the caller measured them (a batch),
are the models' check times on their ``testsuite``; there is no timestamp,
so the same reports give the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import BinaryIO

from ...base.files import write_atomically
from ...base.verdict import Severity, Status, Verdict
from ...rules import rules_for
from ..report import ModelReport
from ..verdict_text import titles, verdict_lines

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold (controls, lone surrogates) written as an escape."""

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_XML.sub(escape, text)


def _case(suite: ET.Element, path: str, rule_id: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", {"classname": xml_text(path), "name": xml_text(rule_id)})


def _verdict_case(suite: ET.Element, path: str, v: Verdict, title: str) -> str:
    """Add the testcase of one verdict; return its kind (passed, failure, error)."""
    case = _case(suite, path, v.rule_id)
    body = xml_text("\n".join(line.strip() for line in verdict_lines(v, title)))
    if v.status is Status.VIOLATED and v.severity is Severity.ERROR:
        assert v.witness is not None
        failure = ET.SubElement(case, "failure", {"type": "VIOLATED", "message": xml_text(v.witness.summary)})
        failure.text = body
        return "failure"
    if v.status is Status.NOT_CHECKED:
        ET.SubElement(case, "skipped", {"message": "NOT CHECKED: the rule selection left this rule out"})
        return "skipped"
    if v.status is Status.UNKNOWN:
        error = ET.SubElement(case, "error", {"type": "UNKNOWN", "message": xml_text(v.reason or "")})
        error.text = body
        return "error"
    if v.status is not Status.PROVED or v.assumes:  # a warning's witness, what a TESTED verdict tried, assumptions
        ET.SubElement(case, "system-out").text = body
    if v.assumes:
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", {"name": "assumes", "value": xml_text("; ".join(v.assumes))})
    return "passed"


def junit_xml(
    reports: Sequence[ModelReport], profile: str, seconds: Mapping[str, float] | None = None
) -> ET.Element:
    """The ``testsuites`` element of the check of ``reports`` (see the module text)."""
    names = titles()
    root = ET.Element("testsuites", {"name": "sonnx"})
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for report in reports:
        suite = ET.SubElement(root, "testsuite", {"name": xml_text(report.path)})
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if report.error is not None:
            why = xml_text(f"the model could not be checked: {report.error.one_line()}")
            for rule in rules_for(profile):
                case = _case(suite, report.path, rule.id)
                ET.SubElement(case, "error", {"type": "ERROR", "message": why}).text = why
                counts["tests"] += 1
                counts["errors"] += 1
        else:
            for v in report.all_verdicts():
                kind = _verdict_case(suite, report.path, v, names.get(v.rule_id, ""))
                counts["tests"] += 1
                if kind != "passed":
                    counts["skipped" if kind == "skipped" else f"{kind}s"] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        if seconds is not None and report.path in seconds:
            suite.set("time", f"{seconds[report.path]:.3f}")
        props = ET.Element("properties")
        ET.SubElement(props, "property", {"name": "profile", "value": profile})
        ET.SubElement(props, "property", {"name": "outcome", "value": report.outcome})
        ET.SubElement(props, "property", {"name": "exit_code", "value": str(report.exit_code)})
        suite.insert(0, props)
    for key, value in totals.items():
        root.set(key, str(value))
    return root


def junit_report(
    reports: Sequence[ModelReport], profile: str, seconds: Mapping[str, float] | None = None
) -> bytes:
    """:func:`junit_xml` serialized: UTF-8 with an XML declaration, indented, final newline."""
    root = junit_xml(reports, profile, seconds)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(
    path: str, reports: Sequence[ModelReport], profile: str, seconds: Mapping[str, float] | None = None
) -> None:
    """Write the JUnit XML report to ``path`` atomically (:func:`sonnx.base.files.write_atomically`)."""
    data = junit_report(reports, profile, seconds)

    def fill(fh: BinaryIO) -> None:
        fh.write(data)

    write_atomically(path, fill)
