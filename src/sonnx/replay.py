"""``sonnx evidence verify DIR``: re-establish an evidence bundle by replaying its check.

The steps and what each compares are those of :mod:`sonnx.evidence.verify`;
this module puts them in order and runs the check again through the same
pipeline as ``sonnx-check`` (:func:`sonnx.pipeline.check_file`), handed the
options the bundle recorded (:meth:`~sonnx.options.CheckOptions.from_recorded`)
and the bundled copy of the model. When any hash differs, nothing else is
parsed, solved or run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import UsageError
from .evidence.attestation import ATTESTATION, AttestationError, check_signature, load_verify_key
from .evidence.bundle import MANIFEST
from .evidence.safe_files import member_path
from .evidence.verify import (
    BundleError,
    Verification,
    check_crosscheck,
    check_execution,
    check_hashes,
    check_smt,
    compare_report,
    inputs_file,
    listed,
    read_manifest,
    recorded_model_entry,
)
from .options import CheckOptions
from .pipeline import check_file

Say = Callable[[str], None]


def replay_check(root: Path, manifest: dict[str, Any], v: Verification, say: Say) -> None:
    """Run the check again with the recorded options on the bundled model; compare everything it gives."""
    entry = recorded_model_entry(root, manifest)
    model_file = member_path(root, listed(manifest, str(manifest["model"].get("file", "")), "the model file"))
    try:
        options = CheckOptions.from_recorded(manifest["options"], inputs_file(root, manifest))
    except UsageError as exc:
        raise BundleError(f"{root}: {exc.one_line()}") from None
    say(f"re-running the rules on {model_file}")
    report = check_file(str(model_file), options)
    if report.model is None:
        if entry.get("error") is None:
            why = report.error.one_line() if report.error is not None else "no model"
            v.differences.append(f"the bundled model no longer loads: {why}")
        return
    compare_report(root, manifest, entry, report, v)
    check_execution(root, manifest, report.model, v)
    check_crosscheck(root, manifest, entry, report.model, v)


def verify_bundle(directory: str, progress: Say | None = None, *, key: str | None = None) -> Verification:
    """Verify the bundle at ``directory`` (see :mod:`sonnx.evidence.verify` for the steps).

    With ``key`` (an Ed25519 public key file), the bundle's signature must
    also verify (:func:`~sonnx.evidence.attestation.check_signature`); a key
    file that cannot be used is refused before the bundle is read.
    """
    say = progress or (lambda _m: None)
    root = Path(directory)
    if key is not None:
        load_verify_key(key)
    manifest = read_manifest(root)
    v = Verification()
    say("re-hashing the bundle's files")
    check_hashes(root, manifest, v)
    if key is not None:
        say("checking the bundle's signature")
        try:
            keyid = check_signature(root, key)
            v.notes.append(f"the signature by key {keyid} covers {MANIFEST} (in-toto Statement, DSSE envelope)")
        except AttestationError as exc:
            v.differences.append(f"signature: {exc.one_line()}")
    elif (root / ATTESTATION).exists() or (root / ATTESTATION).is_symlink():
        v.notes.append(f"the bundle is signed ({ATTESTATION}) but no --key was given, so the signature was not checked")
    if v.differences:
        v.notes.append("stopped after the hash check: no other file was parsed, solved or run")
        return v
    steps: list[tuple[str, Callable[[], None]]] = [
        ("re-solving the SMT obligations", lambda: check_smt(root, manifest, v)),
        ("re-deriving the verdicts", lambda: replay_check(root, manifest, v, say)),
    ]
    for what, step in steps:
        say(what)
        try:
            step()
        except BundleError as exc:  # a damaged file inside a readable bundle is a difference, not exit 2
            v.differences.append(f"{what}: {exc.one_line()}")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            v.differences.append(f"{what}: malformed content ({type(exc).__name__}: {exc})")
    result = manifest.get("result") or {}
    recorded = f"the bundle records the check's result {result.get('outcome')} (exit {result.get('exit_code')})"
    if v.differences:
        v.notes.append(f"{recorded}; the differences above mean the bundle does not establish it")
    else:
        v.notes.append(f"{recorded}; verifying the bundle confirms that result, it does not change it")
    return v
