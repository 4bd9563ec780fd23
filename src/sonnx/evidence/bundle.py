"""Writing the evidence bundle of one check: a self-contained directory a reviewer can re-verify.

Layout (every path relative to the bundle)::

    manifest.json        hashes of everything below, versions, platform, options, z3 parameters
    model/<file>         a byte copy of the checked model, and of its external data files
    inputs/<file>        a copy of the --inputs .npz file, when one was given
    verdicts.json        the JSON report of the check: every verdict with its witness
    smt/answers.json     each SMT-LIB obligation: rule, logic, meaning, z3's answer, file
    smt/NNN-<name>.smt2  the obligations as standalone SMT-LIB2 files
    execution.json       the executor's run on the seeded inputs (digests), the order-independence result
    crosscheck.json      the cross-check figures, seed and input digests
    traceability.json    the spec version and the traceability matrix
    report.html          a human-readable report (graph picture, error charts)

Reproducible: the same model and options give the same bytes (fixed key
order, no timestamp unless asked for, the command line rebuilt from the
parsed options). Atomic: the bundle is written into a temporary sibling
directory and renamed into place, so a half-written bundle never exists
under the requested name.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from ..differential.oracles import import_onnxruntime
from ..errors import SonnxError, UsageError
from ..model.graph import Attribute, InitialValue, Model
from ..options import CheckOptions
from ..report import ModelReport, json_report
from ..smt import Obligation
from ..version import __version__
from .attestation import sign_bundle
from .execution import run_record
from .html import render_html

SCHEMA = "sonnx-evidence/1"
MANIFEST = "manifest.json"
MODEL_DIR = "model"
SMT_DIR = "smt"


class EvidenceError(SonnxError):
    """The evidence bundle cannot be written (destination in use, unwritable, model file gone)."""


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dump_json(data: Any) -> str:
    """The bundle's one JSON style: two-space indent, keys in insertion order, UTF-8, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def check_destination(directory: str) -> None:
    """Refuse a destination that exists and is not an empty directory (checked before the check runs)."""
    p = Path(directory)
    if p.exists() and (not p.is_dir() or any(p.iterdir())):
        raise UsageError(f"--evidence: {directory} exists and is not an empty directory")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise UsageError(f"--evidence: the folder {parent} does not exist")


def versions() -> dict[str, str | None]:
    """Versions of the tool and of everything whose answers the bundle records."""
    import z3

    ort = import_onnxruntime()
    try:
        import cvc5

        cvc5_version: str | None = str(getattr(cvc5, "__version__", "installed"))
    except Exception:
        cvc5_version = None
    return {
        "sonnx": __version__,
        "python": platform.python_version(),
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "z3": z3.get_version_string(),
        "onnxruntime": None if ort is None else str(getattr(ort, "__version__", "installed")),
        "onnx_reference": onnx.__version__,
        "cvc5": cvc5_version,
    }


def platform_facts() -> dict[str, str]:
    return {
        "system": platform.system(),
        "release": platform.release(),
        "machine": platform.machine(),
        "python_implementation": platform.python_implementation(),
    }


TRACEABILITY = "traceability.json"
"""The package data file holding the spec version and the traceability matrix of this release.

The matrix is built from a source checkout (spec pages, tests, theorems), so it
is generated into the package (``make traceability``) rather than computed by
an installed copy that has no checkout; a test keeps the file current."""


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


def _values(attr: Attribute) -> Iterator[InitialValue]:
    if isinstance(attr.value, InitialValue):
        yield attr.value
    elif attr.type == "TENSORS":
        yield from (v for v in attr.value if isinstance(v, InitialValue))


def external_locations(model: Model, model_path: str) -> list[str]:
    """Locations, relative to the model's folder, of every external data file the loaded model uses (sorted).

    Read from the model sonnx loaded (its own loader: no depth limit), so every
    place a tensor can live is covered: initializers of every graph, nested or
    in a function body, tensor attributes (a Constant's ``value`` or
    ``sparse_value``) and functions' attribute defaults. The loader already
    checked each location stays inside the folder.
    """
    folder = os.path.realpath(os.path.dirname(os.path.abspath(model_path)))
    found: set[str] = set()
    graphs = [g for _p, g in model.graph.nested()]
    for f in model.functions:
        graphs.extend(g for _p, g in f.body.nested())
    values: list[InitialValue] = []
    for g in graphs:
        values.extend(t.initial_value for t in g.tensors.values() if t.initial_value is not None)
        for op in g.operations:
            for a in op.attributes:
                values.extend(_values(a))
    for f in model.functions:
        for a in f.attribute_defaults:
            values.extend(_values(a))
    for v in values:
        if v.external is not None:
            rel = os.path.relpath(v.external.path, folder)
            if rel.startswith("..") or os.path.isabs(rel):
                raise EvidenceError(f"external data file {v.external.path!r} is outside the model's folder")
            found.add(Path(rel).as_posix())
    return sorted(found)


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


