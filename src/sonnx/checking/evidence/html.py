"""The human-readable page of an evidence bundle: one self-contained HTML file, pictures as inline SVG.

At the top, a table of the facts a reviewer needs to know which check the page
records (:class:`PageHeader`): the build of sonnx, the model file and its
SHA-256, the command line, the date and the spec version. Then the verdicts,
the graph and the cross-check charts (:mod:`.pictures`), and the SMT
obligations. When the bundle was written with ``--docs-url URL`` (the base of
the documentation site, recorded in the manifest), every rule ID the page
shows links to the rule's section, ``URL/spec.html#<anchor>``; without it,
the page names the sections without linking them. The verdicts that are no
rule of the spec (EXEC-ORDERS, EXEC-CROSSCHECK-*) have no section.

The page is generated from the same data as the JSON files and is fully
deterministic: no timestamp but the recorded creation date, no random
identifier. Every text that comes from the model, the options or the bundle
is escaped, so a name holding markup shows as text.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ...base.text import counted
from ...base.verdict import Status, Verdict, label
from ...differential.run import CrossCheckReport
from ..options import CheckOptions
from ..report import ModelReport
from ..verdict_text import spec_sections, titles
from .pictures import MAX_DRAWN_OPERATIONS, error_chart, flagged_operations, graph_svg


@dataclass(frozen=True)
class PageHeader:
    """What the page states at its top: which build checked which model, how, when, against which spec.

    ``commit`` is the version control commit of the build, None when it is not known; ``model_file`` is
    the model's path inside the bundle (``model/<name>``); ``command_line`` is the ``sonnx-check``
    command as a sequence of arguments (shown shell-quoted); ``created`` is the recorded creation date
    (ISO 8601), None when the bundle records none; ``spec_version`` is the version of spec/graph.rst the
    build implements, None when the build does not know it; ``docs_url`` is the base URL of the
    documentation site the rule IDs link to, None for no links.
    """

    version: str
    commit: str | None
    model_file: str
    model_sha256: str
    command_line: Sequence[str]
    created: str | None
    spec_version: str | None
    docs_url: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "command_line", tuple(self.command_line))


def spec_link(rule_id: str, docs_url: str | None) -> str | None:
    """The URL of ``rule_id``'s section on the documentation site at ``docs_url``; None without a site, or
    for a verdict that is no rule of the spec."""
    section = spec_sections().get(rule_id)
    return None if section is None or docs_url is None else f"{docs_url.rstrip('/')}/{section}"


def rule_ref(rule_id: str, docs_url: str | None) -> str:
    """A rule ID as HTML: a link to its section of the spec when there is one, its title shown on hover."""
    title = titles().get(rule_id)
    hover = f' title="{escape(title)}"' if title else ""
    url = spec_link(rule_id, docs_url)
    if url is None:
        return f"<span class='rule'{hover}>{escape(rule_id)}</span>"
    return f'<a class="rule" href="{escape(url)}"{hover}>{escape(rule_id)}</a>'


def _id_pattern(ids: Iterable[str]) -> re.Pattern[str]:
    # A rule ID only where no letter, digit or hyphen touches it, so that GRAPH-R1 inside GRAPH-R1-OUTPUTS
    # or GRAPH-R10 is never linked on its own; sorted so that the pattern does not depend on dict order.
    names = "|".join(re.escape(i) for i in sorted(ids, key=lambda i: (-len(i), i)))
    return re.compile(rf"(?<![A-Za-z0-9-])({names})(?![A-Za-z0-9-])")


RULE_ID_IN_TEXT = _id_pattern(spec_sections())


def text_with_links(text: str, docs_url: str | None) -> str:
    """``text`` escaped, each rule ID in it (a witness naming another rule, a reason) linked to its section."""
    return RULE_ID_IN_TEXT.sub(lambda m: rule_ref(m.group(1), docs_url), escape(text))


def header_table(header: PageHeader) -> str:
    """The facts of :class:`PageHeader` as a two-column table."""
    commit = escape(header.commit) if header.commit else "not recorded"
    spec = f"SONNX graph spec {escape(header.spec_version)}" if header.spec_version else "not recorded"
    rows = [
        ("tool", f"sonnx {escape(header.version)} (commit {commit})"),
        ("model", f"<code>{escape(header.model_file)}</code>"),
        ("model SHA-256", f"<code>{escape(header.model_sha256)}</code>"),
        ("command line", f"<code>{escape(shlex.join(header.command_line))}</code>"),
        ("created", escape(header.created) if header.created else "not recorded"),
        ("specification", spec),
    ]
    return "<table class='header'>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def links_note(docs_url: str | None) -> str:
    """Where the rule IDs of the page point, said on the page itself."""
    tests = (
        " EXEC-ORDERS and EXEC-CROSSCHECK-* are tests on the samples stated, not rules of the specification, and "
        "have no section."
    )
    if docs_url is None:
        return (
            "<p>Each rule ID names its section of the specification, spec/graph.rst or spec/operators.rst (pages "
            "<code>spec.html</code> and <code>operators.html</code> of sonnx's documentation site); the bundle was "
            "written without <code>--docs-url</code>, so the "
            f"page has no links.{tests}</p>"
        )
    return (
        "<p>Each rule ID links to its section of the specification, page <code>spec.html</code> or "
        "<code>operators.html</code> of the "
        f"documentation site <code>{escape(docs_url)}</code> (given with <code>--docs-url</code>).{tests}</p>"
    )


STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #bbb; padding: 3px 8px; text-align: left; vertical-align: top; font-size: 90%; }
th { background: #eee; }
.PROVED { color: #176117; font-weight: bold; }
.VIOLATED { color: #b00000; font-weight: bold; }
.WARNING { color: #b06000; font-weight: bold; }
.UNKNOWN { color: #555; font-weight: bold; }
.TESTED { color: #1f4f8f; font-weight: bold; }
.AGREE { color: #176117; font-weight: bold; }
.DIFFER, .KNOWN-DEVIATION { color: #b00000; font-weight: bold; }
table.header th { width: 9em; }
.rule { white-space: nowrap; }
code { font-size: 90%; }
"""


