"""Every byte of an evidence bundle, as a pure function of a check's report: shared by the writer and the verifier.

``sonnx-check --evidence`` renders the bundle's files from its report;
``sonnx evidence verify`` re-runs the check on the bundled model and renders
them again with the same functions, then compares byte for byte. What the
verifier cannot re-derive is passed in, never read back from the bundle's own
generated files: the recording build and the creation date (taken as the
manifest states them, and compared with the replaying build by the verifier).

**Paths.** A check names the model by the path it was given, in the report and
in error messages. A bundle names it by its place in the bundle
(``model/<file>``, ``inputs/<file>``), so that the same check run from a copy
of the bundle renders the same bytes: :class:`Relabel` replaces the absolute
path of every copied file (the model, its external data, the inputs file)
and the model's folder with those bundle paths in every generated text file.
The check must therefore be run on absolute paths (:func:`bundle_paths`).
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from ...loader.external import external_locations
from ...smt import Obligation
from ..options import CheckOptions
from ..report import ModelReport, json_counts, json_report
from .execution import run_record
from .html import PageHeader, render_html

SCHEMA = "sonnx-evidence/2"
MANIFEST = "manifest.json"
MODEL_DIR = "model"
INPUTS_DIR = "inputs"
WAIVERS_DIR = "waivers"
DECLARATIONS_DIR = "declarations"
SMT_DIR = "smt"
TRACEABILITY = "traceability.json"
"""The package data file holding the spec version and the traceability matrix of this release.

The matrix is built from a source checkout (spec pages, tests, theorems), so it
is generated into the package (``make traceability``) rather than computed by
an installed copy that has no checkout; a test keeps the file current."""

GENERATED = ("verdicts.json", f"{SMT_DIR}/answers.json", "execution.json", "crosscheck.json", TRACEABILITY,
             "report.html")
"""The generated files every bundle has, besides the obligation files ``smt/NNN-<name>.smt2``."""


def dump_json(data: Any) -> str:
    """The bundle's one JSON style: two-space indent, keys in insertion order, UTF-8, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def packaged_traceability() -> dict[str, Any]:
    """The spec version and traceability matrix shipped with this copy of sonnx."""
    try:
        text = resources.files("sonnx.data").joinpath(TRACEABILITY).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError) as exc:
        return {"spec_version": None, "matrix": {"error": f"no packaged traceability matrix: {exc}"}}
    return {"spec_version": data.get("spec_version"), "matrix": data.get("matrix")}


def spec_version() -> str | None:
    """The version of the SONNX graph spec (spec/graph.rst) this copy of sonnx implements."""
    version = packaged_traceability()["spec_version"]
    return version if isinstance(version, str) else None


@dataclass(frozen=True)
class Relabel:
    """Replace absolute paths by bundle paths in generated text (see the module text).

    ``pairs`` maps each absolute path (a file, or a folder ending in ``/``) to
    its bundle path. A path is replaced only where it starts (not after a
    letter, a digit or a path character, so ``/a/`` inside ``main/a/loop``
    stays), the longest match first, and also in its JSON-escaped and
    HTML-escaped spellings.
    """

    pairs: tuple[tuple[str, str], ...]

    def apply(self, text: str) -> str:
        table: dict[str, str] = {}
        for old, new in self.pairs:
            for enc in (lambda s: s, lambda s: json.dumps(s, ensure_ascii=False)[1:-1], html.escape):
                table.setdefault(enc(old), enc(new))
        if not table:
            return text
        alternatives = "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
        pattern = re.compile(rf"(?<![\w.~/\\-])(?:{alternatives})")
        return pattern.sub(lambda m: table[m.group()], text)


def bundle_paths(subjects: Mapping[str, str]) -> Relabel:
    """The relabelling of a check into bundle paths: ``subjects`` maps each copied file's bundle path to the
    absolute path the check read it from (:func:`subject_files`); the model's folder is relabelled too."""
    pairs = [(os.path.abspath(src), rel) for rel, src in subjects.items()]
    model_src = next(src for rel, src in subjects.items() if rel.startswith(f"{MODEL_DIR}/"))
    folder = os.path.dirname(os.path.abspath(model_src))
    if folder != os.sep:
        pairs.append((folder + os.sep, f"{MODEL_DIR}/"))
    return Relabel(tuple(pairs))


def model_file(report: ModelReport) -> str:
    return f"{MODEL_DIR}/{Path(report.path).name}"


def subject_files(report: ModelReport, options: CheckOptions) -> dict[str, str]:
    """The files a bundle copies rather than generates, bundle path -> the checked file's path.

    The model, every external data file it loaded, the inputs file, the waivers file and the operator
    declarations file.
    """
    out = {model_file(report): report.path}
    if report.model is not None:
        folder = Path(report.path).parent
        for loc in external_locations(report.model, report.path):
            rel = f"{MODEL_DIR}/{loc}"
            if rel in out:
                raise ValueError(f"external data file {loc!r} has the model's own name")
            out[rel] = str(folder / loc)
    if options.inputs:
        out[f"{INPUTS_DIR}/{Path(options.inputs).name}"] = options.inputs
    if options.waivers:
        out[f"{WAIVERS_DIR}/{Path(options.waivers).name}"] = options.waivers
    if options.operator_declarations:
        out[f"{DECLARATIONS_DIR}/{Path(options.operator_declarations).name}"] = options.operator_declarations
    return out