def build_files(report: ModelReport, options: CheckOptions) -> dict[str, str | bytes]:
    """Every generated file of the bundle (not the model copy, not the manifest), by relative path."""
    files: dict[str, str | bytes] = {}
    code = report.exit_code
    files["verdicts.json"] = json_report([report], options.profile, code)
    entries = []
    for name, ob in obligation_files(report.obligations):
        files[name] = ob.render()
        entries.append(obligation_entry(name, ob))
    solver = report.smt.to_json() if report.smt is not None else None
    files[f"{SMT_DIR}/answers.json"] = dump_json({"solver": solver or None, "obligations": entries})
    orders = report.verdict("EXEC-ORDERS")
    inputs_file = options.inputs
    files["execution.json"] = dump_json(
        {
            "seed": options.seed,
            "inputs": options.recorded()["inputs"],
            "run": run_record(report.model, inputs_file, options.seed),
            "orders": {"requested": options.orders, "verdict": None if orders is None else orders.to_json()},
        }
    )
    files["crosscheck.json"] = dump_json(
        {
            "requested": list(options.oracles),
            "report": None if report.crosscheck is None else report.crosscheck.to_json(),
        }
    )
    files["traceability.json"] = dump_json(packaged_traceability())
    files["report.html"] = render_html(report, options)
    return files


def write_bundle(directory: str, report: ModelReport, options: CheckOptions) -> Path:
    """Write the bundle of ``report`` to ``directory`` atomically; returns the final path.

    A model that could not be loaded still gets a bundle (its error is the
    verdict); a model file that vanished since the check is an error.
    """
    check_destination(directory)
    dest = Path(directory)
    model_path = Path(report.path)
    if not model_path.is_file():
        why = report.error.one_line() if report.error is not None else "it cannot be read any more"
        raise EvidenceError(f"--evidence: no bundle without a model file to copy: {why}")
    parent = dest.resolve().parent
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=parent))
    except OSError as exc:
        raise EvidenceError(f"--evidence: cannot write {directory}: {exc.strerror or exc}") from None
    try:
        _write_into(tmp, report, options)
        if options.sign:
            sign_bundle(tmp, options.sign)
        os.chmod(tmp, 0o755)
        if dest.exists():
            dest.rmdir()  # empty, checked above
        os.replace(tmp, dest)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise EvidenceError(f"--evidence: cannot write {directory}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _write_into(root: Path, report: ModelReport, options: CheckOptions) -> None:
    model_path = Path(report.path)
    copies: dict[str, Path] = {f"{MODEL_DIR}/{model_path.name}": model_path}
    externals = []
    if report.error is None:
        assert report.model is not None
        for loc in external_locations(report.model, str(model_path)):
            src = model_path.parent / loc
            rel = f"{MODEL_DIR}/{Path(loc).as_posix()}"
            if rel in copies:
                raise EvidenceError(f"external data file {loc!r} has the model's own name")
            copies[rel] = src
            externals.append((loc, rel))
    if options.inputs:
        copies[f"inputs/{Path(options.inputs).name}"] = Path(options.inputs)
    hashes: dict[str, str] = {}
    for rel, src in copies.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        hashes[rel] = sha256_file(target)
    for rel, content in build_files(report, options).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(data)
        hashes[rel] = hashlib.sha256(data).hexdigest()
    model_rel = f"{MODEL_DIR}/{model_path.name}"
    manifest = {
        "schema": SCHEMA,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if options.evidence_timestamp else None,
        "tool": {"name": "sonnx", "version": __version__},
        "versions": versions(),
        "platform": platform_facts(),
        "command_line": options.command_line(report.path),
        "options": options.recorded(),
        "z3": None if report.smt is None else report.smt.to_json(),
        "spec_version": spec_version(),
        "model": {
            "source": report.path,
            "file": model_rel,
            "sha256": hashes[model_rel],
            "size": (root / model_rel).stat().st_size,
            "loaded": report.error is None,
            "external_data": [
                {"location": loc, "file": rel, "sha256": hashes[rel], "size": (root / rel).stat().st_size}
                for loc, rel in externals
            ],
        },
        "result": {"outcome": report.outcome, "exit_code": report.exit_code, "counts": report.counts()},
        "files": {rel: hashes[rel] for rel in sorted(hashes)},
    }
    (root / MANIFEST).write_text(dump_json(manifest), encoding="utf-8")
