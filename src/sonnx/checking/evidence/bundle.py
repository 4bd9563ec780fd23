"""Writing the evidence bundle of one check: a self-contained directory a reviewer can re-verify.

Layout (every path relative to the bundle)::

    manifest.json        the build that made the bundle, the options, the result, the SHA-256 of every file below
    model/<file>         a byte copy of the checked model, and of its external data files
    inputs/<file>        a copy of the --inputs .npz file, when one was given
    declarations/<file>  a copy of the --operator-declarations file, when one was given
    verdicts.json        the JSON report of the check: every verdict with its witness
    smt/answers.json     each SMT-LIB obligation: rule, logic, meaning, z3's answer, file
    smt/NNN-<name>.smt2  the obligations as standalone SMT-LIB2 files
    execution.json       the executor's run on the seeded inputs (digests), the order-independence result
    crosscheck.json      the cross-check figures, seed and input digests
    traceability.json    the spec version and the traceability matrix
    report.html          a human-readable report (graph picture, error charts)

Reproducible: the same model and options give the same bytes (fixed key
order, no timestamp unless asked for, the command line rebuilt from the
parsed options, paths named by their place in the bundle); every byte is
rendered by :mod:`.render`, which ``sonnx evidence verify`` renders again.
Atomic: the bundle is written into a temporary sibling directory and
renamed into place, so a half-written bundle never exists under the
requested name.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from ...base.build_info import build_identity
from ...base.errors import SonnxError, UsageError
from ...base.files import write_directory
from ..options import CheckOptions
from ..report import ModelReport
from .attestation import sign_bundle
from .render import MANIFEST, bundle_paths, generated_files, manifest_bytes, model_file, subject_files


class EvidenceError(SonnxError):
    """The evidence bundle cannot be written (destination in use, unwritable, model file gone)."""


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_destination(directory: str) -> None:
    """Refuse a destination that exists and is not an empty directory (checked before the check runs)."""
    p = Path(directory)
    if p.exists() and (not p.is_dir() or any(p.iterdir())):
        raise UsageError(f"--evidence: {directory} exists and is not an empty directory")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise UsageError(f"--evidence: the folder {parent} does not exist")


def write_bundle(directory: str, report: ModelReport, options: CheckOptions) -> Path:
    """Write the bundle of ``report`` to ``directory`` atomically; returns the final path.

    ``report`` must come from a check of an absolute path, with an absolute
    inputs path (:func:`sonnx.checking.pipeline.check_models` does so when it writes a
    bundle). A model that could not be loaded still gets a bundle (its error
    is the verdict); a model file that vanished since the check is an error.
    """
    check_destination(directory)
    relative = [p for p in (options.inputs, options.operator_declarations) if p is not None and not os.path.isabs(p)]
    if not os.path.isabs(report.path) or relative:
        raise EvidenceError("--evidence: the check was not run on absolute paths, so its bundle cannot be replayed")
    dest = Path(directory)
    model_path = Path(report.path)
    if not model_path.is_file():
        why = report.error.one_line() if report.error is not None else "it cannot be read any more"
        raise EvidenceError(f"--evidence: no bundle without a model file to copy: {why}")

    def fill(tmp: Path) -> None:
        _write_into(tmp, report, options)
        if options.sign:
            sign_bundle(tmp, options.sign)

    write_directory(dest, fill, lambda why: EvidenceError(f"--evidence: cannot write {directory}: {why}"))
    return dest


def _write_into(root: Path, report: ModelReport, options: CheckOptions) -> None:
    try:
        copies = subject_files(report, options)
    except ValueError as exc:
        raise EvidenceError(f"--evidence: {exc}") from None
    hashes: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for rel, src in copies.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        hashes[rel] = sha256_file(target)
        sizes[rel] = target.stat().st_size
    created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if options.evidence_timestamp else None
    build = build_identity()
    relabel = bundle_paths(copies)
    model_sha256 = hashes[model_file(report)]
    for rel, data in generated_files(report, options, relabel, build, created, model_sha256, options.docs_url).items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        hashes[rel] = hashlib.sha256(data).hexdigest()
        sizes[rel] = len(data)
    (root / MANIFEST).write_bytes(manifest_bytes(report, options, hashes, sizes, build, created, options.docs_url))
