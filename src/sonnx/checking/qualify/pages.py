"""The kit's documents as HTML pages: one self-contained page per JSON document, every value escaped.

The pages say what the JSON documents say, for a reader without tools; the
JSON documents are the data of record.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any

STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
    "td,th{border:1px solid #999;padding:.3em;vertical-align:top;text-align:left}"
    ".PASSED,.VERIFIED{color:#060}.FAILED{color:#a00}.NOT-RUN,.NOT-COVERED{color:#a60}"
)


def _e(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return html.escape(text, quote=True)


def _status(value: str) -> str:
    return f'<span class="{_e(value.replace(" ", "-"))}">{_e(value)}</span>'


def table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table whose cells are already HTML."""
    out = ["<table>", "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows]
    out.append("</table>")
    return "\n".join(out)


def page(title: str, intro: str, body: str) -> str:
    """A whole HTML page."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{_e(title)}</title>\n'
        f"<style>{STYLE}</style>\n</head>\n<body>\n<h1>{_e(title)}</h1>\n<p>{_e(intro)}</p>\n{body}\n</body>\n</html>\n"
    )


def requirements_page(doc: dict[str, Any]) -> str:
    rows = [[_e(r["id"]), _e(r["title"]), _e(r["text"]), _e(r["source"])] for r in doc["requirements"]]
    return page("Tool operational requirements", "What sonnx-check must do, one requirement per rule of the spec and "
                "per behaviour of the tool.", table(["ID", "Title", "Requirement", "Derived from"], rows))


def procedures_page(doc: dict[str, Any]) -> str:
    rows = []
    for c in doc["cases"]:
        actual = c["actual"].get("exit_code", "")
        notes = c.get("not_run_reason") or "; ".join(c["differences"])
        rows.append([_e(c["id"]), _e(c["title"]), _e(c["model"]), _e(c["profile"]), _e(", ".join(c["tors"])),
                     _e(c["expected"]), _e(actual), _status(c["status"]), _e(notes)])
    head = ["Case", "Procedure", "Model", "Profile", "TORs", "Expected", "Actual exit", "Result", "Differences"]
    return page(f"Test procedures and results ({doc['suite']} suite)", "Each case with its expected verdicts and "
                "exit code, the actual result in this environment, and every difference.", table(head, rows))


def _pairs(value: dict[str, Any], prefix: str = "") -> list[list[str]]:
    rows: list[list[str]] = []
    for key, item in value.items():
        if isinstance(item, dict):
            rows += _pairs(item, f"{prefix}{key}.")
        else:
            rows.append([_e(f"{prefix}{key}"), _e("" if item is None else item)])
    return rows


def configuration_page(doc: dict[str, Any]) -> str:
    body = table(["Item", "Value"], _pairs({k: v for k, v in doc.items() if k != "schema"}))
    return page("Configuration index", "The exact build of sonnx, the interpreter, the libraries, the platform and "
                "the test inputs of this run.", body)


def known_problems_page(doc: dict[str, Any]) -> str:
    rows = [[_e(p["id"]), _e(p["kind"]), _e(p["title"]), _e(p["reason"]), _e(p["source"])] for p in doc["problems"]]
    return page("Known problems", "The documented deviations of the executor from onnx's test suites and the "
                "known limitations of the check, each with its reason.",
                table(["ID", "Kind", "Problem", "Reason", "Source"], rows))


def summary_page(doc: dict[str, Any]) -> str:
    counts = table(["", "Total", "Passed / verified", "Failed", "Not run", "Not covered"], [
        [_e("cases"), _e(doc["cases"]["total"]), _e(doc["cases"]["PASSED"]), _e(doc["cases"]["FAILED"]),
         _e(doc["cases"]["NOT RUN"]), ""],
        [_e("TORs"), _e(doc["tors"]["total"]), _e(doc["tors"]["VERIFIED"]), _e(doc["tors"]["FAILED"]),
         _e(doc["tors"]["NOT RUN"]), _e(doc["tors"]["NOT COVERED"])],
    ])
    tors = table(["TOR", "Status", "Cases", "Why"], [
        [_e(t["id"]), _status(t["status"]), _e(", ".join(t["cases"])), _e(t["why"])] for t in doc["tor_status"]
    ])
    body = (f"<p><strong>Conclusion:</strong> {_e(doc['conclusion'])} (exit {_e(doc['exit_code'])}; "
            f"{_e(doc['suite'])} suite, {_e(doc['generated_at'])})</p>\n{counts}\n<h2>TORs</h2>\n{tors}")
    return page("Accomplishment summary", "What the qualification suite established in this environment. This is "
                "an applicant's tool qualification data, not a qualification.", body)
