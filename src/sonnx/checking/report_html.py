"""A model's report as one self-contained HTML fragment: what a notebook shows for a ``ModelReport``.

The fragment holds the headline (model, outcome, exit code, counts) and one table row per verdict: rule ID,
status, severity, title, the witness (VIOLATED, spec/graph.rst section 9.1) or the reason (UNKNOWN) with what
else the verdict records, and the engine. Every piece of text comes from the model or the tool and is escaped
(control characters made visible by :func:`sonnx.base.text.printable`, then :func:`html.escape`); the
fragment has inline styles only, no script, and links to nothing, so it renders the same in any notebook
front end and in a page built from it.

This module renders plain values (the verdicts, the titles, the counts) so that it sits below
:mod:`sonnx.checking.report`, whose ``ModelReport._repr_html_`` calls it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..base.text import printable
from ..base.verdict import Severity, Status, Verdict

MAX_LIST_ITEMS = 8
"""Items of a list in a witness or a detail shown before the rest is summed up as ``(N more)``."""

CELL = "text-align:left;vertical-align:top;padding:2px 6px"
"""The inline style of every cell: left-aligned (notebooks right-align table cells by default)."""

COLOURS = {
    Status.PROVED: "#1a7f37",
    Status.VIOLATED: "#cf222e",
    Status.UNKNOWN: "#9a6700",
    Status.TESTED: "#0969da",
    Status.WAIVED: "#8250df",
    Status.NOT_CHECKED: "#57606a",
}
"""The colour of each status word; a violated warning is shown in the colour of UNKNOWN."""

OUTCOME_COLOURS = {"PROVED": "#1a7f37", "VIOLATED": "#cf222e", "TESTED": "#0969da", "WAIVED": "#8250df"}
"""The colour of the outcome word; the others (UNKNOWN, PARTIAL, ERROR) are shown in the colour of UNKNOWN."""


def _text(value: object) -> str:
    """``value`` as HTML text: control characters made visible, then markup escaped."""
    from html import escape  # here: a check that renders no HTML does not import the HTML entity tables

    return escape(printable(str(value)))


def _cut(value: Any) -> Any:
    """``value`` with every list longer than :data:`MAX_LIST_ITEMS` cut to that many items and a count."""
    if isinstance(value, Mapping):
        return {str(k): _cut(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        shown = [_cut(v) for v in value[:MAX_LIST_ITEMS]]
        if len(value) > MAX_LIST_ITEMS:
            shown.append(f"({len(value) - MAX_LIST_ITEMS} more)")
        return shown
    return value


def _compact(value: Any) -> str:
    """A JSON-ready value as short JSON (a plain string as itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(_cut(value), ensure_ascii=False, default=str)


def _items(entries: Mapping[str, Any]) -> str:
    """Key-value pairs as an HTML list (empty text when there are none)."""
    if not entries:
        return ""
    rows = "".join(f"<li><code>{_text(k)}</code>: {_text(_compact(v))}</li>" for k, v in entries.items())
    return f'<ul style="margin:0;padding-left:1.2em">{rows}</ul>'


def evidence_cell(v: Verdict) -> str:
    """What backs the verdict: the witness with its data, the reason, the assumptions, the details recorded."""
    parts: list[str] = []
    if v.witness is not None:
        parts.append(f"<div>witness: {_text(v.witness.summary)}</div>{_items(v.witness.data)}")
    if v.reason is not None:
        parts.append(f"<div>reason: {_text(v.reason)}</div>")
    parts.extend(f"<div>assuming: {_text(a)}</div>" for a in v.assumes)
    if v.original is not None:
        parts.append(f"<div>finding waived: {_text(v.original.status.value)}</div>{evidence_cell(v.original)}")
    parts.append(_items(v.details))
    return "".join(parts)


def status_word(status: Status, severity: Severity) -> str:
    """The status in its colour (bold); a violated warning in the colour of UNKNOWN."""
    colour = COLOURS[status]
    if status is Status.VIOLATED and severity is Severity.WARNING:
        colour = COLOURS[Status.UNKNOWN]
    return f'<span style="color:{colour};font-weight:bold">{_text(status.value)}</span>'


def report_table(
    path: str,
    outcome: str,
    exit_code: int,
    counts: Mapping[str, int],
    verdicts: Sequence[Verdict],
    titles: Mapping[str, str],
    error: str | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The HTML fragment of one model's report (see the module text); ``error``: why the model was not checked."""
    colour = OUTCOME_COLOURS.get(outcome, COLOURS[Status.UNKNOWN])
    tally = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in counts.items())
    head = (
        f'<p style="margin:0 0 4px 0">model <code>{_text(path)}</code>: '
        f'<span style="color:{colour};font-weight:bold">{_text(outcome)}</span> (exit code {exit_code}'
        + (f"; {_text(tally)}" if error is None else "")
        + ")</p>"
    )
    if error is not None:
        return f'<div class="sonnx-report">{head}<p style="margin:0">error: {_text(error)}</p></div>'
    header = "".join(
        f'<th style="{CELL}">{name}</th>'
        for name in ("rule", "status", "severity", "title", "witness or reason", "engine")
    )
    rows = []
    for v in verdicts:
        cells = (
            f'<code style="white-space:nowrap">{_text(v.rule_id)}</code>',
            status_word(v.status, v.severity),
            _text(v.severity.value),
            _text(titles.get(v.rule_id, "")),
            evidence_cell(v),
            _text(v.engine),
        )
        row = "".join(f'<td style="{CELL}">{c}</td>' for c in cells)
        rows.append(f'<tr style="border-top:1px solid #ddd">{row}</tr>')
    warnings = "".join(f'<p style="margin:4px 0 0 0">warning: {_text(n)}</p>' for n in notes)
    return (
        f'<div class="sonnx-report">{head}'
        f'<table style="border-collapse:collapse"><thead><tr>{header}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>{warnings}</div>'
    )