def obligation_files(obligations: Sequence[Obligation]) -> list[tuple[str, Obligation]]:
    safe = re.compile(r"[^A-Za-z0-9_.-]+")
    return [(f"{SMT_DIR}/{k:03d}-{safe.sub('_', ob.name)}.smt2", ob) for k, ob in enumerate(obligations, 1)]


def obligation_entry(file: str, ob: Obligation) -> dict[str, Any]:
    return {
        "file": file,
        "rule": ob.rule_id,
        "name": ob.name,
        "logic": ob.logic,
        "mode": ob.mode,
        "meaning": ob.meaning,
        "holds_when": ob.holds_when,
        "answer": ob.answer or "not solved",
    }


def bundled_options(options: CheckOptions) -> CheckOptions:
    """The options as the bundle states them: the inputs and waivers files by their place in the bundle, no
    destination."""
    inputs = None if options.inputs is None else f"{INPUTS_DIR}/{Path(options.inputs).name}"
    waivers = None if options.waivers is None else f"{WAIVERS_DIR}/{Path(options.waivers).name}"
    decls = None if options.operator_declarations is None else (
        f"{DECLARATIONS_DIR}/{Path(options.operator_declarations).name}")
    return replace(
        options, inputs=inputs, waivers=waivers, operator_declarations=decls, evidence=None,
        evidence_timestamp=False, sign=None, docs_url=None, smt_dir=None, jobs=None,
    )


def generated_files(
    report: ModelReport,
    options: CheckOptions,
    relabel: Relabel,
    build: Mapping[str, Any],
    created: str | None,
    model_sha256: str,
    docs_url: str | None,
) -> dict[str, bytes]:
    """Every generated file of the bundle (not the copies, not the manifest), by bundle path.

    ``build``, ``created`` and ``docs_url`` are the manifest's (the page
    shows them, and links rule IDs to the site at ``docs_url``);
    ``model_sha256`` is the digest of the bundled model copy.
    """
    tool = str(build.get("sonnx"))
    text: dict[str, str] = {"verdicts.json": json_report([report], options.profile, report.exit_code, tool)}
    entries = []
    for name, ob in obligation_files(report.obligations):
        text[name] = ob.render()
        entries.append(obligation_entry(name, ob))
    solver = report.smt.to_json() if report.smt is not None else None
    text[f"{SMT_DIR}/answers.json"] = dump_json({"solver": solver or None, "obligations": entries})
    orders = report.verdict("EXEC-ORDERS")
    text["execution.json"] = dump_json(
        {
            "seed": options.seed,
            "inputs": options.recorded()["inputs"],
            "run": run_record(report.model, options.inputs, options.seed),
            "orders": {"requested": options.orders, "verdict": None if orders is None else orders.to_json()},
        }
    )
    text["crosscheck.json"] = dump_json(
        {
            "requested": list(options.oracles),
            "report": None if report.crosscheck is None else report.crosscheck.to_json(tool),
        }
    )
    text[TRACEABILITY] = dump_json(packaged_traceability())
    header = PageHeader(
        version=tool,
        commit=build.get("commit"),
        model_file=model_file(report),
        model_sha256=model_sha256,
        command_line=tuple(bundled_options(options).command_line(model_file(report))),
        created=created,
        spec_version=spec_version(),
        docs_url=docs_url,
    )
    text["report.html"] = render_html(report, options, header)
    return {rel: relabel.apply(content).encode("utf-8") for rel, content in text.items()}


def manifest_bytes(
    report: ModelReport,
    options: CheckOptions,
    hashes: Mapping[str, str],
    sizes: Mapping[str, int],
    build: Mapping[str, Any],
    created: str | None,
    docs_url: str | None,
) -> bytes:
    """The manifest: what the bundle is, what made it, and the SHA-256 of every other file (``hashes``)."""
    model_rel = model_file(report)
    externals = sorted(rel for rel in hashes if rel.startswith(f"{MODEL_DIR}/") and rel != model_rel)
    manifest = {
        "schema": SCHEMA,
        "created": created,
        "build": dict(build),
        "command_line": bundled_options(options).command_line(model_rel),
        "options": options.recorded(),
        "z3": None if report.smt is None else report.smt.to_json(),
        "spec_version": spec_version(),
        "docs_url": docs_url,
        "model": {
            "file": model_rel,
            "sha256": hashes[model_rel],
            "size": sizes[model_rel],
            "loaded": report.error is None,
            "external_data": [
                {"file": rel, "sha256": hashes[rel], "size": sizes[rel]} for rel in externals
            ],
        },
        "result": {"outcome": report.outcome.value, "exit_code": report.exit_code, "counts": json_counts(report)},
        "files": {rel: hashes[rel] for rel in sorted(hashes)},
    }
    return dump_json(manifest).encode("utf-8")
