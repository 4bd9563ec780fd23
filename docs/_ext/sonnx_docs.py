"""Build-time generation of the documentation pages that come from the code.

At ``config-inited`` (before the builder starts and before any source is read) this extension writes
``docs/_generated/``:

* ``catalogue.rst``: the requirement catalogue, one sphinx-needs ``rule`` per
  entry of :data:`sonnx.rules.RULES` and one ``thm`` per theorem of
  ``proofs/registry.py``, with the traceability of ``tools.traceability``;
* ``rules.rst``: the table of rules;
* ``wg_coverage.rst``: the working group's statements and requirements against sonnx's rules, theorems and tests,
  the ID clashes, and the default operator set of sonnx-strict with its mappings (from the package data files
  ``wg_traceability.json`` and ``strict_operators.json``);
* ``wg_operator_coverage.rst``: every tagged statement of the working group's operator specifications and how
  sonnx covers it (``tools.wg_operator_coverage``);
* ``proofs.rst``: the theorems, proved again during this build or read from the
  record of a run of the very same inputs (``proofs/_record.py``), with every
  obligation's outcome (a FAILED theorem is also a build warning, so ``-W``
  stops the build rather than publish it quietly);
* ``conformance.rst``: the operators of :data:`sonnx.ops.REGISTRY` with their
  schema versions, and the recorded conformance deviations;
* ``cli.rst``: the ``--help`` text of every command, from the real parsers;
* ``export/traceability.json`` and ``export/proofs.json``: machine-readable
  exports, copied to the root of the HTML output (``html_extra_path``), next
  to sphinx-needs' ``needs.json``.

Generation is deterministic for a given tree: no timestamps, sorted inputs.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOG = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
OUT = DOCS / "_generated"
PROOF_RECORDS = ROOT / "build" / "proofs-verified"
"""Records of runs of every theorem module, by the digest of their inputs (``proofs/_record.py``)."""
EXPORTS = "../"
"""From a generated page to the site root, where ``html_extra_path`` puts the machine-readable exports."""

_SPECIAL = "\\*`|_[]"


def esc(text: str) -> str:
    """Escape inline reStructuredText markup so ``text`` renders literally."""
    return "".join("\\" + c if c in _SPECIAL else c for c in " ".join(text.split()))


def indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + line if line.strip() else "" for line in text.splitlines())


def paragraphs(text: str, n: int) -> str:
    """A rule text of :mod:`sonnx.rules.texts` (paragraphs, list items ``- ``) as reST, indented by ``n``."""
    out = []
    for para in text.split("\n\n"):
        lines = para.split("\n")
        out.append("\n".join(("* " + esc(ln[2:])) if ln.startswith("- ") else esc(ln) for ln in lines))
    return indent("\n\n".join(out), n) + "\n"


def tests_by_file(tests: Sequence[str], n: int) -> str:
    """A rule's tests (pytest node IDs ``path::test``) by name, one line per test file, indented by ``n``."""
    files: dict[str, list[str]] = {}
    for t in tests:
        path, _, name = t.partition("::")
        files.setdefault(path, []).append(name)
    if not files:
        return indent("* Tests: **none**", n)
    lines = [f"* Tests ({len(tests)}, in {len(files)} file{'s' if len(files) > 1 else ''}):", ""]
    for path, names in files.items():
        lines.append(f"  * ``{path}``: " + ", ".join(f"``{name}``" for name in names))
    return indent("\n".join(lines), n) + "\n"


def title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def literal(text: str, n: int = 0) -> str:
    """A plain-text block holding ``text`` verbatim, indented by ``n`` (tool output: never highlighted as code)."""
    return indent(".. code-block:: text", n) + "\n\n" + indent(text.rstrip("\n"), n + 3) + "\n"


def list_table(header: Sequence[str], rows: Iterable[Sequence[str]], widths: Sequence[int] | None = None) -> str:
    lines = [".. list-table::", "   :header-rows: 1"]
    if widths:
        lines.append("   :widths: " + " ".join(str(w) for w in widths))
    lines.append("")
    for row in [list(header), *[list(r) for r in rows]]:
        for k, cell in enumerate(row):
            lines.append(("   * - " if k == 0 else "     - ") + (cell or "\\-"))
    return "\n".join(lines) + "\n"


