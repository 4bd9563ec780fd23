"""The check as a SARIF 2.1.0 log, for code-scanning services and SARIF viewers.

One run, one ``tool.driver`` (sonnx) whose ``rules`` are the rules of the
selected profile (ID, title, statement, severity, spec anchor) followed by any
other verdict the check gave (EXEC-ORDERS, the cross-checks). Each checked
model is an artifact. A result is written for every verdict that is not a
pass:

* VIOLATED, error severity: ``level: error``;
* VIOLATED, warning severity: ``level: warning``;
* UNKNOWN: ``level: warning``, its message starting ``not established
  (UNKNOWN):`` with the reason. It is a result of ``kind: fail`` because, for a
  gate, a property the tool could not establish is a problem to act on (the
  check exits 2, never 0). ``kind: open`` would say the same thing in SARIF's
  own words, but SARIF 2.1.0 (section 3.27.10) then requires ``level: none``,
  which viewers hide, and an UNKNOWN must not go unseen. ``note`` would call
  it a minor finding, and ``error`` is kept for established violations.

* WAIVED: the result of the finding it waives (its level, message and
  witness), with one ``suppressions`` entry per waiver that covers it
  (``kind: external``, ``status: accepted``, the waiver's ``justification``;
  its id, author and dates in the suppression's ``properties``);
* NOT CHECKED: no result; each rule the selection left out is a
  ``ruleConfigurationOverrides`` entry of the invocation with
  ``enabled: false``, and the invocation's ``properties`` give the selection.

PROVED and TESTED verdicts give no result; what a verdict assumes (a user's
operator declarations) is listed per model in the run's ``properties``
(``models[].assumes``, by rule) and in a result's ``properties.assumes``. A result's message is the
witness summary; its location is the model file; the operations the witness
names (entries with an ``operation`` key, with their ``index`` and graph
``scope``) are its ``relatedLocations``, as logical locations of kind
``function`` whose fully qualified name is ``<scope>/<operation label>#<index>``.
The witness data itself is kept in the result's ``properties``, beside the verdict's ``status``, ``severity``
and ``label`` (the word the text report shows: WARNING for a violated warning-severity rule,
:func:`sonnx.base.verdict.label`).

A model that could not be checked (unreadable file, engines that disagree)
is a ``toolExecutionNotifications`` entry of level ``error`` and makes the
invocation's ``executionSuccessful`` false; the invocation's ``exitCode`` is
the check's. The output is deterministic: the same reports give the same
bytes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote

from ...base.files import write_atomically
from ...base.verdict import Severity, Status, Verdict
from ...base.version import __version__
from ...rules import RULES, Rule, rules_for
from ..options import check_docs_url
from ..report import ModelReport
from ..verdict_text import SPEC_PAGES, html_anchor, titles

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

UNKNOWN_PREFIX = "not established (UNKNOWN): "


def help_uri(rule: Rule, docs_url: str | None) -> str | None:
    """The URL of the rule's anchor on the documentation site under ``docs_url``, when both are known."""
    page = SPEC_PAGES.get(rule.spec)
    if docs_url is None or page is None:
        return None
    return f"{docs_url.rstrip('/')}/{page}#{html_anchor(rule.id)}"


def artifact_uri(path: str) -> str:
    """A model path as a URI reference: relative paths stay relative (``/``-separated, percent-encoded).

    The path's bytes are encoded (:func:`os.fsencode`), so a file name that is
    not valid UTF-8 keeps its exact bytes as percent escapes.
    """
    if os.path.isabs(path):
        return Path(path).as_uri()
    return quote(os.fsencode(path.replace(os.sep, "/")), safe="/")


