"""``sonnx evidence verify DIR``: re-derive every statement of an evidence bundle, or refuse it.

The steps and what each compares are those of :mod:`sonnx.checking.evidence.verify`;
this module puts them in order and runs the check again through the same
pipeline as ``sonnx-check`` (:func:`sonnx.checking.pipeline.check_file`), handed the
options the bundle recorded (:meth:`~sonnx.checking.options.CheckOptions.from_recorded`)
and a private copy of the bundled model, then renders the whole bundle again
with the writer's own functions (:mod:`sonnx.checking.evidence.render`). When any hash
differs, nothing else is parsed, solved or run.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..base.build_info import build_identity
from ..base.errors import UsageError
from ..base.progress import Say, quiet
from ..differential.oracles import oracle_version
from ..differential.recorded import RecordedResultError, oracle_result
from ..differential.run import OracleResult
from .evidence.attestation import ATTESTATION, AttestationError, check_signature, load_verify_key
from .evidence.bundle import sha256_file
from .evidence.render import (
    DECLARATIONS_DIR,
    INPUTS_DIR,
    MANIFEST,
    WAIVERS_DIR,
    bundle_paths,
    generated_files,
    manifest_bytes,
    model_file,
    subject_files,
)
from .evidence.safe_files import BundleFileError, read_json_member
from .evidence.verify import (
    TRUST,
    BundleError,
    Verification,
    compare_build,
    compare_rendered,
    copy_members,
    obligation_paths,
    read_manifest,
    resolve_obligations,
)
from .options import CheckOptions
from .pipeline import check_file
from .waivers import WaiverError


def trust_set(kinds: Iterable[str]) -> frozenset[str]:
    """The ``--trust`` kinds, each one of :data:`~sonnx.checking.evidence.verify.TRUST` (else a usage error)."""
    out = frozenset(kinds)
    unknown = sorted(out - set(TRUST))
    if unknown:
        raise UsageError(f"--trust: unknown kind {unknown[0]!r} (known: {', '.join(TRUST)})")
    return out


def _given_results(
    work: Path, options: CheckOptions, trust: frozenset[str], v: Verification
) -> dict[str, OracleResult]:
    """Recorded results of the oracles that cannot be re-run as they ran: used for the replay, never confirmed.

    An oracle cannot be re-run when its runtime is not installed here, or when
    it was not installed where the bundle was written, or the installed version
    is not the one the bundle records (its figures may legitimately differ).
    """
    if not options.oracles:
        return {}
    try:
        data = read_json_member(work, "crosscheck.json")
        entries = {e.get("oracle"): e for e in data["report"]["oracles"] if isinstance(e, dict)}
    except (BundleFileError, KeyError, TypeError, AttributeError) as exc:
        v.differences.append(f"crosscheck.json: the recorded figures cannot be read ({exc})")
        return {}
    given = {}
    for name in options.oracles:
        here = oracle_version(name)
        entry = entries.get(name) or {}
        recorded = entry.get("version")
        absent_then = entry.get("status") == "not available"
        if here is not None and not absent_then and (recorded is None or recorded == here):
            continue
        try:
            given[name] = oracle_result(entries.get(name), name)
        except RecordedResultError as exc:
            v.differences.append(str(exc))
            continue
        if here is None:
            why = f"{name} is not installed here"
        else:
            why = f"{name} was not installed where the bundle was written" if absent_then else f"{recorded} recorded"
            why += f", {here} here"
        v.not_rederived("crosscheck", f"the {name} figures of crosscheck.json ({why})", trust)
    return given


def _replay(root: Path, work: Path, manifest: dict[str, Any], raw: bytes, trust: frozenset[str], v: Verification,
            say: Say) -> None:
    created = manifest["created"]
    if created is not None:
        v.not_rederived("date", f"the creation date {created}", trust)
    compare_build(manifest["build"], build_identity(), trust, v)
    recorded_inputs = manifest["options"].get("inputs")
    inputs = None if not isinstance(recorded_inputs, str) else str(work / INPUTS_DIR / recorded_inputs)
    if inputs is not None and f"{INPUTS_DIR}/{recorded_inputs}" not in manifest["files"]:
        v.differences.append(f"the recorded inputs file {recorded_inputs!r} is not a listed bundle file")
        return
    recorded_waivers = manifest["options"].get("waivers")
    waivers = None if not isinstance(recorded_waivers, str) else str(work / WAIVERS_DIR / recorded_waivers)
    if waivers is not None and f"{WAIVERS_DIR}/{recorded_waivers}" not in manifest["files"]:
        v.differences.append(f"the recorded waivers file {recorded_waivers!r} is not a listed bundle file")
        return
    recorded_decls = manifest["options"].get("operator_declarations")
    decls = None if not isinstance(recorded_decls, str) else str(work / DECLARATIONS_DIR / recorded_decls)
    if decls is not None and f"{DECLARATIONS_DIR}/{recorded_decls}" not in manifest["files"]:
        v.differences.append(f"the recorded declarations file {recorded_decls!r} is not a listed bundle file")
        return
    try:
        options = CheckOptions.from_recorded(manifest["options"], inputs, waivers=waivers, declarations=decls)
    except UsageError as exc:
        raise BundleError(f"{root}: {exc.one_line()}") from None
    if options.waivers_date is not None:
        v.notes.append(f"the waivers were judged on the check's recorded date {options.waivers_date}, as recorded")
    model_path = work / manifest["model"]["file"]
    given = _given_results(work, options, trust, v)
    say(f"re-running the check on the bundled {manifest['model']['file']}")
    try:
        report = check_file(str(model_path), options, given=given)
    except WaiverError as exc:
        v.differences.append(f"the recorded waivers do not apply to the recorded check: {exc.one_line()}")
        return
    try:
        copies = subject_files(report, options)
    except ValueError as exc:
        v.differences.append(str(exc))
        return
    if model_file(report) != manifest["model"]["file"]:
        v.differences.append(f"{MANIFEST}: the model must be a file of the folder model/")
        return
    say("rendering the bundle again")
    relabel = bundle_paths(copies)
    model_sha256 = sha256_file(model_path)
    docs_url = manifest["docs_url"]
    rendered = generated_files(report, options, relabel, manifest["build"], created, model_sha256, docs_url)
    listed = set(manifest["files"])
    compare_rendered(work, rendered, set(copies), listed, v)
    hashes = {rel: sha256_file(work / rel) for rel in copies if rel in listed}
    sizes = {rel: (work / rel).stat().st_size for rel in hashes}
    for rel, data in rendered.items():
        hashes[rel] = hashlib.sha256(data).hexdigest()
        sizes[rel] = len(data)
    if set(copies) <= set(hashes):
        fresh = manifest_bytes(report, options, hashes, sizes, manifest["build"], created, docs_url)
        if fresh != raw:
            v.differences.append(f"{MANIFEST}: differs from the manifest the re-run check renders")
    if not v.differences:
        say("re-solving the SMT obligations from their files")
        resolve_obligations(work, obligation_paths(rendered), v)


def _signature(root: Path, raw: bytes, key: str | None, v: Verification, say: Say) -> None:
    """With a key, the signature must cover the manifest read; without, a signed bundle is noted as unchecked."""
    if key is not None:
        say("checking the bundle's signature")
        try:
            keyid = check_signature(root, key, raw)
            v.notes.append(f"the signature by key {keyid} covers {MANIFEST} (in-toto Statement, DSSE envelope)")
        except AttestationError as exc:
            v.differences.append(f"signature: {exc.one_line()}")
    elif (root / ATTESTATION).exists() or (root / ATTESTATION).is_symlink():
        v.notes.append(f"the bundle is signed ({ATTESTATION}) but no --key was given: the signature was not checked")


def verify_bundle(
    directory: str,
    progress: Say | None = None,
    *,
    trust: Iterable[str] = (),
    key: str | None = None,
) -> Verification:
    """Verify the bundle at ``directory`` (see :mod:`sonnx.checking.evidence.verify` for the steps).

    ``trust`` names the kinds of claim taken on trust when they cannot be
    re-derived here (:data:`~sonnx.checking.evidence.verify.TRUST`); ``key`` an
    Ed25519 public key file that must have signed the manifest
    (:func:`~sonnx.checking.evidence.attestation.check_signature`; a key file that
    cannot be used is refused before the bundle is read).
    """
    start = time.perf_counter()
    say = progress or quiet
    trusted = trust_set(trust)
    if key is not None:
        load_verify_key(key)
    root = Path(directory)
    manifest, raw = read_manifest(root)
    v = Verification()
    _signature(root, raw, key, v, say)
    with tempfile.TemporaryDirectory(prefix="sonnx-verify-") as tmp:
        work = Path(tmp)
        say("copying and re-hashing the bundle's files")
        copy_members(root, manifest, work, v)
        if v.differences:
            v.notes.append("stopped after the hash check: no other file was parsed, solved or run")
        else:
            try:
                _replay(root, work, manifest, raw, trusted, v, say)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                v.differences.append(f"malformed content ({type(exc).__name__}: {exc})")
    result = manifest.get("result")
    claim = f"the bundle records the result {result.get('outcome')} (exit {result.get('exit_code')})" if isinstance(
        result, dict) else "the bundle records no result"
    if v.exit_code == 0 and v.trusted:
        v.notes.append(f"{claim}; re-derived from its model and options, except what was taken on trust")
    elif v.exit_code == 0:
        v.notes.append(f"{claim}; every statement of the bundle was re-derived from its model and options")
    else:
        v.notes.append(f"{claim}; this verification does not establish it")
    v.seconds = time.perf_counter() - start
    return v