def write(rel: str, text: str) -> None:
    path = OUT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- proofs


def run_proofs() -> list[dict[str, Any]]:
    """Every theorem module's result and printed report: recorded for these inputs, else run now.

    A run of all the theorems in one process keeps them under the digest of its inputs
    (``proofs/_record.py``; the test suite's run in registry order, ``make pytest``, leaves one in
    :data:`PROOF_RECORDS`); without a record of this tree's inputs the theorems are run here, in the same
    order, and recorded.
    """
    from proofs import _kit, _record
    from proofs.registry import MODULES, passes_by_theorem

    record = PROOF_RECORDS / f"{_record.inputs_digest()}.json"
    kept = _record.recall(record, MODULES)
    if kept is None:
        kept = {}
        for name in MODULES:
            theorem = importlib.import_module(f"proofs.{name}")
            res = theorem.check()
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                _kit.report(res, theorem.THEOREM)
            kept[name] = {"result": _kit.result_record(res), "report": buf.getvalue()}
        _record.remember(record, kept)
    else:
        LOG.info("theorems: the results of a run of the same inputs (%s)", record.name[:12])
    results: list[dict[str, Any]] = []
    proves = passes_by_theorem()
    for name in MODULES:
        mod = importlib.import_module(f"proofs.{name}")
        res = kept[name]["result"]
        obligations = [o for o in res["outcomes"] if o.get("obligation")]
        results.append(
            {
                "id": mod.ID,
                "title": mod.TITLE,
                "module": f"proofs/{name}.py",
                "supports": list(mod.SUPPORTS),
                "pass": proves.get(name, ""),
                "statement": mod.THEOREM.strip(),
                "result": _short_verdict(res["proved"], len(res["review_items"])),
                "review_items": list(res["review_items"]),
                "proved_in_coq": list(res["proved_in_coq"]),
                "evidence": [sum(1 for o in obligations if o.get("evidence")), len(obligations)],
                "outcomes": [
                    {
                        "name": o["name"],
                        "ok": o["ok"],
                        "detail": o["detail"],
                        "evidence": o["evidence"],
                        "rests_on": list(o["rests_on"]),
                    }
                    for o in res["outcomes"]
                ],
                "report": kept[name]["report"],
            }
        )
        if not res["proved"]:
            LOG.warning("theorem %s (%s) FAILED; see the proof results page", mod.ID, mod.TITLE)
    return results


def _short_verdict(proved: bool, review_items: int) -> str:
    """FAILED, PROVED, or "PROVED, resting on N review items" (steps z3 did not check; listed in the report)."""
    if not proved:
        return "FAILED"
    if not review_items:
        return "PROVED"
    return f"PROVED, resting on {review_items} review item{'s' if review_items > 1 else ''}"


def _justifies(r: dict[str, Any]) -> str:
    """The rules a theorem supports, or the rewrite pass it proves sound."""
    if r["supports"]:
        return ", ".join(f":ref:`{s}`" for s in r["supports"])
    return f"pass ``{r['pass']}`` of ``sonnx rewrite`` (:doc:`/rewrite`)"


def need_id(theorem_id: str) -> str:
    return "THM-" + theorem_id.upper().replace("_", "-")