def named_operations(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every operation a witness names, once each, in the order met.

    An operation is a dict with a string ``operation`` (its label); its
    ``index`` and ``scope`` are read from the same dict, the scope from the
    nearest enclosing dict that has one (``scope`` or ``chain_scope``) when
    the entry itself has none.
    """
    found: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()

    def walk(value: Any, scope: str | None) -> None:
        if isinstance(value, Mapping):
            own = value.get("scope", value.get("chain_scope", scope))
            here = own if isinstance(own, str) else scope
            label = value.get("operation")
            if isinstance(label, str):
                index = value.get("index")
                entry: dict[str, Any] = {"operation": label}
                if isinstance(index, int) and not isinstance(index, bool):
                    entry["index"] = index
                if here is not None:
                    entry["scope"] = here
                key = (entry.get("scope"), entry.get("index"), label)
                if key not in seen:
                    seen.add(key)
                    found.append(entry)
            for item in value.values():
                walk(item, here)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item, scope)

    walk(data, None)
    return found


def qualified_name(op: Mapping[str, Any]) -> str:
    """``<scope>/<label>#<index>``, leaving out what the witness did not give."""
    name = str(op["operation"])
    if "scope" in op:
        name = f"{op['scope']}/{name}"
    if "index" in op:
        name = f"{name}#{op['index']}"
    return name


def _describe(op: Mapping[str, Any]) -> str:
    where = [f"#{op['index']}" if "index" in op else "", f"in {op['scope']}" if "scope" in op else ""]
    extra = " ".join(w for w in where if w)
    return f"{op['operation']} ({extra})" if extra else str(op["operation"])


def _descriptor(rule_id: str, docs_url: str | None) -> dict[str, Any]:
    rule = next((r for r in RULES if r.id == rule_id), None)
    if rule is None:
        title = titles().get(rule_id, rule_id)
        return {
            "id": rule_id,
            "shortDescription": {"text": title},
            "fullDescription": {"text": title},
            "help": {"text": f"{rule_id}: {title}. See the sonnx documentation (evidence page) for how it is checked."},
        }
    level = "error" if rule.severity is Severity.ERROR else "warning"
    out: dict[str, Any] = {
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.statement},
    }
    uri = help_uri(rule, docs_url)
    if uri is not None:
        out["helpUri"] = uri
    out["help"] = {"text": f"{rule.title}: specified in {rule.spec}, section {rule.id} (docs site page "
        f"{SPEC_PAGES.get(rule.spec, 'spec.html')})."}
    out["defaultConfiguration"] = {"level": level}
    out["properties"] = {"severity": rule.severity.value, "profile": rule.profile, "spec": f"{rule.spec}#{rule.id}"}
    if rule.strict_severity is not None:
        # the level of each result is the verdict's own: the severity under the profile checked
        out["properties"]["strictSeverity"] = rule.strict_severity.value
    return out


def _level(v: Verdict) -> str | None:
    if v.original is not None:
        return _level(v.original)
    if v.status is Status.VIOLATED:
        return "error" if v.severity is Severity.ERROR else "warning"
    if v.status is Status.UNKNOWN:
        return "warning"
    return None


def _result(v: Verdict, level: str, rule_index: int, artifact: dict[str, Any]) -> dict[str, Any]:
    if v.original is not None:
        waived = _result(v.original, level, rule_index, artifact)
        waived["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": e["justification"],
                "properties": {k: e[k] for k in ("id", "covers", "author", "date", "expires")},
            }
            for e in v.details["waivers"]
        ]
        waived["properties"]["status"] = waived["properties"]["label"] = v.status.value
        return waived
    location = {"physicalLocation": {"artifactLocation": artifact}}
    props: dict[str, Any] = {
        "status": v.status.value, "severity": v.severity.value, "label": v.label, "engine": v.engine,
    }
    if v.witness is not None:
        text = v.witness.summary
        props["witness"] = dict(v.witness.data)
        operations = named_operations(v.witness.data)
    else:
        text = UNKNOWN_PREFIX + (v.reason or "")
        operations = []
    if v.details:
        props["details"] = dict(v.details)
    if v.assumes:
        props["assumes"] = list(v.assumes)
    out: dict[str, Any] = {
        "ruleId": v.rule_id,
        "ruleIndex": rule_index,
        "kind": "fail",
        "level": level,
        "message": {"text": text},
        "locations": [location],
    }
    if operations:
        out["relatedLocations"] = [
            {
                "id": i,
                "message": {"text": _describe(op)},
                "physicalLocation": {"artifactLocation": artifact},
                "logicalLocations": [
                    {"name": str(op["operation"]), "fullyQualifiedName": qualified_name(op), "kind": "function"}
                ],
            }
            for i, op in enumerate(operations)
        ]
    out["properties"] = props
    return out