def _table(head: list[str], rows: Iterable[list[str]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _status_cell(status: str, severity: str) -> str:
    shown = label(status, severity)
    return f'<span class="{shown}">{escape(shown)}</span>'


def _why(v: Verdict) -> str:
    """The last column of a verdict's row: witness, reason, what was tried, or who waived it and why."""
    if v.original is not None:
        who = "; ".join(f"waived by {e['id']} ({e['author']}, {e['date']}): {e['justification']}"
                        for e in v.details["waivers"])
        return f"{who}. The finding: {_why(v.original)}"
    if v.status is Status.NOT_CHECKED:
        return "not checked: the rule selection left it out (no claim is made on it)"
    return v.witness.summary if v.witness is not None else (v.reason or str(v.details.get("tested", "")))


def _selection_and_waivers(report: ModelReport) -> list[str]:
    """The rule selection and the waivers file of the check, when it had them."""
    out = []
    if report.selection is not None:
        sel = report.selection
        out.append(
            "<h2>Rule selection</h2><p>Select: <code>"
            + escape(", ".join(sel["select"]) if sel["select"] is not None else "every rule")
            + "</code>; ignore: <code>" + escape(", ".join(sel["ignore"]) or "none") + "</code>. Not checked: "
            + escape(", ".join(sel["not_checked"]) or "none") + ".</p>"
        )
    if report.waivers is not None:
        w = report.waivers
        out.append(
            f"<h2>Waivers</h2><p>File <code>{escape(w['file'])}</code> (SHA-256 <code>{w['sha256']}</code>), "
            f"judged on {escape(w['date'])}.</p>"
        )
        out.append(_table(
            ["waiver", "rule", "covers", "author", "date", "expires", "justification", "result"],
            ([escape(str(e[k] or "")) for k in ("id", "rule", "covers", "author", "date", "expires",
                                                "justification", "result")] for e in w["used"]),
        ))
    return out


def render_html(report: ModelReport, options: CheckOptions, header: PageHeader) -> str:
    """The whole page: the header facts, then the check's results (see the module docstring)."""
    body: list[str] = [f"<h1>Evidence: {escape(header.model_file)}</h1>", header_table(header)]
    c = report.counts
    body.append(
        f"<p>Outcome: {_status_cell(report.outcome, '')} (exit code {report.exit_code}): {c['violated']} violated, "
        f"{counted(c['warnings'], 'warning')}, {c['unknown']} unknown, {c['proved']} proved, {c['tested']} tested "
        "(passed on the samples stated, not proved)"
        + "".join(f", {c[k]} {k.replace('_', ' ')}" for k in ("waived", "not_checked") if k in c)
        + ". Profile "
        f"<code>{escape(options.profile)}</code>, engine <code>{escape(options.engine)}</code>, seed {options.seed}."
        "</p><p>Every figure on this page is also in the bundle's JSON files, whose SHA-256 digests are in "
        "<code>manifest.json</code>; <code>sonnx evidence verify</code> re-checks them.</p>"
    )
    if report.error is not None:
        why = text_with_links(report.error.one_line(), header.docs_url)
        body.append(f"<p class='VIOLATED'>The model could not be loaded: {why}</p>")
    body.append("<h2>Verdicts</h2>" + links_note(header.docs_url))
    rows = []
    for v in report.all_verdicts():
        why = _why(v)
        rows.append(
            [
                rule_ref(v.rule_id, header.docs_url),
                _status_cell(v.status.value, v.severity.value)
                + "".join(f"<br>assuming {escape(a)}" for a in v.assumes),
                escape(v.engine),
                text_with_links(why, header.docs_url),
            ]
        )
    body.append(_table(["rule", "status", "engine", "witness / reason"], rows))
    body.extend(_selection_and_waivers(report))
    if report.model is not None:
        g = report.model.graph
        body.append("<h2>Graph</h2>")
        if len(g.operations) > MAX_DRAWN_OPERATIONS:
            body.append(
                f"<p>The main graph has {len(g.operations)} operations, more than the "
                f"{MAX_DRAWN_OPERATIONS} this page draws.</p>"
            )
        else:
            flagged = flagged_operations(report)
            named = sorted(op.label for op in g.operations if op.label in flagged)
            body.append(
                "<p>Layers by topological depth. Operations named in the witness of a violated rule are red "
                "(error) or orange (warning)"
                + (f": {escape(', '.join(named))}." if named else "; there are none.")
                + " Hover over a box for its full name.</p>"
            )
            body.append(graph_svg(g, flagged))
    if report.crosscheck is not None:
        body.append(_crosscheck_section(report.crosscheck, header.docs_url))
    if report.obligations:
        body.append("<h2>SMT obligations</h2>")
        body.append(
            _table(
                ["obligation", "rule", "logic", "mode", "holds when", "z3 answer"],
                (
                    [
                        escape(ob.name),
                        rule_ref(ob.rule_id, header.docs_url),
                        escape(ob.logic),
                        escape(ob.mode),
                        escape(ob.holds_when),
                        escape(ob.answer or "not solved"),
                    ]
                    for ob in report.obligations
                ),
            )
        )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>sonnx evidence: {escape(header.model_file)}</title><style>{STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _crosscheck_section(cc: CrossCheckReport, docs_url: str | None) -> str:
    parts = ["<h2>Cross-checks</h2>"]
    source = f"inputs from {cc.inputs_file}" if cc.inputs_file else f"random inputs drawn with seed {cc.seed}"
    parts.append(
        f"<p>NumPy executor against {counted(len(cc.results), 'oracle')}, {escape(source)}. Outcome: "
        f"{_status_cell(cc.outcome, '')}.</p>"
    )
    if cc.subject_error is not None:
        parts.append(f"<p class='VIOLATED'>The NumPy executor failed: {escape(cc.subject_error)}</p>")
    for m in cc.declared_misfits:  # a warning: no runtime holds an output to its declaration
        parts.append(f"<p>Warning: NumPy executor: {escape(m.line())}</p>")
    rows = []
    for r in cc.results:
        notes = [*(r.run.notes), *(f"known defect: {d.why}" for d in r.known_defects)]
        notes += [f"warning: {m.line()}" for m in r.declared_misfits]
        if r.run.message:
            notes.insert(0, f"{r.run.status}: {r.run.message}")
        rows.append(
            [
                escape(r.run.name),
                escape(r.run.version or "n/a"),
                _status_cell(r.outcome, ""),
                "<br>".join(text_with_links(n, docs_url) for n in notes),
            ]
        )
    parts.append(_table(["oracle", "version", "outcome", "notes"], rows))
    outputs: dict[str, list[tuple[str, Any]]] = {}
    for r in cc.results:
        for name, comp in r.comparisons.items():
            outputs.setdefault(name, []).append((r.run.name, comp))
    for name, comps in outputs.items():
        parts.append(f"<h3>Output <code>{escape(name)}</code></h3>")
        if name in cc.steps:
            parts.append(f"<p>Tolerance in quantization steps: {escape(cc.steps[name].describe())}</p>")
        parts.append(error_chart(name, comps))
        parts.append(
            _table(
                ["oracle", "max abs", "max rel", "max ulp", "outside", "worst indices"],
                (
                    [
                        escape(o),
                        escape(_num(x.max_abs)),
                        escape(_num(x.max_rel)),
                        escape(str(x.max_ulp)),
                        f"{x.outside}/{x.elements}",
                        escape(", ".join(str(list(w.index)) for w in x.worst)),
                    ]
                    for o, x in comps
                ),
            )
        )
    return "\n".join(parts)


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3g}"