def proofs_page(results: list[dict[str, Any]]) -> str:
    parts = [".. _proof-results:\n", title("Proof results")]
    parts.append(
        "Every theorem of ``proofs/`` was run in one process for this very tree: while this page was built, "
        "or by the test suite's run of the same inputs (the SHA-256 of the ``proofs`` and ``sonnx`` packages' "
        "files and of the installed library versions), whose record the build then reads. The verdict below "
        "is the one obtained in that run (z3 with a fixed seed and resource limit; ``unknown`` counts as FAILED). "
        "The statement is the module's ``THEOREM`` text: it says exactly what is machine-checked, what is "
        "bounded, and which step is cited or meta-level. A result \"PROVED, resting on N review items\" "
        "depends on N steps z3 did not check (hand-written axioms or induction instances, which z3 takes as "
        "given, cited lemmas, prose arguments): each is listed under the theorem's report as a review item. "
        "Outcomes marked \"not evidence\" are checked but hold by construction of the model, or are "
        "counterexamples motivating a precondition. A step a Coq theorem proves is not a review item: the "
        "report cites the theorem (\"proved in Coq\"), and :ref:`coq-theorems` below lists every Coq theorem "
        "with its assumptions, checked again for this build. The same data is exported as "
        f"`proofs.json <{EXPORTS}proofs.json>`_.\n"
    )
    parts.append(
        list_table(
            ["Theorem", "Module", "Justifies", "Result"],
            (
                [f":need:`{need_id(r['id'])}`", f"``{r['module']}``", _justifies(r), f"**{r['result']}**"]
                for r in results
            ),
            [30, 25, 30, 15],
        )
    )
    for r in results:
        parts.append("\n" + title(f"{r['title']} ({r['id']})", "-"))
        parts.append(f"Result: **{r['result']}**. Run ``python {r['module']}`` to reproduce.\n")
        parts.append("Output of the run:\n")
        parts.append(literal(r["report"]))
    # Written by the coq_docs extension, which runs the Coq check when coqc is present.
    parts.append("\n.. include:: coq_theorems.inc\n")
    return "\n".join(parts)


# --------------------------------------------------------------------------- catalogue and rules


def catalogue_page(trace: dict[str, Any], results: list[dict[str, Any]]) -> str:
    by_id = {r["id"]: r for r in results}
    parts = [".. _catalogue:\n", title("Requirement catalogue")]
    parts.append(
        "Generated at build time from the rule registry (``sonnx.rules.RULES``) by "
        "``tools.traceability``; nothing here is written by hand. Each rule links to its spec entry, its "
        "direct check, its SMT encoding, the tests marked with its ID (``@pytest.mark.rule``), listed by name, and "
        "the theorems that support it. Its title, statement and rationale are the words of its spec entry "
        "(``tools.rule_texts``). "
        f"Machine-readable exports: `traceability.json <{EXPORTS}traceability.json>`_ (the matrix) and "
        f"`needs.json <{EXPORTS}needs.json>`_ (sphinx-needs). Conventions: :doc:`../traceability`.\n"
    )
    if trace["problems"]:
        parts.append(".. warning::\n\n" + indent("\n".join(f"* {esc(p)}" for p in trace["problems"]), 3) + "\n")
    clashes = [c for c in trace["working_group"]["clashes"] if c["sonnx"] != "-"]
    parts.append(
        ".. note::\n\n   Each rule also names the SONNX working group's label or requirement that it implements, "
        "with the commit of the text it was read from (coverage of the group's texts: :ref:`wg-coverage`). "
        "Where the IDs clash:\n\n"
        + "\n".join(f"   * the group's {esc(c['group'])} and sonnx's :ref:`{c['sonnx']}`: {esc(c['note'])}"
                    for c in clashes) + "\n"
    )
    parts.append(
        list_table(
            ["Rule", "Check", "SMT encoding", "Theorems"],
            (
                [
                    f":need:`{row['id']}`",
                    f"``{row['check_module']}``",
                    f"``{row['smt_module']}``" if row["smt_module"] else esc(row["smt_note"]),
                    ", ".join(f":need:`{need_id(t['id'])}`" for t in row["theorems"]) or "none",
                ]
                for row in trace["rules"]
            ),
            [20, 25, 25, 30],
        )
    )
    if trace["smt_only"]:
        parts.append(
            "Rule IDs that only the SMT engine reports (declared in ``src/sonnx/smt`` but not in the registry, "
            "so not in this catalogue): " + ", ".join(f"``{i}``" for i in trace["smt_only"]) + ".\n"
        )
    parts.append("\n" + title("Rules", "-"))
    for row in trace["rules"]:
        spec = row["spec"]
        links = ", ".join(need_id(t["id"]) for t in row["theorems"])
        parts.append(f".. rule:: {esc(row['title'])}")
        parts.append(f"   :id: {row['id']}")
        parts.append(f"   :severity: {severity_text(row)}")
        parts.append(f"   :profile: {row['profile']}")
        parts.append(f"   :check: {row['check_module']}")
        parts.append(f"   :smt: {row['smt_module'] or row['smt_note']}")
        parts.append(f"   :tests: {', '.join(row['tests']) or 'none'}")
        parts.append(f"   :spec: {spec['file'] + ':' + str(spec['line']) if spec else 'missing'}")
        if links:
            parts.append(f"   :links: {links}")
        parts.append("")
        parts.append(paragraphs(row["statement"], 3))
        if row["rationale"]:
            parts.append("   *Rationale (non-normative):*\n")
            parts.append(paragraphs(row["rationale"], 3))
        else:
            parts.append("   *Rationale:* **none given in the spec**\n")
        parts.append(f"   * Spec: :ref:`{row['id']}` (``{spec['file']}``, line {spec['line']})" if spec else
                     "   * Spec: **missing**")
        parts.append(f"   * Check: ``{row['check_file']}`` (``{row['check_module']}``)")
        smt = f"``{row['smt_module']}`` ({esc(row['smt_note'])})" if row["smt_module"] else esc(row["smt_note"])
        parts.append(f"   * SMT encoding: {smt}")
        parts.append(tests_by_file(row["tests"], 3))
        if row["listing_tests"]:
            parts.append("   * Also listed by: " + ", ".join(f"``{t}``" for t in row["listing_tests"]))
        thms = ", ".join(
            f":need:`{need_id(t['id'])}` ({by_id[t['id']]['result'] if t['id'] in by_id else 'not run'})"
            for t in row["theorems"]
        )
        parts.append(f"   * Theorems: {thms or 'none'}")
        parts.append(f"   * Working group: {wg_labels(row['wg'])}")
        parts.append("")
    parts.append("\n" + title("Theorems", "-"))
    for r in results:
        parts.append(f".. thm:: {esc(r['title'])}")
        parts.append(f"   :id: {need_id(r['id'])}")
        parts.append(f"   :module: {r['module']}")
        parts.append(f"   :result: {r['result']}")
        parts.append("")
        parts.append(f"   Justifies {_justifies(r)}. "
                     f"Result of this build: **{r['result']}** (:ref:`proof-results`).")
        parts.append("")
        parts.append(literal(r["statement"], 3))
    return "\n".join(parts)