def sarif_log(
    reports: Sequence[ModelReport], profile: str, exit_code: int, docs_url: str | None = None
) -> dict[str, Any]:
    """The SARIF log of a check of ``reports`` under ``profile`` (see the module text), as a JSON-ready dict."""
    if docs_url is not None:
        check_docs_url(docs_url)
    rule_ids = [r.id for r in rules_for(profile)]
    for report in reports:
        for v in report.all_verdicts():
            if v.rule_id not in rule_ids:
                rule_ids.append(v.rule_id)
    index = {rid: i for i, rid in enumerate(rule_ids)}
    artifacts: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    models: list[dict[str, Any]] = []
    for k, report in enumerate(reports):
        artifact = {"uri": artifact_uri(report.path), "index": k}
        artifacts.append({"location": {"uri": artifact["uri"]}, "roles": ["analysisTarget"]})
        where = [{"physicalLocation": {"artifactLocation": artifact}}]
        if report.error is not None:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"{report.path}: not checked: {report.error.one_line()}"},
                    "locations": where,
                }
            )
        for d in report.disagreements:
            notifications.append(
                {"level": "error", "message": {"text": f"{report.path}: tool error: {d}"}, "locations": where}
            )
        for v in report.all_verdicts():
            level = _level(v)
            if level is not None:
                results.append(_result(v, level, index[v.rule_id], artifact))
        models.append({"path": report.path, "outcome": report.outcome, "exitCode": report.exit_code})
        assumed = {v.rule_id: list(v.assumes) for v in report.all_verdicts() if v.assumes}
        if assumed:  # a PROVED verdict gives no result: what it assumes is stated here
            models[-1]["assumes"] = assumed
    ok = all(r.error is None and not r.disagreements for r in reports)
    invocation: dict[str, Any] = {"executionSuccessful": ok, "exitCode": exit_code}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    selection = next((r.selection for r in reports if r.selection is not None), None)
    if selection is not None:
        if selection["not_checked"]:
            invocation["ruleConfigurationOverrides"] = [
                {"descriptor": {"id": rid, "index": index[rid]}, "configuration": {"enabled": False}}
                for rid in selection["not_checked"]
            ]
        invocation["properties"] = {"selection": {k: selection[k] for k in ("select", "ignore")}}
    driver: dict[str, Any] = {"name": "sonnx", "version": __version__, "semanticVersion": __version__}
    if docs_url is not None:
        driver["informationUri"] = docs_url
    driver["rules"] = [_descriptor(rid, docs_url) for rid in rule_ids]
    run = {
        "tool": {"driver": driver},
        "invocations": [invocation],
        "artifacts": artifacts,
        "results": results,
        "properties": {"profile": profile, "models": models},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def sarif_report(
    reports: Sequence[ModelReport], profile: str, exit_code: int, docs_url: str | None = None
) -> str:
    """:func:`sarif_log` as text: two-space indent, UTF-8 kept, final newline."""
    return json.dumps(sarif_log(reports, profile, exit_code, docs_url), indent=2, ensure_ascii=False) + "\n"


def write_sarif(
    path: str, reports: Sequence[ModelReport], profile: str, exit_code: int, docs_url: str | None = None
) -> None:
    """Write the SARIF log to ``path`` atomically (:func:`sonnx.base.files.write_atomically`)."""
    # a lone surrogate (an undecodable byte of a file name) is written as its JSON escape, so the file stays UTF-8
    data = sarif_report(reports, profile, exit_code, docs_url).encode("utf-8", "backslashreplace")

    def fill(fh: BinaryIO) -> None:
        fh.write(data)

    write_atomically(path, fill)