def wg_labels(wg: dict[str, Any]) -> str:
    """A rule's labels in the working group's texts, each with the text and the commit it was read from."""
    if not wg.get("labels"):
        return esc(wg.get("none") or "no entry")
    out = []
    for lab in wg["labels"]:
        part = f", {esc(lab['part'])}" if lab.get("part") else ""
        where = f"``{lab['path'].rsplit('/', 1)[-1]}`` at ``{lab['commit'][:7]}``" if lab.get("commit") else esc(
            lab.get("path", ""))
        out.append(f"{esc(lab['label'])} ({where}{part})")
    return "; ".join(out)


def _covered_by(ref: dict[str, str]) -> str:
    kind, value = next(iter(ref.items()))
    if kind == "rule":
        return f":ref:`{value}`"
    if kind == "theorem":
        return f":need:`{need_id(value)}`"
    if kind == "spec":
        return f":ref:`{value}`"
    return f"test ``{value}``"


def wg_page(trace: dict[str, Any]) -> str:
    from sonnx.rules.strict_operators import operator_set_data

    wg = trace["working_group"]
    parts = [".. _wg-coverage:\n", title("The working group's texts: coverage")]
    parts.append(
        "Generated at build time from the package data file ``src/sonnx/data/wg_traceability.json`` (hand-written; "
        "``tools.wg_coverage`` checks that every rule, theorem, test and spec label it names exists, and a test fails "
        "otherwise). It maps every labelled statement of the SONNX working group's graph text and every requirement "
        "of its requirement list that concerns graphs, serialization or tools to what covers it in sonnx: "
        "**covers**, **partly** or **not**. Every reading that differs from the group's text is listed, with its "
        "reason, in :ref:`wg-differences`.\n"
    )
    parts.append(title("Sources", "-"))
    parts.append(list_table(
        ["Key", "Text", "Path", "Commit"],
        ([f"``{k}``", esc(v["title"]), f"``{v['path']}``" if v["commit"] else esc(v["path"]),
          f"``{v['commit']}`` ({v['date']})" if v["commit"] else "\\-"]
         for k, v in wg["sources"].items()),
        [12, 25, 40, 23],
    ))
    parts.append(title("Coverage", "-"))
    counts = {c: sum(1 for r in wg["coverage"] if r["coverage"] == c) for c in ("covers", "partly", "not")}
    parts.append(f"{len(wg['coverage'])} statements: {counts['covers']} covered, {counts['partly']} partly, "
                 f"{counts['not']} not covered.\n")
    parts.append(list_table(
        ["Source", "Label", "Statement (in sonnx's words)", "Coverage", "Covered by", "Note"],
        ([f"``{r['source']}``", esc(r["label"]), esc(r["topic"]), f"**{r['coverage']}**",
          ", ".join(_covered_by(b) for b in r["by"]) or "\\-", esc(r.get("note", ""))]
         for r in wg["coverage"]),
        [9, 12, 26, 10, 24, 19],
    ))
    parts.append(title("ID clashes", "-"))
    parts.append(list_table(["Group's ID", "sonnx", "Note"],
                            ([esc(c["group"]), esc(c["sonnx"]), esc(c["note"])] for c in wg["clashes"]), [20, 20, 60]))
    ops = operator_set_data()
    src = ops["source"]
    parts.append(".. _wg-operator-set:\n")
    parts.append(title("The default operator set of sonnx-strict", "-"))
    parts.append(
        f"The list of {esc(src['requirement'])} (``{src['path']}`` at ``{src['commit'][:7]}``), read from "
        "``src/sonnx/data/strict_operators.json``: each listed name and the ONNX operators (default domain) it "
        "stands for. ``--operators`` replaces the set. Excluded from every set: "
        + esc(ops["excluded"]["reason"]) + "\n"
    )
    parts.append(list_table(
        ["Listed by the group", "ONNX operators", "Reason for the mapping"],
        ([esc(e["listed"]), ", ".join(f"``{o}``" for o in e["onnx"]), esc(e.get("reason", "same name"))]
         for e in ops["operators"]),
        [25, 25, 50],
    ))
    spec = ops["specified"]
    at = spec["source"]["commit"][:7]
    added = ", ".join(f"``{e['onnx']}`` (``{e['path']}`` at ``{at}``)" for e in spec["operators"])
    parts.append("\nAdded to the list: " + esc(spec["reason"]) + " " + added + ".\n")
    return "\n".join(parts)


def severity_text(row: dict[str, Any]) -> str:
    """A rule's severity as the tables show it: ``warning``, or ``warning; error in sonnx-strict``."""
    strict = row.get("strict_severity")
    return f"{row['severity']}; {strict} in sonnx-strict" if strict else row["severity"]


def rules_page(trace: dict[str, Any]) -> str:
    parts = [".. _rules-table:\n", title("Table of rules")]
    parts.append(
        "Generated from ``sonnx.rules.RULES``, in report order (the order of ``sonnx rules``). Each title is the "
        "title of the rule's heading in the spec, and its ID links to the spec entry, which holds the one "
        "statement of the rule (also in the :ref:`catalogue` and in ``sonnx rules RULE-ID``).\n"
    )
    parts.append(
        list_table(
            ["ID", "Section", "Severity", "Profile", "Title"],
            (
                [f":ref:`{r['id']} <{r['id']}>`", r["section"], severity_text(r), r["profile"], esc(r["title"])]
                for r in trace["rules"]
            ),
            [26, 10, 18, 14, 32],
        )
    )
    return "\n".join(parts)


# --------------------------------------------------------------------------- determinism table


def determinism_page() -> str:
    """GRAPH-R2's table and the reviewed open points, as the spec shows them (generated: they cannot drift)."""
    from sonnx.rules import determinism_review as review
    from sonnx.rules import determinism_table as table

    def versions(e: Any) -> str:
        if e.last is None:
            return f"{e.first} and later"
        return f"{e.first}" if e.first == e.last else f"{e.first} to {e.last}"

    def rows(entries: Iterable[Any], with_condition: bool) -> list[list[str]]:
        out = []
        for e in entries:
            row = [f"{e.domain or 'ai.onnx'}::{e.operator}", versions(e)]
            if with_condition:
                row.append({table.ALWAYS: "always", table.NEVER: "never"}.get(e.condition, e.condition))
            row.append(esc(e.reason))
            out.append(row)
        return out

    parts = [
        "Operators that are nondeterministic, always or under a condition (``sonnx.rules.determinism_table.TABLE``); "
        "every operator of the known domains not listed is deterministic:\n",
        list_table(["Operator", "Schema versions", "Nondeterministic when", "Reason"], rows(table.TABLE, True),
                   [22, 14, 24, 40]),
        "\nOpen points of the operator texts that cannot make outputs vary "
        "(``sonnx.rules.determinism_table.REVIEWED``):\n",
        list_table(["Operator", "Schema versions", "Why deterministic"], rows(table.REVIEWED, False), [22, 14, 64]),
        "\nWords of the operator texts that leave nothing open "
        "(``sonnx.rules.determinism_review.WORDING``):\n",
        list_table(["Operator", "Schema versions", "Why nothing is open"], rows(review.WORDING, False), [22, 14, 64]),
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------- conformance


def conformance_page() -> str:
    from sonnx.ops import REGISTRY

    parts = [".. _conformance:\n", title("Operator conformance")]
    parts.append(
        "Generated from ``sonnx.ops.REGISTRY`` (the NumPy kernels of the executor) and from the deviation "
        "lists of the conformance tests. A kernel declares the ONNX schema versions (``since_version``) it "
        "implements; an operator version no kernel declares is refused, never approximated.\n"
    )
    versions: dict[tuple[str, str], list[int]] = {}
    for domain, op, since in REGISTRY.entries():
        versions.setdefault((domain, op), []).append(since)
    parts.append(scoreboard_section())
    parts.append("\n" + title("Kernels", "-"))
    parts.append(f"{len(versions)} operators, {len(REGISTRY.entries())} schema versions.\n")
    parts.append(
        list_table(
            ["Domain", "Operator", "Schema versions (since_version)"],
            ([d or "ai.onnx", op, ", ".join(str(v) for v in sorted(vs))] for (d, op), vs in sorted(versions.items())),
            [20, 30, 50],
        )
    )
    parts.append("\n" + title("Deviations", "-"))
    parts.append(
        "What sonnx knowingly does not reproduce of onnx's backend suites (``tests/conformance/deviations.py``, "
        "applied by ``tests/conformance/test_backend_suite.py``). A deviation is a strict expected failure: a case "
        "that starts passing fails the suite until its entry is removed. A refusal must fail with the stated "
        "message.\n"
    )
    from tests.conformance import deviations as dev

    tables = (
        ("Deviations", {k: v for k, v in dev.DEVIATIONS.items()}, "Case"),
        ("Refusals", {k: f"{r} (message: {m})" for k, (m, r) in dev.REFUSALS.items()}, "Case"),
        ("Operators without a kernel", dev.LEFT_OUT, "Operator"),
        ("Operators no node case uses", dev.NO_NODE_CASES, "Operator"),
    )
    for name, data, key in tables:
        parts.append(f"**{name}** ({len(data)})\n")
        if data:
            parts.append(list_table([key, "Reason"], ([esc(k), esc(v)] for k, v in sorted(data.items())), [35, 65]))
        parts.append("")
    return "\n".join(parts)


def scoreboard_section() -> str:
    """The BackendTest scoreboard of ``docs/conformance_scoreboard.json`` (benchmarks/backend_scoreboard.py)."""
    board = json.loads((DOCS / "conformance_scoreboard.json").read_text(encoding="utf-8"))
    names = list(board["backends"])
    suites = sorted(board["backends"][names[0]]["suites"])
    rows = []
    for suite in suites:
        first = board["backends"][names[0]]["suites"][suite]
        passed = [str(board["backends"][n]["suites"][suite]["passed"]) for n in names]
        rows.append([suite, str(first["cases"]), *passed])
    parts = [
        "\n" + title("Scoreboard: onnx's BackendTest", "-"),
        "onnx's own ``BackendTest`` against ``sonnx.execution.backend`` and against onnx's reference evaluator, "
        f"in one run "
        f"(onnx {board['onnx']}, numpy {board['numpy']}, python {board['python']}, {board['date']}; command: "
        f"``python benchmarks/backend_scoreboard.py --json docs/conformance_scoreboard.json``). Raw counts: a case "
        f"passes when the backend's outputs match within the case's tolerances; a test checks that sonnx fails "
        f"exactly the cases listed below.\n",
        list_table(["Suite", "Cases"] + [f"{n} passed" for n in names], rows),
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------- CLI


def _capture(fn: Any, argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            fn(argv, out, err)
        except SystemExit:
            pass
    return out.getvalue() + err.getvalue()


def cli_page() -> str:
    from sonnx import cli

    os.environ["COLUMNS"] = "88"  # fits the content area of a 1280-pixel window without wrapping
    parts = [".. _cli-reference:\n", title("Command-line reference")]
    parts.append(
        "The help texts below are produced during the build by the argument parsers of ``sonnx.cli`` "
        "(the same code the commands run). Exit codes of every checking command: 0 every rule of the profile "
        "holds (warnings may be printed), 1 a rule of error severity is violated, 2 unusable input, wrong "
        "option, UNKNOWN verdict or tool failure (never a pass). ``sonnx batch`` exits with the largest code of "
        "its models. ``--format sarif``, ``--sarif`` and ``--junit`` are described in :ref:`integration`.\n"
    )
    commands = (
        ("sonnx-check", cli.check_main, ["--help"]),
        ("sonnx", cli.main, ["--help"]),
        ("sonnx check", cli.main, ["check", "--help"]),
        ("sonnx batch", cli.main, ["batch", "--help"]),
        ("sonnx run", cli.main, ["run", "--help"]),
        ("sonnx crosscheck", cli.main, ["crosscheck", "--help"]),
        ("sonnx evidence verify", cli.main, ["evidence", "verify", "--help"]),
        ("sonnx rewrite", cli.main, ["rewrite", "--help"]),
        ("sonnx equiv", cli.main, ["equiv", "--help"]),
        ("sonnx partition", cli.main, ["partition", "--help"]),
        ("sonnx rules", cli.main, ["rules", "--help"]),
    )
    for name, fn, argv in commands:
        parts.append("\n" + title(f"``{name}``", "-"))
        parts.append(literal(_capture(fn, argv)))
    parts.append("\n" + title("``sonnx rules`` output", "-"))
    parts.append(literal(_capture(cli.main, ["rules"])))
    return "\n".join(parts)


# --------------------------------------------------------------------------- entry point


def generate(app: Sphinx, config: Any = None) -> None:
    from tools import traceability, wg_operator_coverage

    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "export").mkdir(parents=True)
    trace = traceability.matrix(ROOT)
    for p in trace["problems"]:
        LOG.warning("traceability: %s", p)
    results = run_proofs()
    write("catalogue.rst", catalogue_page(trace, results))
    write("rules.rst", rules_page(trace))
    write("wg_coverage.rst", wg_page(trace))
    write("wg_operator_coverage.rst", wg_operator_coverage.page(ROOT))
    for p in wg_operator_coverage.problems(ROOT, [r["id"] for r in trace["rules"]]):
        LOG.warning("operator coverage: %s", p)
    write("proofs.rst", proofs_page(results))
    write("conformance.rst", conformance_page())
    write("cli.rst", cli_page())
    write("determinism.rst", determinism_page())
    write("export/traceability.json", json.dumps(trace, indent=2, sort_keys=True) + "\n")
    export = [{k: v for k, v in r.items() if k != "report"} for r in results]
    write("export/proofs.json", json.dumps(export, indent=2, sort_keys=True) + "\n")


def setup(app: Sphinx) -> dict[str, Any]:
    # config-inited: before the HTML builder checks html_extra_path and before any source is read.
    app.connect("config-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
